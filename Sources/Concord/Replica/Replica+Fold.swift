extension Replica {
    /// Stamps the writes the capture log holds and folds them into the registers.
    ///
    /// Every Concord operation that reads registers (export, apply, check,
    /// status) calls this first, in its own transaction, so the log never
    /// outlives the next sync. Writes are folded in the order they were made,
    /// each stamped with the hybrid-logical-clock reading for the time the
    /// trigger recorded — the same stamp it would have had if the trigger had
    /// computed it, at a fraction of the cost on the app's write path.
    ///
    /// Returns how many writes were folded.
    @discardableResult
    public func foldLocalWrites() throws -> Int {
        try database.transaction {
            guard try database.scalar("SELECT EXISTS (SELECT 1 FROM \(Metadata.log))") == .integer(1) else { return 0 }
            var clock = try self.clock
            let version = try self.version + 1
            let writes = try database.prepare("SELECT tbl, pk, op, at, mask FROM \(Metadata.log) ORDER BY seq")
            var count = 0
            // Rows re-inserted after a delete must lose their hidden copy, but only if
            // no later delete in the log made a new one: decide on the final liveness.
            var inserted: [(RegisterStore, SQLiteValue)] = []
            var alive: [String: [SQLiteValue: Bool]] = [:]
            while try writes.step() {
                guard let name = tableNames[writes.int64(0)], let table = syncedTables[name],
                      let operation = Metadata.Operation(rawValue: writes.int64(2)) else { continue }
                let key = writes.column(1)
                let stamp = Stamp(hlc: clock.tick(physical: writes.int64(3)), node: nodeID)
                let store = store(table)
                let write: LocalWrite
                switch operation {
                case .insert: write = .insert
                case .delete: write = .delete
                case .update: write = .update(changed: Self.changedColumns(mask: writes.int64(4), count: table.columns.count))
                }
                let registers = write.applied(to: try store.loadStamps(key), columnCount: table.columns.count,
                                              stamp: stamp, policy: table.policy)
                try store.writeMetadata(key, registers, version: version)
                if operation == .insert { inserted.append((store, key)) }
                alive[name, default: [:]][key] = registers.liveness.isAlive
                count += 1
            }
            for (store, key) in inserted where alive[store.table.name]?[key] == true {
                try store.deleteHidden(key)
            }
            try database.execute("DELETE FROM \(Metadata.log)")
            try storeClock(clock, version: version)
            return count
        }
    }

    /// Decodes an update's change mask; columns past ``Metadata/maskBits`` share its last bit.
    static func changedColumns(mask: Int64, count: Int) -> [Bool] {
        (0..<count).map { mask & (1 << Int64(min($0, Metadata.maskBits))) != 0 }
    }
}
