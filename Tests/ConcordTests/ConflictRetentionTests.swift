import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// The conflict log keeps entries for the app's ``ConflictRetention``: by age and by count per table.
@Suite("Conflict log: retention", .tags(.replica), .timeLimit(.hangGuard))
struct ConflictRetentionTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    /// Two replicas, the winning one (`b`) keeping conflicts for `retention`.
    private func pair(_ retention: ConflictRetention) throws -> (Replica, Replica) {
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        var settings = configuration(node: 2, clock: clock)
        settings.conflictRetention = retention
        let b = try Replica.inMemory(configuration: settings)
        for replica in [a, b] {
            try replica.database.execute(remindersSchema)
            try replica.enableSync(on: "reminders")
        }
        return (a, b)
    }

    /// Makes `b` record one conflict for each of `keys`: both edit the title, `b` later.
    private func conflict(_ a: Replica, _ b: Replica, _ keys: [String]) throws {
        for key in keys {
            try a.database.execute("INSERT OR IGNORE INTO reminders (id, title) VALUES (?, 'new')", [.text(key)])
        }
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        clock.advance(by: 1_000)
        for key in keys {
            try a.database.execute("UPDATE reminders SET title = 'a ' || id WHERE id = ?", [.text(key)])
        }
        clock.advance(by: 1_000)
        for key in keys {
            try b.database.execute("UPDATE reminders SET title = 'b ' || id WHERE id = ?", [.text(key)])
        }
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
    }

    @Test func theDefaultKeepsThirtyDays() {
        #expect(ConflictRetention.default.maxAge == 30 * 86_400_000)
        #expect(Replica.Configuration().conflictRetention == .default)
    }

    @Test func entriesOlderThanTheMaximumAgeArePrunedWhenNewOnesAreRecorded() throws {
        let (a, b) = try pair(ConflictRetention(maxAge: ConflictRetention.day, maxPerTable: 100))
        try conflict(a, b, ["r1"])
        #expect(try b.conflicts().map(\.key) == ["r1"])
        clock.advance(by: ConflictRetention.day + 1)
        try conflict(a, b, ["r2"])
        #expect(try b.conflicts().map(\.key) == ["r2"], "r1's entry was more than a day old")
    }

    @Test func eachTableKeepsOnlyItsNewestEntries() throws {
        let (a, b) = try pair(ConflictRetention(maxAge: ConflictRetention.day, maxPerTable: 2))
        try conflict(a, b, ["r1"])
        try conflict(a, b, ["r2"])
        try conflict(a, b, ["r3"])
        #expect(try b.conflicts().map(\.key) == ["r3", "r2"], "newest first, two kept")
    }
}
