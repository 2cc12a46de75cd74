@_spi(Testing) import ConcordCore

extension Replica {
    /// Gives the replica a new node id when its file is a copy of another replica's file.
    ///
    /// A replica's identity belongs to its file. Copying a database — `cp`,
    /// a restored backup, a cloned device, `VACUUM INTO`, SQLite's backup
    /// API — copies its node id along with everything else, and two files
    /// writing under one node id would issue the same stamps for different
    /// writes and reuse each other's versions, so peers would skip writes of
    /// one of them forever. The metadata records the identity of the file it
    /// was written in (device and inode, ``Database/fileIdentity``); when the
    /// file it is read from differs, this is a copy, and it takes a new node
    /// id before it stamps anything. The original keeps its id.
    ///
    /// Runs when a replica is opened and before every fold (the only place
    /// local writes are stamped), inside the caller's transaction if there is one.
    ///
    /// ```swift
    /// // cp phone.sqlite tablet.sqlite
    /// let tablet = try Replica(path: "tablet.sqlite")   // a node id of its own
    /// ```
    ///
    /// A copy holding captured writes not folded yet keeps, in the same transaction, the credit that gives
    /// their counter changes to the original when they are folded (see ``CopyCredit``).
    ///
    /// A file already recorded as this one may have been settled by another process after this one read
    /// its node id (two processes opening a fresh copy at once): the node id is read again then, or this
    /// process would go on exporting the copy's writes under the original's id, and a peer would record
    /// having read the original further than it wrote, skipping its later writes for good.
    func checkIdentity() throws {
        guard let current = fileIdentity else { return }
        let state = try database.query("SELECT file, node FROM \(Metadata.state)").first
        if state?[0].textValue == current {
            if let index = state?[1].integerValue, try node(at: index) != nodeID { try refreshNodeID() }
            return
        }
        try database.transaction {
            // Another process may have settled it meanwhile: decide under the write lock.
            let stored = try storedFileIdentity()
            guard stored != current else { return }
            if stored != nil, configuration.interceptor?.detectsCopies ?? true {
                // The node the file writes under, not one an attempt rolled back since took in memory.
                try refreshNodeID()
                // Log positions start at 1: 0 is an empty log.
                let last = try captureLogEnd()
                if configuration.interceptor?.creditsCopiedWrites ?? true, last > 0 {
                    try CopyCredits.record(CopyCredit(original: nodeID, hlc: try clock.last, upTo: last), in: self)
                }
                try adoptNewNodeID()
            }
            try database.execute("UPDATE \(Metadata.state) SET file = ?", [.text(current)])
        }
        try refreshNodeID()
    }

    private func storedFileIdentity() throws -> String? {
        try database.scalar("SELECT file FROM \(Metadata.state)")?.textValue
    }

    /// Makes this replica write under a fresh node id from now on; stamps already stored keep their nodes.
    ///
    /// Peers know how far they have read each node id, so under the new one
    /// they read this replica from its start: nothing it holds can be skipped.
    func adoptNewNodeID() throws {
        let node = configuration.makeNodeID()
        guard node != nodeID else { throw ReplicaError.sharedNodeID(node) }
        try database.transaction {
            let index = try indexRegistering(node)
            try database.execute("UPDATE \(Metadata.state) SET node = ?", [.integer(index)])
        }
        nodeID = node
    }

    /// Takes a new node id when a peer shows this replica was rolled back: the peer
    /// holds a stamp of this node newer than any this replica remembers issuing.
    ///
    /// A backup restored over the same file keeps the file's identity, so
    /// ``checkIdentity()`` cannot see it; its peers can. Stamps are persisted
    /// with the clock before they leave a replica, so a stamp of its own that
    /// it does not remember means it lost history, and writing on under the
    /// same id would reuse stamps its peers already hold.
    func adoptNewNodeIDIfRolledBack(newestOwnStamp: HLCTimestamp?) throws {
        guard let newestOwnStamp, newestOwnStamp > (try clock.last) else { return }
        try adoptNewNodeID()
    }

    /// The first local version a transaction may issue: above every version issued before, and
    /// above the physical time, so that a replica restored from an older copy of its file does
    /// not issue again versions its peers have already read (see DESIGN.md, "Copies of a replica").
    ///
    /// Versions are local and only compared with versions of the same replica; tying them to the
    /// physical clock costs nothing and makes "no version number is ever reused" hold across a
    /// restore for as long as the clock does not run backwards.
    ///
    /// The floor is moved up by an amount below 2^16 (under a millisecond's worth) drawn from the clock's
    /// reading, the floor and the node id: two histories of one file that go back to the same version (a
    /// backup restored over it while its clock is behind both) then hand out different versions, which a
    /// peer's read position tells apart (``ReadPositions``).
    func versionFloor(after stored: Int64) throws -> Int64 {
        let now = try physicalTime()
        let floor = max(stored, Int64(clamping: HybridLogicalClock.floor(now)) - 1)
        var hash = FNV1a()
        for value in [now, floor] { hash.add(withUnsafeBytes(of: value.littleEndian, Array.init)) }
        hash.add(nodeID.bytes)
        return floor + Int64(hash.value & 0xFFFF)
    }

    /// The physical clock's reading, in Unix milliseconds; refused past ``latestClockReading``.
    ///
    /// Why: stamps and versions count up from the clock's reading, one per write, within the 63 bits SQLite
    /// stores. A reading near the last one a stamp holds (the year 6429, ``HybridLogicalClock/maxPhysical``)
    /// left them too little room: a replica that once folded under such a clock, set right since, trapped
    /// on an overflow at a later fold of a few thousand writes, and could never fold again. A clock that far
    /// off is set wrong, so nothing is stamped until it is set right.
    ///
    /// ```swift
    /// let now = try replica.physicalTime()   // throws ReplicaError.clockOutOfRange in the year 5000
    /// ```
    func physicalTime() throws -> Int64 {
        let now = configuration.clock.unixMilliseconds()
        guard now <= Self.latestClockReading else { throw ReplicaError.clockOutOfRange(unixMilliseconds: now) }
        return now
    }

    /// The latest clock reading a replica stamps under: the start of the year 4000 (UTC), in Unix ms.
    /// Versions issued from it stay below 2^62, which leaves 2^62 writes of room before SQLite's 2^63.
    public static let latestClockReading: Int64 = 64_060_588_800_000
}
