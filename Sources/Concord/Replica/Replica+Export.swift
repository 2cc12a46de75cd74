extension Replica {
    /// Everything this replica stored after `version`: its own writes and what it merged.
    ///
    /// A peer remembers the ``Changeset/upTo`` of the last changeset it read
    /// from this replica and asks for the changes since then next time.
    /// Rows come in the order they were stored; each carries all its registers,
    /// so the receiver can merge it whatever it has seen before.
    public func changes(since version: Int64 = 0) throws -> Changeset {
        var rows: [RowChange] = []
        let (tables, upTo) = try exportChanges(since: version) { rows.append($0) }
        return Changeset(source: nodeID, since: version, upTo: upTo, tables: tables, rows: rows)
    }

    /// Streams the changes after `version` to `body`, table by table, and
    /// returns the table declarations and the version they reach.
    @discardableResult
    public func exportChanges(since version: Int64, _ body: (RowChange) throws -> Void) throws -> ([TableSchema], Int64) {
        try database.readTransaction {
            let upTo = try self.version
            for table in tables {
                try RegisterStore(table: table, replica: self).forEachRow(since: version) { key, row in
                    try body(RowChange(table: table.name, key: key, registers: row.registers))
                }
            }
            return (tables.map(\.schema), upTo)
        }
    }
}
