/// What can go wrong when using a replica, each case saying what, where and what to do.
public enum ReplicaError: Error, Equatable, CustomStringConvertible {
    /// The file has no Concord metadata.
    case notAReplica(path: String)
    /// The metadata has a layout this build neither reads nor upgrades.
    case unsupportedLayout(found: Int64, supported: Int64)
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

    public var description: String {
        switch self {
        case .notAReplica(let path):
            return "'\(path)' is not a Concord replica (it has no Concord metadata); "
                + "run `concord enable \(path) --table NAME` first"
        case .unsupportedLayout(let found, let supported):
            return "the replica's metadata has layout \(found), but this build reads layout \(supported)"
                + (found > supported ? "; use a newer Concord"
                   : " (and upgrades layout \(Metadata.upgradableLayout)); export its changes with the Concord that made it "
                     + "and import them into a new replica")
        case .tableNotFound(let name):
            return "there is no table named '\(name)'; create it first or check the spelling"
        case .unsupportedTable(let table, let reason, let fix):
            return "cannot sync table '\(table)': \(reason). To fix: \(fix)"
        case .alreadyEnabled(let table, let existing, let requested):
            return "table '\(table)' already syncs as \(existing), not \(requested); "
                + "every replica of a table must use the same declaration"
        case .tableNotSynced(let table):
            return "the changeset has changes to table '\(table)', which this replica does not sync; "
                + "enable it first (`concord enable DB --table \(table)`); nothing was applied"
        case .schemaMismatch(let table, let detail):
            return "the changeset's table '\(table)' does not match this replica's: \(detail); nothing was applied"
        case .policyMismatch(let table, let local, let remote):
            return "the changeset merges table '\(table)' with \(remote), but this replica declares \(local); "
                + "every replica must declare the same policies; nothing was applied"
        case .invalidMerge(let table, let column, let reason):
            return "cannot merge column '\(column)' of table '\(table)' that way: \(reason)"
        case .unregisteredMerge(let table, let column, let name):
            return "column '\(column)' of table '\(table)' merges with '\(name)', which this replica has not registered; "
                + "pass a MergeFunction named '\(name)' in Replica.Configuration(merges:)"
        case .sharedNodeID(let node):
            return "the copy would write under the original's node id \(node), so two writes could share a stamp; "
                + "give the copy a configuration whose makeNodeID returns a fresh id"
        case .invalidKey(let table, let key):
            return "the changeset has a row of '\(table)' whose key \(key) is not TEXT or BLOB; nothing was applied"
        }
    }
}
