import ConcordCore

extension ChangesetMutator {
    private static let modelKinds: [(kind: Kind, weight: UInt64)] = [
        (.duplicateRow, 2), (.key, 3), (.value, 4), (.causalLength, 3), (.stamp, 4), (.contributions, 3),
        (.versionRange, 2), (.source, 2), (.tableSchema, 3), (.seen, 2),
    ]

    /// Makes one edit of a decoded changeset that the encoder still accepts, and returns its kind.
    ///
    /// Edits that need rows fall back to a version-range edit when there are none.
    func editModel(_ changeset: inout Changeset, using source: inout ChoiceSource) -> Kind {
        let kind = editModelOnce(&changeset, using: &source)
        Self.keepSeenEncodable(&changeset)
        return kind
    }

    private func editModelOnce(_ changeset: inout Changeset, using source: inout ChoiceSource) -> Kind {
        let kind = Self.modelKinds[source.index(weights: Self.modelKinds.map(\.weight))].kind
        if !changeset.rows.isEmpty {
            let r = source.offset(below: changeset.rows.count)
            switch kind {
            case .duplicateRow:
                var copy = changeset.rows[r]
                if source.bool(), let stamp = copy.registers.liveness.stamp {
                    // The same row again with a neighbouring stamp: a conflict inside one changeset.
                    copy.registers.liveness.stamp = Stamp(
                        hlc: HLCTimestamp(rawValue: stamp.hlc.rawValue &+ 1),
                        node: stamp.node)
                }
                changeset.rows.insert(copy, at: source.offset(below: changeset.rows.count + 1))
                return kind
            case .key:
                let keys = changeset.rows.map(\.key) + HostileValues.values.filter { !$0.isNull }
                changeset.rows[r].key = source.pick(keys)
                return kind
            case .value:
                editValue(&changeset.rows[r], using: &source)
                return kind
            case .causalLength:
                editCausalLength(ofRow: r, in: &changeset, using: &source)
                return kind
            case .stamp:
                editStamp(&changeset.rows[r], using: &source)
                return kind
            case .contributions:
                if editContributions(&changeset, using: &source) { return kind }
            case .tableSchema:
                if editSchema(&changeset, using: &source) { return kind }
            case .seen:
                forgeSeen(&changeset, row: r, using: &source)
                return kind
            default:
                break
            }
        }
        if kind == .source {
            changeset.source = source.pick(nodes)
            return .source
        }
        editVersionRange(&changeset, using: &source)
        return .versionRange
    }

    /// Forges what row `r`'s writes saw: unknown, nothing, everything below each register, a clock of 0,
    /// or the stamp of another register in the changeset (kept only where it is not above the register).
    private func forgeSeen(_ changeset: inout Changeset, row r: Int, using source: inout ChoiceSource) {
        let registers = changeset.rows[r].registers.columns
        let others = changeset.rows.flatMap { $0.registers.columns.compactMap { $0?.stamp } }
        switch source.choose(upTo: 3) {
        case 0: changeset.rows[r].seen = nil
        case 1: changeset.rows[r].seen = Array(repeating: nil, count: registers.count)
        case 2: changeset.rows[r].seen = registers.map { $0?.stamp }
        default:
            changeset.rows[r].seen = registers.map { register in
                guard register != nil, source.bool() else { return nil }
                return source.bool()
                    ? Stamp(hlc: HLCTimestamp(rawValue: 0), node: source.pick(nodes)) : source.pick(others)
            }
        }
    }

    /// Drops the seen stamps that other edits left the encoder would refuse (on a register that is gone,
    /// above one moved down, on a column whose merge changed), so the edit reaches the replica.
    private static func keepSeenEncodable(_ changeset: inout Changeset) {
        let merges = Dictionary(changeset.tables.map { ($0.name, $0.merges) }, uniquingKeysWith: { a, _ in a })
        for r in changeset.rows.indices {
            guard let seen = changeset.rows[r].seen else { continue }
            let columns = changeset.rows[r].registers.columns
            guard let tableMerges = merges[changeset.rows[r].table], seen.count == columns.count,
                tableMerges.count == columns.count
            else {
                changeset.rows[r].seen = nil
                continue
            }
            changeset.rows[r].seen = seen.indices.map { c in
                guard let entry = seen[c], let register = columns[c], tableMerges[c] == .lww, entry <= register.stamp
                else { return nil }
                return entry
            }
        }
    }

    /// Moves the changeset's version range to an edge: empty, huge, past its own end.
    private func editVersionRange(_ changeset: inout Changeset, using source: inout ChoiceSource) {
        let (since, upTo) = (changeset.since, changeset.upTo)
        let ranges: [(Int64, Int64)] = [
            (0, 0), (0, .max), (.max, .max), (upTo, upTo), (0, upTo &+ 1), (since, since), (.max - 1, .max),
            (1 << 53, 1 << 53), (0, 1), (upTo &+ 1, upTo &+ 5), (0, max(0, upTo - 1)),
        ]
        (changeset.since, changeset.upTo) = source.pick(ranges.filter { $0.0 >= 0 && $0.0 <= $0.1 })
    }

    /// Sets row `r`'s causal length to an extreme or next one, dropping or adding the liveness stamp to suit.
    private func editCausalLength(ofRow r: Int, in changeset: inout Changeset, using source: inout ChoiceSource) {
        var liveness = changeset.rows[r].registers.liveness
        liveness.causalLength = source.pick(
            HostileValues.causalLengths
                + [liveness.causalLength &+ 1, liveness.causalLength &+ 2])
        if liveness.causalLength == 0 && source.bool() {
            liveness.stamp = nil
        } else if liveness.stamp == nil {
            liveness.stamp = anyStamp(in: changeset, using: &source)
        }
        changeset.rows[r].registers.liveness = liveness
    }

    /// A stamp from somewhere in the changeset, or a made-up one at a real stamp's clock.
    private func anyStamp(in changeset: Changeset, using source: inout ChoiceSource) -> Stamp {
        let stamps = changeset.rows.flatMap { row in
            [row.registers.liveness.stamp].compactMap { $0 } + row.registers.columns.compactMap { $0?.stamp }
        }
        if !stamps.isEmpty && source.bool(probability: 0.75) { return source.pick(stamps) }
        let clock = stamps.first?.hlc.rawValue ?? 0
        return Stamp(
            hlc: HLCTimestamp(rawValue: source.pick(HostileValues.clocks(near: clock))), node: source.pick(nodes))
    }

    /// Sets a column register's value (creating it, or removing it).
    private func editValue(_ row: inout RowChange, using source: inout ChoiceSource) {
        guard !row.registers.columns.isEmpty else {
            row.key = source.pick(HostileValues.values.filter { !$0.isNull })
            return
        }
        let c = source.offset(below: row.registers.columns.count)
        if row.registers.columns[c] != nil && source.bool(probability: 0.15) {
            row.registers.columns[c] = nil
            return
        }
        let value = source.pick(HostileValues.values)
        if row.registers.columns[c] == nil {
            let stamp =
                row.registers.liveness.stamp
                ?? Stamp(hlc: HLCTimestamp(rawValue: 1), node: source.pick(nodes))
            row.registers.columns[c] = ColumnRegister(value: value, stamp: stamp)
        } else {
            row.registers.columns[c]!.value = value
        }
    }

    /// Moves one of the row's stamps (liveness, a column or a counter contribution) to another clock or node.
    private func editStamp(_ row: inout RowChange, using source: inout ChoiceSource) {
        var places: [(column: Int?, contribution: Int?)] = []
        if row.registers.liveness.stamp != nil { places.append((nil, nil)) }
        for (c, register) in row.registers.columns.enumerated() {
            guard let register else { continue }
            places.append((c, nil))
            for j in register.contributions.indices { places.append((c, j)) }
        }
        guard !places.isEmpty else { return }
        let place = source.pick(places)
        func moved(_ stamp: Stamp, nodeToo: Bool) -> Stamp {
            let hlc = HLCTimestamp(rawValue: source.pick(HostileValues.clocks(near: stamp.hlc.rawValue)))
            return Stamp(hlc: hlc, node: nodeToo && source.bool(probability: 0.3) ? source.pick(nodes) : stamp.node)
        }
        switch place {
        case (nil, _):
            row.registers.liveness.stamp = moved(row.registers.liveness.stamp!, nodeToo: true)
        case (let c?, nil):
            row.registers.columns[c]!.stamp = moved(row.registers.columns[c]!.stamp, nodeToo: true)
        case (let c?, let j?):
            // A contribution's node is its identity and sets its order: only its clock moves.
            row.registers.columns[c]!.contributions[j].stamp =
                moved(row.registers.columns[c]!.contributions[j].stamp, nodeToo: false)
        }
    }

    /// Edits the contributions of a counter register: extreme amounts and lengths, a new node, none at all.
    private func editContributions(_ changeset: inout Changeset, using source: inout ChoiceSource) -> Bool {
        var places: [(row: Int, column: Int)] = []
        let counters = Dictionary(changeset.tables.map { ($0.name, $0.merges) }, uniquingKeysWith: { a, _ in a })
        for (r, row) in changeset.rows.enumerated() {
            for (c, merge) in (counters[row.table] ?? []).enumerated() where merge == .counter {
                if c < row.registers.columns.count { places.append((r, c)) }
            }
        }
        guard !places.isEmpty else { return false }
        let (r, c) = source.pick(places)
        var row = changeset.rows[r]
        var register =
            row.registers.columns[c]
            ?? ColumnRegister(value: .integer(0), stamp: anyStamp(in: changeset, using: &source))
        var entries = register.contributions
        switch source.choose(upTo: 3) {
        case 0 where !entries.isEmpty:
            let j = source.offset(below: entries.count)
            entries[j].amount = source.pick(HostileValues.int64s)
        case 1 where !entries.isEmpty:
            let j = source.offset(below: entries.count)
            entries[j].causalLength = source.pick(HostileValues.causalLengths + [row.registers.liveness.causalLength])
        case 2:
            entries.removeAll()
        default:
            let node = source.pick(nodes)
            entries.removeAll { $0.stamp.node == node }
            entries.append(
                CounterContribution(
                    causalLength: source.bool()
                        ? row.registers.liveness.causalLength : source.pick(HostileValues.causalLengths),
                    amount: source.pick(HostileValues.int64s), stamp: Stamp(hlc: register.stamp.hlc, node: node)))
            entries.sort { $0.stamp.node < $1.stamp.node }
        }
        register.contributions = entries
        row.registers.columns[c] = register
        changeset.rows[r] = row
        return true
    }

    /// Edits a table declaration (and its rows, where the edit must carry over to stay encodable).
    private func editSchema(_ changeset: inout Changeset, using source: inout ChoiceSource) -> Bool {
        guard !changeset.tables.isEmpty else { return false }
        let t = source.offset(below: changeset.tables.count)
        var table = changeset.tables[t]
        let name = table.name
        let usedNames = Set(changeset.tables.map { $0.name.lowercased() })
        let freshNames = [
            "ghost", "LISTS", "Items", "sqlite_master", "_concord_tables", "notes", "folders", "lists",
            "items", "e\u{301}", "a'b", "a\"b",
        ].filter { !usedNames.contains($0.lowercased()) }
        let edit = source.choose(upTo: 8)
        if edit < 4 && editColumns(edit, of: &table, in: &changeset, using: &source) {
            changeset.tables[t] = table
            return true
        }
        switch edit {
        case 4:
            table.policy = table.policy == .column ? .row : .column
        case 5 where !freshNames.isEmpty:
            table.name = source.pick(freshNames)
            for r in changeset.rows.indices where changeset.rows[r].table == name {
                changeset.rows[r].table = table.name
            }
        case 6:
            let taken = Set(table.columns.map { $0.lowercased() })
            table.key = source.pick(["id", "ID", "rowid", "key", "list"].filter { !taken.contains($0.lowercased()) })
        case 7 where !freshNames.isEmpty:
            // A table with no rows the receiver may not sync.
            changeset.tables.append(
                TableSchema(name: source.pick(freshNames), key: "id", columns: ["x"], policy: .column))
            return true
        default:
            // A table dropped with its rows (also when a column edit finds too few columns).
            changeset.tables.remove(at: t)
            changeset.rows.removeAll { $0.table == name }
            return true
        }
        changeset.tables[t] = table
        return true
    }

    /// Edit 0 to 3 of ``editSchema(_:using:)``: reorders, drops, renames or re-merges `table`'s columns, carrying
    /// the change over to its rows; `false`, drawing nothing, when the table has too few columns for it.
    private func editColumns(
        _ edit: UInt64, of table: inout TableSchema, in changeset: inout Changeset, using source: inout ChoiceSource
    ) -> Bool {
        let name = table.name
        let columnCount = table.columns.count
        func reshape(_ transform: ([ColumnRegister?]) -> [ColumnRegister?]) {
            for r in changeset.rows.indices where changeset.rows[r].table == name {
                changeset.rows[r].registers.columns = transform(changeset.rows[r].registers.columns)
            }
        }
        switch edit {
        case 0 where columnCount >= 2:
            // The same columns in another order: the receiver must map them by name.
            let order = (0..<columnCount).reversed().map { $0 }
            table.columns = order.map { table.columns[$0] }
            table.merges = order.map { table.merges[$0] }
            reshape { columns in order.map { columns[$0] } }
        case 1 where columnCount >= 1:
            // One column fewer: a peer that syncs a subset.
            let c = source.offset(below: columnCount)
            table.columns.remove(at: c)
            table.merges.remove(at: c)
            reshape { columns in
                var columns = columns
                columns.remove(at: c)
                return columns
            }
        case 2 where columnCount >= 1:
            let c = source.offset(below: columnCount)
            let taken = Set(([table.key] + table.columns).map { $0.lowercased() })
            let candidates = ["ghost", "rowid", "ID", "_concord_x", "a b", "\"", "lww"].filter {
                !taken.contains($0.lowercased())
            }
            table.columns[c] = source.pick(candidates)
        case 3 where columnCount >= 1:
            let c = source.offset(below: columnCount)
            let merge = source.pick([ColumnMerge.lww, .max, .min, .counter, .union, .custom("custom"), .custom("Max")])
            table.merges[c] = merge
            if merge != .counter {
                reshape { columns in
                    var columns = columns
                    columns[c]?.contributions = []
                    return columns
                }
            }
        default:
            return false
        }
        return true
    }
}
