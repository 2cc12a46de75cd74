import Concord

/// Settings an app may leave on the connection it shares with its replica, drawn per device: each one
/// changes what an unwary statement means, and none may change what Concord does.
///
/// Why: an app that opens its replica and writes through `replica.database` (the simplest way to use
/// Concord) shares every setting it makes there with Concord's own statements. Three such settings once
/// made Concord lose or alter data while `sync` succeeded: a TEMP table named like a synced table took its
/// place in Concord's statements, and `case_sensitive_like` hid an app trigger's DELETE. The simulator now
/// makes them on some devices, so a statement that depends on them shows as a divergence or an oracle
/// failure; `reverse_unordered_selects` (SQLite's own test for a query whose order matters but is not
/// asked for), `recursive_triggers` and `trusted_schema = OFF` (with which SQLite 3.40 refused every write
/// of a table with a union column, its guard calling `json_valid`) join them, as does a library without
/// the preupdate hook. An app may also turn `recursive_triggers` on for its own
/// connection, where its `INSERT OR REPLACE` then deletes the old row with its triggers firing: a counter
/// saved that way showed the new count minus the old until the simulator drew it.
///
/// Drawn from a generator of its own (from the seed and the device), so no other draw shifts; a fork draws
/// its own as the new device it is, a restored device keeps its own, and every relaunch makes them again
/// (they live on the connection).
///
/// ```swift
/// let quirks = ConnectionQuirks.draw(seed: 7, device: 1, shadows: true)
/// try quirks.apply(to: replica, app: app)
/// ```
struct ConnectionQuirks: Equatable, CustomStringConvertible {
    /// A TEMP table named like each synced table, holding a row of its own, on the replica's connection.
    var shadowTables = false
    /// `PRAGMA reverse_unordered_selects = ON`: rows of a query without ORDER BY come in another order.
    var reverseUnorderedSelects = false
    /// `PRAGMA case_sensitive_like = ON`.
    var caseSensitiveLike = false
    /// `PRAGMA recursive_triggers = ON`: a REPLACE's delete fires delete triggers, triggers fire triggers.
    var recursiveTriggers = false
    /// `PRAGMA recursive_triggers = ON` on the app's own connection, where its statements run.
    var appRecursiveTriggers = false
    /// `PRAGMA trusted_schema = OFF` on the replica's connection, as SQLite advises hardened apps: triggers
    /// may call only functions SQLite marks innocuous, which before 3.41 its scalar JSON functions are not.
    var untrustedSchema = false
    /// `PRAGMA trusted_schema = OFF` on the app's own connection.
    var appUntrustedSchema = false
    /// The replica catches the rows an app trigger deletes while Concord merges with TEMP triggers, as where
    /// the SQLite library is built without the preupdate hook (SQLite's default build, and many an app's
    /// own), rather than with the hook this machine's library has.
    ///
    /// Why: without the hook such a row's values were lost, and a peer's newer values at the same stamp
    /// then lost to NULL everywhere; no run could show it where every device had the hook.
    var withoutPreupdateHook = false
    /// A second process of the app (a share extension, a widget) keeps a replica of its own open on the
    /// same file and does the device's syncing on some steps (``SimulatedDevice/act(inProcess:)``).
    ///
    /// Why: each replica keeps what it read of the file in memory (its node id, tables, schema check,
    /// node indexes), and another process on the file changes the file under it: a copy opened by two
    /// processes once exported under the node id of the file it was copied from.
    var secondProcess = false
    /// The app applies some changesets first inside a transaction of its own, looks at the result
    /// (`check()`), and rolls it back (its own validation failed), then applies them again.
    ///
    /// Why: a rollback Concord does not see undid a peer's node index the replica kept in memory, and the
    /// apply after it stored the peer's writes under an index the file no longer held.
    var rollsBackApplies = false

    /// Each setting with even odds, a second process one device in four; shadow tables only where `shadows`
    /// allows (a workload with migrations runs them on the replica's connection, where they would alter
    /// the TEMP table instead).
    static func draw(seed: UInt64, device: Int, shadows: Bool) -> ConnectionQuirks {
        var generator = SeededGenerator(seed: seed &* 0xD6E8_FEB8_6659_FD93 &+ 0xC0FF_EE00 &+ UInt64(device))
        let bits = generator.next()
        return ConnectionQuirks(
            shadowTables: shadows && bits & 1 != 0, reverseUnorderedSelects: bits & 2 != 0,
            caseSensitiveLike: bits & 4 != 0, recursiveTriggers: bits & 8 != 0, appRecursiveTriggers: bits & 16 != 0,
            untrustedSchema: bits & 256 != 0, appUntrustedSchema: bits & 512 != 0,
            withoutPreupdateHook: bits & 1024 != 0, secondProcess: bits & 96 == 96,
            rollsBackApplies: bits & 128 != 0)
    }

    /// Makes the settings on `replica`'s connection, after it opened and its tables exist, and on `app`'s.
    func apply(to replica: Replica, app: Database) throws {
        if appRecursiveTriggers { try app.execute("PRAGMA recursive_triggers = ON") }
        if appUntrustedSchema { try app.execute("PRAGMA trusted_schema = OFF") }
        try apply(to: replica)
    }

    /// Makes the settings on `replica`'s connection alone: a second process's, which runs no app statement.
    func apply(to replica: Replica) throws {
        let database = replica.database
        if reverseUnorderedSelects { try database.execute("PRAGMA reverse_unordered_selects = ON") }
        if caseSensitiveLike { try database.execute("PRAGMA case_sensitive_like = ON") }
        if recursiveTriggers { try database.execute("PRAGMA recursive_triggers = ON") }
        if untrustedSchema { try database.execute("PRAGMA trusted_schema = OFF") }
        guard shadowTables else { return }
        for table in replica.tables {
            // Columns listed, not `AS SELECT *`: that names a column called `true` `column1`.
            let name = quoteIdentifier(table.name)
            let columns = ([table.key] + table.columns).map(quoteIdentifier).joined(separator: ", ")
            try database.execute("CREATE TEMP TABLE IF NOT EXISTS \(name) (\(columns))")
            try database.execute(
                "INSERT INTO temp.\(name) (\(quoteIdentifier(table.key))) VALUES (?)", [.text("shadow")])
        }
    }

    var description: String {
        [
            shadowTables ? "TEMP tables named like the synced ones" : nil,
            reverseUnorderedSelects ? "reverse_unordered_selects" : nil,
            caseSensitiveLike ? "case_sensitive_like" : nil, recursiveTriggers ? "recursive_triggers" : nil,
            appRecursiveTriggers ? "recursive_triggers on its own connection" : nil,
            untrustedSchema ? "trusted_schema off" : nil,
            appUntrustedSchema ? "trusted_schema off on its own connection" : nil,
            withoutPreupdateHook ? "no preupdate hook" : nil,
            secondProcess ? "a second process syncing on some steps" : nil,
            rollsBackApplies ? "some applies first in a transaction of its own, rolled back" : nil,
        ].compactMap { $0 }.joined(separator: ", ")
    }
}
