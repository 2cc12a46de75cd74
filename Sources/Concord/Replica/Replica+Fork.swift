import Foundation

extension Replica {
    /// Copies this replica to `path` as a new device with a node id of its own.
    ///
    /// A database file copied by hand (a restored backup, a cloned device)
    /// would go on issuing stamps under the original's node id, and two
    /// different writes could then share a stamp. The copy keeps every register
    /// and everything it had read from its peers, but writes under
    /// `configuration`'s fresh node id from its first write on.
    ///
    /// ```swift
    /// let tablet = try phone.fork(to: "tablet.sqlite")
    /// ```
    public func fork(to path: String, configuration: Configuration? = nil) throws -> Replica {
        try foldLocalWrites()
        let configuration = configuration ?? self.configuration
        try database.execute("VACUUM INTO ?", [.text(path)])
        do {
            try Replica(path: path, configuration: configuration, create: false).adoptNodeID(configuration.makeNodeID())
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        return try Replica(path: path, configuration: configuration, create: false)
    }

    /// Makes this replica write under `node` from now on; stamps already stored keep their nodes.
    func adoptNodeID(_ node: NodeID) throws {
        guard node != nodeID else {
            throw ReplicaError.sharedNodeID(node)
        }
        try database.transaction {
            let index = try self.index(of: node)
            try database.execute("UPDATE \(Metadata.state) SET node = ?", [.integer(index)])
        }
    }
}
