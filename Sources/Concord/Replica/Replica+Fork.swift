import Foundation

extension Replica {
    /// Copies this replica to `path` as a new device with a node id of its own.
    ///
    /// The copy keeps every register and everything it had read from its
    /// peers, and writes under a fresh node id (from `configuration`'s
    /// `makeNodeID`) from its first write on. Copying the file any other way
    /// does the same: the copy notices it is not the file its metadata was
    /// written in when it is first opened (see `checkIdentity()`).
    ///
    /// ```swift
    /// let tablet = try phone.fork(to: "tablet.sqlite")
    /// ```
    public func fork(to path: String, configuration: Configuration? = nil) throws -> Replica {
        try foldLocalWrites()
        try database.execute("VACUUM INTO ?", [.text(path)])
        do {
            let copy = try Replica(path: path, configuration: configuration ?? self.configuration, create: false)
            // A replica in memory records no file, so the copy cannot tell it is one: it is told.
            if copy.nodeID == nodeID { try copy.adoptNewNodeID() }
            return copy
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }
}
