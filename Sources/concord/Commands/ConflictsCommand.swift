import Concord
import Foundation

/// The arguments of `concord conflicts`.
struct ConflictsOptions: ParsableOptions {
    @Positional(help: "The replica's database file.")
    var db: String
    @Option(valueName: "name", help: "Only conflicts in this synced table.")
    var table: String?
    @Option(
        valueName: "key",
        help: "Only conflicts of the row with this key: TEXT as it is, X'hex' for a BLOB key, 'text' quoted as "
            + "SQL quotes it for a TEXT key that reads like those, or U&'a\\000Ab' (SQL's Unicode escapes) for one "
            + "holding control characters (listings print keys so).")
    var key: RowKey?
    @Flag(help: "Print machine-readable JSON.")
    var json = false
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
        let conflicts = try replica.conflicts(table: options.table, key: options.key?.value)
        if options.json {
            try output.printJSON(conflicts)
            return
        }
        print("\(options.db): \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s"), newest first", to: &output)
        for conflict in conflicts {
            let winner = conflict.winner.map { RowKey.printable("\($0)") } ?? "a delete of the row"
            print(
                "  \(conflict.id)  \(conflict.table)/\(conflict.keyText) \(conflict.column): "
                    + "\(RowKey.printable("\(conflict.lost)")) by \(conflict.lostStamp.node.description.prefix(8)) at \(conflict.lostStamp.hlc) "
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
    /// The key as `concord conflicts` prints it, and `--key` takes it (see ``RowKey``).
    var keyText: String { RowKey.spelling(of: key) }
}
