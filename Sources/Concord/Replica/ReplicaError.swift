/// What can go wrong when using a replica, each case saying what, where and what to do.
///
/// The cases carry what an app needs to react; ``description`` is a
/// sentence for a person, ending with the fix when there is one.
///
/// ```swift
/// do {
///     try replica.enableSync(on: "reminders")
/// } catch ReplicaError.tableNotFound(let name) {
///     print("create \(name) first")
/// }
/// ```
public enum ReplicaError: Error, Equatable, CustomStringConvertible {
    /// The file has no Concord metadata.
    case notAReplica(path: String)
    /// The database file has more than one name (hard links), which SQLite cannot keep consistent.
    case hardLinked(path: String, links: Int)
    /// The metadata has a layout this build neither reads nor upgrades.
    case unsupportedLayout(found: Int64, supported: Int64)
    /// The SQLite library the process links is older than the oldest Concord works with.
    case unsupportedSQLite(found: String, oldest: String)
    /// No table by that name.
    case tableNotFound(String)
    /// The table cannot be synced.
    case unsupportedTable(table: String, reason: String, fix: String)
    /// Sync is already enabled on the table with another declaration.
    case alreadyEnabled(table: String, existing: String, requested: String)
    /// A changeset names a table this replica does not sync.
    case tableNotSynced(table: String)
    /// A changeset's declaration of a table disagrees with this replica's.
    case schemaMismatch(table: String, detail: String)
    /// A changeset's policy for a table differs from this replica's.
    case policyMismatch(table: String, local: String, remote: String)
    /// A column's merge cannot be declared as asked.
    case invalidMerge(table: String, column: String, reason: String)
    /// A column uses a user-defined merge this replica has not registered.
    case unregisteredMerge(table: String, column: String, name: String)
    /// A copy of a replica was to keep the original's node id.
    case sharedNodeID(NodeID)
    /// A row's key is not TEXT or BLOB.
    case invalidKey(table: String, key: String)
    /// The database's text encoding is not UTF-8.
    case unsupportedEncoding(String)
    /// Concord's own metadata is not as it wrote it.
    case damagedMetadata(String)
    /// The physical clock reads later than a stamp can hold (``HybridLogicalClock/maxPhysical``).
    case clockOutOfRange(unixMilliseconds: Int64)
    /// A version asked for is negative.
    case invalidVersion(Int64)
    /// Changes were to be exported inside a transaction that is still open on the replica's connection.
    case exportInsideTransaction
    /// A changeset read twice (to check it, then to merge it) was not the same the second time.
    case changesetChanged
    /// A synced table's schema changed in a way Concord does not sync.
    case schemaChanged(table: String, change: String, fix: String)
    /// A synced table waits because a foreign key ties it, directly or through other synced tables, to one
    /// whose schema changed in a way Concord does not sync (named second).
    case tiedToRefusedTable(table: String, refused: String)
    /// Sync was to be disabled on a table that does not sync.
    case notSynced(table: String)
    /// Sync was to be disabled on a table that another synced table references.
    case referencedBySyncedTable(table: String, child: String)
    /// A table asked about by name does not sync here.
    case notASyncedTable(String)
    /// No entry with that id in the conflict log.
    case unknownConflict(id: Int64)
    /// A conflict's value cannot be written back now.
    case conflictNotRestorable(id: Int64, reason: String)

    /// What went wrong and what to do about it, in a sentence the CLI prints as is.
    public var description: String {
        switch self {
        case .notAReplica(let path):
            return "'\(path)' is not a Concord replica (it has no Concord metadata); "
                + "run `concord enable \(path) --table NAME` first. If it is a backup from before sync was enabled, "
                + "restored over a replica, enabling makes its rows new writes that replace every device's newer "
                + "edits: copy a peer's file over it instead (the copy takes a node id of its own), or empty its "
                + "synced tables before enabling and sync to fill them"
        case .hardLinked(let path, let links):
            return "'\(path)' has \(links) names (hard links): SQLite keeps a database's journal or write-ahead log "
                + "beside the name it was opened by, so a connection that opens another name misses commits made "
                + "through this one, and they are lost; give the file one name (remove the other links) and open "
                + "it by that name; nothing was changed"
        case .unsupportedLayout(let found, let supported):
            return "the replica's metadata has layout \(found), but this build reads layout \(supported)"
                + (found > supported
                    ? " and every earlier one; open it with the newer Concord that wrote it; nothing was changed"
                    : "; this is not a layout any Concord wrote, so the metadata is damaged; nothing was changed")
        case .tableNotFound(let name):
            return "there is no table named '\(name)'; create it first or check the spelling"
        case .unsupportedTable(let table, let reason, let fix):
            return "cannot sync table '\(table)': \(reason). To fix: \(fix)"
        case .referencedBySyncedTable(let table, let child):
            return "cannot stop syncing table '\(table)': synced table '\(child)' references it, and whether its rows "
                + "show depends on this table's. To fix: disable sync on '\(child)' first"
        case .alreadyEnabled(let table, let existing, let requested):
            // The declaration starts with its policy; the merges of columns not `lww` follow it.
            let samePolicy = existing.prefix { $0 != "," } == requested.prefix { $0 != "," }
            return "table '\(table)' already syncs as \(existing), not \(requested), and goes on syncing as "
                + "\(existing); nothing was changed. Every replica of a table must use the same declaration: "
                + (samePolicy
                    ? "keep each column's merge, and to merge a column's values another way, add a new column "
                        + "declared with that merge and copy the values into it"
                    : "enable it as \(existing)")
        case .tableNotSynced(let table):
            return "the changeset has changes to table '\(table)', which this replica does not sync; "
                + "enable it first (`concord enable DB --table \(table)`); nothing was applied"
        case .schemaMismatch(let table, let detail):
            return "the changeset's table '\(table)' does not match this replica's: \(detail); nothing was applied"
        case .policyMismatch(let table, let local, let remote):
            return "the changeset merges table '\(table)' with \(remote), but this replica declares \(local); "
                + "every replica must declare the same policies; nothing was applied. To change a declaration, "
                + "disable the table on every device and enable it again with one declaration "
                + "(`concord disable DB --table \(table)`, then `concord enable DB --table \(table)[:POLICY] "
                + "[--merge \(table).COLUMN=KIND]`)"
        case .invalidMerge(let table, let column, let reason):
            return "cannot merge column '\(column)' of table '\(table)' that way: \(reason)"
        case .unregisteredMerge(let table, let column, let name):
            return
                "column '\(column)' of table '\(table)' merges with '\(name)', which this replica has not registered; "
                + "pass a MergeFunction named '\(name)' in Replica.Configuration(merges:) (the concord command "
                + "registers none: sync this table through an app that does)"
        case .sharedNodeID(let node):
            return
                "this replica needs a node id of its own (it is a copy, or it was rolled back), but the configuration's "
                + "makeNodeID returned its current id \(node), so two writes could share a stamp; "
                + "give Replica.Configuration a makeNodeID that returns a fresh id each time"
        case .invalidKey(let table, let key):
            return "the changeset has a row of '\(table)' whose key \(key) is not TEXT or BLOB; nothing was applied"
        case .invalidVersion(let version):
            return "version \(version) is negative; versions start at 0 (ask for changes since 0 to get everything)"
        case .exportInsideTransaction:
            return "cannot export changes inside a transaction that is still open on the replica's connection: "
                + "a peer could hold them after they are rolled back, and later writes would reuse their "
                + "versions; commit or roll back first, then export"
        case .changesetChanged:
            return "the changeset changed while it was being applied (was its file replaced or written to?); "
                + "nothing was applied; apply it again once nothing else writes the file"
        case .unsupportedSQLite(let found, let oldest):
            return "this process links SQLite \(found), and Concord needs \(oldest) or later (its metadata uses "
                + "RETURNING, ALTER TABLE … DROP COLUMN and sqlite_schema); the replica was not opened. Link a newer SQLite, "
                + "such as a build of your own or one a package ships"
        case .unsupportedEncoding(let encoding):
            return "the database stores text as \(encoding), but a replica carries text byte for byte as UTF-8, "
                + "which \(encoding) cannot hold exactly; use a database created with the default encoding (UTF-8)"
        case .clockOutOfRange(let now):
            return "this device's clock reads \(now) ms after 1970, past the year 4000, the latest clock Concord "
                + "stamps under; nothing was changed. Set the clock right, then try again"
        case .damagedMetadata(let detail):
            return "Concord's metadata in this database is damaged: \(detail); restore the file from a backup, "
                + "or copy the app's tables into a new database and enable sync there"
        case .schemaChanged(let table, let change, let fix):
            return "table '\(table)' changed since sync was enabled: \(change); Concord stopped syncing this table "
                + "(every table no foreign key ties to it syncs, and its writes are kept until the change is undone). "
                + "To fix: \(fix)"
        case .tiedToRefusedTable(let table, let refused):
            return "table '\(table)' is tied by foreign keys to table '\(refused)', which stopped syncing for a change "
                + "to its schema; Concord stopped syncing this table too, so that no row shows without the rows its "
                + "keys name (its writes are kept, and sync once '\(refused)' does). To fix: undo the change to "
                + "'\(refused)' (see its own refusal)"
        case .notSynced(let table):
            return "table '\(table)' does not sync in this replica, so there is nothing to disable; "
                + "`concord status DB` lists the tables that do"
        case .notASyncedTable(let table):
            return "table '\(table)' does not sync in this replica; `concord status DB` lists the tables that do"
        case .unknownConflict(let id):
            return "this replica's conflict log has no conflict \(id) (it was restored, pruned by the retention, "
                + "or recorded on another device: each device keeps its own); "
                + "`concord conflicts DB` lists the ones it has; nothing was changed"
        case .conflictNotRestorable(let id, let reason):
            return "conflict \(id) cannot be restored now: \(reason); nothing was changed"
        }
    }
}
