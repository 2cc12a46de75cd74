import Concord
import Foundation

/// The arguments of `concord status`.
struct StatusOptions: ParsableOptions {
    @Positional(help: "The replica's database file.")
    var db: String
    @Flag(help: "Print machine-readable JSON.")
    var json = false
}

extension Subcommand {
    static let status = Subcommand(
        "status", abstract: "Show a replica's node id, version, clock, tables and peers.", options: StatusOptions.self
    ) { options, output in
        let replica = try Replica(path: options.db, create: false)
        let status = try replica.status()
        if options.json {
            try output.printJSON(status)
            try output.failOnSchemaRefusals(of: [(options.db, replica)])
            return
        }
        let millisecondsPart = Double(status.clock >> 16) / 1000
        let time = ISO8601DateFormatter.string(
            from: Date(timeIntervalSince1970: millisecondsPart), timeZone: TimeZone(identifier: "UTC")!,
            formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        print("node     \(status.node)", to: &output)
        print("version  \(status.version)", to: &output)
        print("clock    \(status.clockReading) (\(status.clock == 0 ? "no writes yet" : time))", to: &output)
        print("tables", to: &output)
        for table in status.tables {
            print(
                "  \(table.name)  policy \(table.policy)  rows \(table.rows)  tombstones \(table.tombstones)"
                    + (table.refused == nil ? "" : "  NOT SYNCING (schema changed)"), to: &output)
        }
        if status.tables.isEmpty { print("  (none; run `concord enable`)", to: &output) }
        if !status.parked.isEmpty {
            print("parked", to: &output)
            for row in status.parked { print("  \(row.table)/\(row.key)  \(row.reason)", to: &output) }
        }
        if !status.relayed.isEmpty {
            print("relayed (peers sync it, this schema lacks it; it shows once a migration adds it)", to: &output)
            for kept in status.relayed {
                let what = kept.whole ? "table" : "columns " + kept.columns.joined(separator: ", ")
                print("  \(kept.table)  \(what)  rows \(kept.rows)", to: &output)
            }
        }
        print("peers", to: &output)
        for peer in status.peers { print("  \(peer.node)  read up to version \(peer.version)", to: &output) }
        if status.peers.isEmpty { print("  (none yet)", to: &output) }
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
    }
}
