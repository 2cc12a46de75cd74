import Concord
import Foundation

/// The schema a device has at each release of a workload, as the reference model is given it: read
/// from a scratch database taken through the same migrations the devices run.
///
/// The oracle works over the newest schema; a device still on an older
/// release is held to the oracle's projection onto its own schema, which is
/// the same model over that release's declarations. Reading them from the
/// migrations themselves, rather than from the device, keeps the check
/// independent of what the engine made of the device's schema. Building them
/// also proves the releases sound before anything runs: every migration runs,
/// and each release keeps every earlier table with the same key and policy
/// and its columns, in order, with their merges, only appending — the additive
/// changes Concord syncs.
///
/// A release may also make a change Concord refuses (a UNIQUE index besides
/// the key): the table stops syncing on the devices that run it and their
/// writes of it wait in the capture log until a later release undoes the
/// change (the newest may refuse nothing). Such a table may have no foreign
/// key to or from another synced table, so that an app statement writes
/// refused tables only or none (``refused(under:)``).
///
/// ```swift
/// let schemas = try VersionSchemas(of: workload)
/// let model = ReferenceModel(tables: schemas[2].tables, foreignKeys: schemas[2].foreignKeys, ledger: ledger)
/// ```
struct VersionSchemas {
    /// By release: `schemas[0]` is version 1's.
    let schemas: [OracleSchema]
    /// By release: the tables Concord refuses to sync under it (a destructive change a later release undoes).
    let refusedTables: [Set<String>]

    /// Takes a scratch in-memory database through `workload`'s releases, reading the schema of each.
    ///
    /// - Throws: ``ScenarioError`` naming the release whose schema or migration fails or is not additive.
    init(of workload: Workload) throws {
        let clock = ManualClock(unixMilliseconds: Simulation.start)
        let replica = try Replica.inMemory(
            configuration: Replica.Configuration(
                clock: clock, merges: Workload.mergeFunctions,
                makeNodeID: { NodeID(bytes: Array(repeating: 1, count: 16))! }))
        do { try workload.install(on: replica) } catch {
            throw ScenarioError("version 1's schema cannot be set up: \(error)")
        }
        var schemas = [try OracleSchema(of: replica)]
        var refused: [Set<String>] = [[]]
        for version in stride(from: 2, through: workload.lastVersion, by: 1) {
            do {
                try workload.upgrade(replica, from: version - 1, to: version)
                _ = try replica.foldLocalWrites()
            } catch {
                throw ScenarioError("version \(version)'s migration fails: \(error)")
            }
            if let refusal = replica.schemaRefusals.first, version == workload.lastVersion {
                throw ScenarioError(
                    "version \(version)'s migration is not additive: \(refusal); the newest release must undo "
                        + "any change Concord refuses")
            }
            let schema = try OracleSchema(of: replica)
            try Self.requireAdditive(from: schemas[schemas.count - 1], to: schema, version: version)
            let names = Set(replica.schemaRefusals.compactMap(\.refusedTable))
            if let link = schema.foreignKeys.first(where: { names.contains($0.child) != names.contains($0.parent) }) {
                let (refusedEnd, otherEnd) =
                    names.contains(link.child) ? (link.child, link.parent) : (link.parent, link.child)
                throw ScenarioError(
                    "version \(version) refuses table '\(refusedEnd)', which a foreign key ties to '\(otherEnd)'; "
                        + "a release may refuse only tables no foreign key ties to a table that still syncs")
            }
            schemas.append(schema)
            refused.append(names)
        }
        self.schemas = schemas
        refusedTables = refused
    }

    /// Whether any release refuses a table.
    var refusesAny: Bool { refusedTables.contains { !$0.isEmpty } }

    /// The tables release `version` refuses (clamped to the releases there are).
    func refused(under version: Int) -> Set<String> {
        refusedTables[min(max(version, 1), refusedTables.count) - 1]
    }

    /// The schema of `version` (clamped to the releases there are).
    subscript(version: Int) -> OracleSchema { schemas[min(max(version, 1), schemas.count) - 1] }

    /// The newest release's schema.
    var newest: OracleSchema { schemas[schemas.count - 1] }

    /// Throws unless `new` keeps each table of `old` with its key, policy, and columns and merges as a
    /// prefix, and adds no column to a table synced by row.
    ///
    /// A register's column is its position, and the ledger records the positions in the writing
    /// device's schema, so the positions must mean the same in every release. Under the row policy an
    /// older device's edit carries the columns it lacks as they stood in what it kept, which its app
    /// never saw: the app-side ledger cannot tell those values, so the oracle cannot follow them.
    private static func requireAdditive(from old: OracleSchema, to new: OracleSchema, version: Int) throws {
        for table in old.tables {
            guard let next = new.tables.first(where: { $0.name == table.name }) else {
                throw ScenarioError("version \(version) no longer syncs table '\(table.name)'; a release only adds")
            }
            guard next.key == table.key, next.policy == table.policy,
                Array(next.columns.prefix(table.columns.count)) == table.columns,
                Array(next.merges.prefix(table.merges.count)) == table.merges
            else {
                throw ScenarioError(
                    "version \(version) changes table '\(table.name)' from \(table.columns) to \(next.columns); "
                        + "a release only appends columns (ALTER TABLE ADD COLUMN) and declares merges on new ones")
            }
            guard table.policy == .column || next.columns.count == table.columns.count else {
                throw ScenarioError(
                    "version \(version) adds columns to table '\(table.name)', which syncs by row; the simulator's "
                        + "oracle cannot tell what an older device's edit of such a row carries for them, so a "
                        + "scenario adds columns only to tables synced by column")
            }
        }
    }
}

extension ReplicaError {
    /// The table a refusal for a destructive schema change names (``Replica/schemaRefusals``).
    fileprivate var refusedTable: String? {
        switch self {
        case .schemaChanged(let table, _, _), .tiedToRefusedTable(let table, _): table
        default: nil
        }
    }
}
