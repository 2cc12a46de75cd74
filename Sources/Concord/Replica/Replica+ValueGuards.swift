extension Replica {
    /// `table`'s triggers as the schema needs them now: union columns' guards walk arrays with the
    /// JSON function the app's schema does not hide (see ``JSONWalker``), or refuse what they cannot check.
    func captureTriggers(for table: SyncedTable, facts: TableInspector.CaptureFacts) throws -> CaptureTriggers {
        var triggers = CaptureTriggers(table: table, facts: facts)
        if table.merges.contains(.union) { triggers.walker = try JSONWalker.unhidden(in: database) }
        return triggers
    }

    /// Why `table`'s union columns cannot be guarded in the schema as it is now, or `nil`: the app's
    /// tables or views take both walkers' names (see ``JSONWalker``).
    func unguardableReason(of table: SyncedTable) throws -> (reason: String, fix: String)? {
        guard let column = zip(table.columns, table.merges).first(where: { $0.1 == .union })?.0,
            try JSONWalker.unhidden(in: database) == nil
        else { return nil }
        return JSONWalker.hiddenReason(union: column)
    }

    /// Makes `table`'s value guards again when they are not the ones the schema needs now — the app
    /// created a table or view that hides the JSON function they call, or dropped the one that hid the
    /// other — and returns whether it did. Nothing is captured by these triggers, so nothing is lost.
    func renewValueGuards(of table: SyncedTable) throws -> Bool {
        guard table.merges.contains(.union) else { return false }
        let wanted = try captureTriggers(for: table, facts: facts(of: table))
        let expected = wanted.valueGuardTriggers.map(CaptureTriggers.storedSQL)
        var stored: [String] = []
        for event in CaptureTriggers.valueGuardEvents {
            stored.append(
                try database.scalar(
                    "SELECT sql FROM main.sqlite_schema WHERE type = 'trigger' AND name = ?",
                    [.text(Metadata.trigger(table.id, event))])?.textValue ?? "")
        }
        // Bytes, not `String`s: those take canonically equivalent names for one.
        guard stored.map(SQLiteName.Key.init) != expected.map(SQLiteName.Key.init) else { return false }
        try database.execute(wanted.dropValueGuardsSQL + "\n" + wanted.valueGuardTriggers.joined(separator: "\n"))
        return true
    }

    /// Makes `table`'s in-place write guard (``CaptureTriggers/inPlaceWriteGuardSQL``) again when it does not
    /// cover every synced column — a file of an earlier layout, or the app dropped or replaced it — and
    /// returns whether it did.
    func renewInPlaceWriteGuard(of table: SyncedTable) throws -> Bool {
        guard try !columnsWritableInPlace(table).isEmpty else { return false }
        let triggers = try captureTriggers(for: table, facts: facts(of: table))
        try database.execute(triggers.dropInPlaceWriteGuardSQL + "\n" + triggers.inPlaceWriteGuardSQL)
        return true
    }

    /// The synced columns of `table` that its in-place write guard does not cover, in the table's order.
    /// (Names match as SQLite's do, but for ASCII case: a column the app renamed `TITLE` is still covered.)
    func columnsWritableInPlace(_ table: SyncedTable) throws -> [String] {
        let guarded = Set(
            try database.pragma("index_info", of: Metadata.inPlaceWriteGuard(table.id))
                .compactMap { $0.text("name").map(SQLiteName.folded) })
        return table.columns.filter { !guarded.contains(SQLiteName.folded($0)) }
    }
}
