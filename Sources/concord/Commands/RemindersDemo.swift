import Concord
import Foundation

/// The ten-second tour `concord demo` gives: two devices edit one reminders
/// database offline in conflicting ways, sync, and end up the same.
///
/// Each device's clock is a manual one set to a story time, so the output
/// is the same on every run and "the later edit wins" is visible.
struct RemindersDemo {
    /// Where the two database files go.
    let directory: URL

    private let schema = """
        CREATE TABLE reminders (
            id TEXT PRIMARY KEY NOT NULL,
            title TEXT NOT NULL,
            done INTEGER NOT NULL DEFAULT 0,
            priority INTEGER NOT NULL DEFAULT 0
        );
        """

    func run() throws -> String {
        let start: Int64 = 1_767_258_000_000  // 2026-01-01 09:00 UTC
        let phoneClock = ManualClock(unixMilliseconds: start)
        let laptopClock = ManualClock(unixMilliseconds: start)
        let phone = try open("phone.sqlite", node: 0xA1, clock: phoneClock)
        let laptop = try open("laptop.sqlite", node: 0xB2, clock: laptopClock)
        var out = "Two replicas of a reminders database in \(directory.path)\n\n"

        try phone.database.execute(
            """
            INSERT INTO reminders (id, title) VALUES
                ('r1', 'Buy milk'), ('r2', 'Call the dentist'), ('r3', 'Water the plants');
            """)
        try Replica.sync([phone, laptop])
        out += "09:00  the phone creates three reminders; both devices sync.\n"
        out += try show(phone, laptop)

        try editOffline(phone, at: phoneClock, laptop, at: laptopClock, from: start)
        out += """

            Offline, both devices edit:
            09:10  phone:  r1 title 'Buy oat milk'; r2 done; r3 deleted
            09:25  laptop: r1 title 'Buy almond milk' and priority 2; r2 title changed; r3 priority 1

            """
        out += try show(phone, laptop)

        phoneClock.set(start + 30 * 60_000)
        laptopClock.set(start + 30 * 60_000)
        try Replica.sync([phone, laptop])
        out += """

            09:30  both devices are back online and sync:
            - r1: both renamed it; the later edit (laptop, 09:25) wins on both devices, and its priority stays.
            - r2: different columns were edited, so both edits survive.
            - r3: the phone deleted it; the laptop's concurrent edit does not bring it back.

            """
        out += try show(phone, laptop)
        let consistent =
            try phone.check().isConsistent && laptop.check().isConsistent
            && phone.canonicalDump() == laptop.canonicalDump()
        out += "\nBoth replicas hold the same registers and pass `concord check`: \(consistent ? "yes" : "NO")\n"
        return out
    }

    /// The offline edits: the phone's at 09:10, the laptop's conflicting ones at 09:25.
    private func editOffline(
        _ phone: Replica, at phoneClock: ManualClock, _ laptop: Replica, at laptopClock: ManualClock, from start: Int64
    ) throws {
        phoneClock.set(start + 10 * 60_000)
        try phone.database.execute(
            """
            UPDATE reminders SET title = 'Buy oat milk' WHERE id = 'r1';
            UPDATE reminders SET done = 1 WHERE id = 'r2';
            DELETE FROM reminders WHERE id = 'r3';
            """)
        laptopClock.set(start + 25 * 60_000)
        try laptop.database.execute(
            """
            UPDATE reminders SET title = 'Buy almond milk', priority = 2 WHERE id = 'r1';
            UPDATE reminders SET title = 'Call the dentist at 3pm' WHERE id = 'r2';
            UPDATE reminders SET priority = 1 WHERE id = 'r3';
            """)
    }

    private func open(_ name: String, node byte: UInt8, clock: ManualClock) throws -> Replica {
        let path = directory.appendingPathComponent(name).path
        try? FileManager.default.removeItem(atPath: path)
        let replica = try Replica(
            path: path,
            configuration: .init(
                clock: clock, makeNodeID: { NodeID(bytes: Array(repeating: byte, count: NodeID.byteCount))! }))
        try replica.database.execute(schema)
        try replica.enableSync(on: "reminders")
        return replica
    }

    private func show(_ phone: Replica, _ laptop: Replica) throws -> String {
        let query = "SELECT id, title, done, priority FROM reminders ORDER BY id"
        let left = try phone.database.query(query)
        let right = try laptop.database.query(query)
        func line(_ row: [SQLiteValue]?) -> String {
            guard let row else { return "-" }
            let title = row[1].textValue ?? ""
            let done = row[2] == .integer(1) ? "x" : " "
            return "[\(done)] \(title) (p\(row[3]))"
        }
        let keys = Set((left + right).map { $0[0] }).sorted()
        var text =
            "  " + "id".padding(toLength: 5, withPad: " ", startingAt: 0)
            + "phone".padding(toLength: 36, withPad: " ", startingAt: 0) + "laptop\n"
        for key in keys {
            text +=
                "  " + (key.textValue ?? "").padding(toLength: 5, withPad: " ", startingAt: 0)
                + line(left.first { $0[0] == key }).padding(toLength: 36, withPad: " ", startingAt: 0)
                + line(right.first { $0[0] == key }) + "\n"
        }
        return text
    }
}
