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
        "status",
        abstract: "Show a replica's node id, version, clock, tables, peers and what each has not read yet.",
        options: StatusOptions.self
    ) { options, output in
        let replica = try Replica(path: options.db, create: false)
        let status = try replica.status()
        if options.json {
            try output.printJSON(status)
            try output.failOnSchemaRefusals(of: [(options.db, replica)])
            return
        }
        func utc(_ milliseconds: Int64) -> String {
            ISO8601DateFormatter.string(
                from: Date(timeIntervalSince1970: Double(milliseconds) / 1000), timeZone: TimeZone(identifier: "UTC")!,
                formatOptions: [.withInternetDateTime, .withFractionalSeconds])
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
                    + (table.merges.map { "  merges " + $0.joined(separator: ", ") } ?? "")
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
        for peer in status.peers {
            print("  \(peer.node)", to: &output)
            let fromPeer =
                peer.version == 0 && peer.lastReadFromPeer == nil
                ? "never"
                : "up to its version \(peer.version)" + (peer.lastReadFromPeer.map { ", last \(utc($0))" } ?? "")
            print("    read from it  \(fromPeer)", to: &output)
            let byPeer =
                peer.peerReadUpTo.map { version in
                    "up to version \(version)" + (peer.lastReadByPeer.map { ", last \(utc($0))" } ?? "")
                        + "; \(peer.unread ?? 0) local change\(peer.unread == 1 ? "" : "s") not read yet"
                } ?? "unknown (no delivery recorded; `concord sync` records one)"
            print("    it has read   \(byPeer)", to: &output)
        }
        if status.peers.isEmpty { print("  (none yet)", to: &output) }
        print(
            "capture log  \(status.captureBacklog) write\(status.captureBacklog == 1 ? "" : "s") waiting to be stamped "
                + "(stamped now)"
                + (status.captureHeld > 0 ? "; \(status.captureHeld) held for tables that do not sync now" : ""),
            to: &output)
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
    }
}
