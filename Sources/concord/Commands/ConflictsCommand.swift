import Concord
import Foundation

/// The arguments of `concord conflicts`.
struct ConflictsOptions: ParsableOptions {
    @Positional(help: "The replica's database file.")
    var db: String
    @Option(valueName: "name", help: "Only conflicts in this synced table.")
    var table: String?
    @Option(valueName: "key", help: "Only conflicts of the row with this key (TEXT, or X'hex' for a BLOB key).")
    var key: String?
    @Flag(help: "Print machine-readable JSON.")
    var json = false

    /// The key as a value: `X'…'` (hex digits) is a BLOB key, anything else TEXT.
    var keyValue: SQLiteValue? {
        guard let key else { return nil }
        let utf8 = Array(key.utf8)
        if utf8.count >= 3, utf8[0] == UInt8(ascii: "x") || utf8[0] == UInt8(ascii: "X"), utf8[1] == UInt8(ascii: "'"),
            utf8.last == UInt8(ascii: "'"), let bytes = Self.hexBytes(utf8[2..<(utf8.count - 1)])
        {
            return .blob(bytes)
        }
        return .text(key)
    }

    private static func hexBytes(_ digits: ArraySlice<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            guard let high = Int(String(UnicodeScalar(digits[index])), radix: 16),
                let low = Int(String(UnicodeScalar(digits[index + 1])), radix: 16)
            else { return nil }
            bytes.append(UInt8(high * 16 + low))
            index += 2
        }
        return bytes
    }
}

extension Subcommand {
    static let conflicts = Subcommand(
        "conflicts",
        abstract: "List the values that lost to a concurrent write, newest first, beside their winners.",
        discussion: """
            A value lost when a write that had not seen it superseded it: another device's value that lost \
            to this replica's own edit or delete, or this replica's own value that lost to another device's \
            write before it was ever exported. Each entry keeps the losing value, its device and \
            stamp, and the winner, for the retention the app set (30 days and 1,000 per table by default). \
            The list is this device's own record: it is not synced, and other devices may list others. \
            `concord restore DB ID` writes a losing value back.
            """,
        options: ConflictsOptions.self
    ) { options, output in
        let replica = try Replica(path: options.db, create: false)
        let conflicts = try replica.conflicts(table: options.table, key: options.keyValue)
        if options.json {
            try output.printJSON(conflicts)
            return
        }
        print("\(options.db): \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s"), newest first", to: &output)
        for conflict in conflicts {
            let winner = conflict.winner.map { "\($0)" } ?? "a delete of the row"
            print(
                "  \(conflict.id)  \(conflict.table)/\(conflict.keyText) \(conflict.column): "
                    + "\(conflict.lost) by \(conflict.lostStamp.node.description.prefix(8)) at \(conflict.lostStamp.hlc) "
                    + "lost to \(winner) by \(conflict.winnerStamp.node.description.prefix(8)) "
                    + "at \(conflict.winnerStamp.hlc); recorded \(Self.time(conflict.recordedAt))", to: &output)
        }
        if conflicts.isEmpty { print("  (none)", to: &output) }
    }

    /// Unix milliseconds as an ISO 8601 time in UTC.
    static func time(_ milliseconds: Int64) -> String {
        ISO8601DateFormatter.string(
            from: Date(timeIntervalSince1970: Double(milliseconds) / 1000), timeZone: TimeZone(identifier: "UTC")!,
            formatOptions: [.withInternetDateTime, .withFractionalSeconds])
    }
}

extension Conflict {
    /// The key as `concord conflicts` prints it: TEXT as is, a BLOB as `X'…'`.
    var keyText: String { key.textValue ?? key.description }
}
