import ConcordCore

/// The node ids a replica's registers refer to, by their index in `_concord_nodes`, cached both ways.
///
/// Registers store a stamp's node as a small integer; every read and write of
/// a register turns one into the other. The replica and each of its register
/// stores share one directory, so a node registered while merging one table
/// is known to all, and a rollback (which may undo new rows of the node
/// table) clears the cache for everyone with ``forget()``.
///
/// ```swift
/// let nodes = NodeDirectory(database: database)
/// let index = try nodes.indexRegistering(peer)   // adds the peer on first sight
/// try nodes.node(at: index) == peer
/// ```
final class NodeDirectory {
    let database: Database
    private var nodesByIndex: [Int64: NodeID] = [:]
    private var indexesByNode: [NodeID: Int64] = [:]
    /// The node `indexRegistering(_:)` last answered for: most stamps in a row or a changeset share one.
    private var lastIndexed: (node: NodeID, index: Int64)?

    init(database: Database) { self.database = database }

    /// The node id stored under `index` (0 means "no write").
    func node(at index: Int64) throws -> NodeID? {
        if index == 0 { return nil }
        if let node = nodesByIndex[index] { return node }
        guard
            let bytes = try database.scalar("SELECT id FROM \(Metadata.nodes) WHERE idx = ?", [.integer(index)])?
                .blobValue, let node = NodeID(bytes: bytes)
        else { return nil }
        nodesByIndex[index] = node
        indexesByNode[node] = index
        return node
    }

    /// The index of `node` in `_concord_nodes`, adding the node on first sight.
    func indexRegistering(_ node: NodeID) throws -> Int64 {
        if let last = lastIndexed, last.node == node { return last.index }
        if let index = indexesByNode[node] {
            lastIndexed = (node, index)
            return index
        }
        let index: Int64
        if let found = try database.scalar("SELECT idx FROM \(Metadata.nodes) WHERE id = ?", [.blob(node.bytes)])?
            .integerValue
        {
            index = found
        } else {
            try database.execute("INSERT INTO \(Metadata.nodes) (id) VALUES (?)", [.blob(node.bytes)])
            index =
                try database.scalar("SELECT idx FROM \(Metadata.nodes) WHERE id = ?", [.blob(node.bytes)])?
                .integerValue ?? 0
        }
        nodesByIndex[index] = node
        indexesByNode[node] = index
        return index
    }

    /// Forgets cached node indexes (after a rollback may have undone new ones).
    func forget() {
        lastIndexed = nil
        nodesByIndex = [:]
        indexesByNode = [:]
    }
}
