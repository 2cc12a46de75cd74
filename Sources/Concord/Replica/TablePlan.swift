/// How one changeset table maps onto the local table.
///
/// Columns the changeset has and the local table lacks (a newer peer's) are
/// not refused: they are ``extras``, merged together with the row's own
/// registers under ``unionRules`` and kept in the ``RelayStore``.
final class TablePlan {
    let remote: TableSchema
    let local: SyncedTable
    /// For each local column, its position in the changeset's column list.
    let positions: [Int?]
    let rules: RowMerge.Rules
    /// The table takes part in a foreign key, so its rows are reprojected.
    let isRelated: Bool
    /// The changeset lists the same columns in the same order.
    let isIdentity: Bool
    /// Where the registers of the local table are read and written (looked up once, not per row).
    let store: RegisterStore
    /// Where this table's rows go in a batch's write order: 0 for a table with foreign keys (as they came),
    /// else an odd rank by name (see ``ApplyOrder``); set by ``TablePlans``.
    var writeRank = 0
    /// For a table that held no registers when the merge began, the hashes of
    /// the keys merged since; `nil` otherwise (or once it grew past ``newKeysLimit``).
    var newKeys: Set<Int64>?

    /// How many key hashes a merge keeps per table (8 bytes each, some 16 MB with the set's spare room).
    static let newKeysLimit = 1 << 20

    /// The columns of this table that peers sync and this replica's table lacks (see ``RelayStore``), as a
    /// declaration of those columns alone; `nil` for a table with none, which merges as before.
    let extras: TableSchema?
    /// For each extra column, its position in the changeset's column list.
    let extraPositions: [Int?]
    /// The rules of the table's own columns followed by its extra columns.
    let unionRules: RowMerge.Rules

    init(
        remote: TableSchema, local: SyncedTable, store: RegisterStore, positions: [Int?], rules: RowMerge.Rules,
        isRelated: Bool, extras: TableSchema? = nil
    ) {
        self.remote = remote
        self.local = local
        self.store = store
        self.positions = positions
        self.rules = rules
        self.isRelated = isRelated
        isIdentity = positions.count == remote.columns.count && positions.indices.allSatisfy { positions[$0] == $0 }
        self.extras = extras
        extraPositions = (extras?.columns ?? []).map { column in
            remote.columns.firstIndex { SQLiteName.same($0, column) }
        }
        var union = rules
        union.merges += extras?.merges ?? []
        unionRules = union
    }

    /// The registers of the changeset's row in the order of the local columns.
    func localRegisters(_ remote: RowRegisters) -> RowRegisters {
        if isIdentity { return remote }
        return RowRegisters(liveness: remote.liveness, columns: positions.map { $0.flatMap { remote.columns[$0] } })
    }

    /// What the changeset's row says its writes saw, in this replica's column order (`nil`: unknown).
    func localSeen(_ seen: [Stamp?]?) -> [Stamp?]? {
        guard let seen, !isIdentity else { return seen }
        return positions.map { $0.flatMap { seen[$0] } }
    }

    /// The registers of the changeset's row for the extra columns, in their order.
    func extraRegisters(_ remote: RowRegisters) -> [ColumnRegister?] {
        extraPositions.map { $0.flatMap { remote.columns[$0] } }
    }

    /// Whether `key` certainly has no registers here: its table had none and
    /// no key with its hash was merged since. A hash met again is looked up.
    func isNew(_ key: SQLiteValue) -> Bool {
        guard newKeys != nil else { return false }
        if newKeys!.count >= Self.newKeysLimit {
            newKeys = nil
            return false
        }
        return newKeys!.insert(KeyHash.of(key)).inserted
    }

    /// How the changeset's `remote` table maps onto this replica's, checked against its declaration;
    /// `declared` is what peers declared of the table (``RelayStore``), this changeset's declaration included.
    convenience init(_ remote: TableSchema, replica: Replica, declared: TableSchema? = nil) throws {
        guard let local = replica.syncedTable(named: remote.name) else {
            throw ReplicaError.tableNotSynced(table: remote.name)
        }
        // SQLite takes `ID` and `id` for one column; `String`'s `==` took them for two, and `é` spelled two
        // ways for one.
        guard SQLiteName.same(remote.key, local.key) else {
            throw ReplicaError.schemaMismatch(
                table: local.name,
                detail: "its key is '\(remote.key)', here it is '\(local.key)'")
        }
        guard remote.policy == local.policy else {
            throw ReplicaError.policyMismatch(
                table: local.name, local: "\(local.policy.rawValue) policy",
                remote: "\(remote.policy.rawValue) policy")
        }
        try replica.requireMergeFunctions(local)
        var positions: [Int?] = Array(repeating: nil, count: local.columns.count)
        for (remoteIndex, name) in remote.columns.enumerated() {
            // A column this replica's table lacks is kept as an extra column (see `declared`), unless its name
            // reads as one of this table's with other bytes: kept, it would never show, and each device would
            // show its own value in its own column for good.
            guard let localIndex = local.columns.firstIndex(where: { SQLiteName.same($0, name) }) else {
                if let twin = local.columns.first(where: { $0 == name }) {
                    throw ReplicaError.schemaMismatch(
                        table: local.name,
                        detail: "its column '\(name)' and this replica's column '\(twin)' read as the same text "
                            + "with different Unicode bytes (\(Hex.encode(Array(name.utf8))) and "
                            + "\(Hex.encode(Array(twin.utf8)))), so SQLite takes them for two columns; rename one of "
                            + "them so that every device spells it the same")
                }
                continue
            }
            let (mine, theirs) = (local.merges[localIndex], remote.merges[remoteIndex])
            guard mine == theirs else {
                throw ReplicaError.policyMismatch(
                    table: local.name, local: "\(name)=\(mine)", remote: "\(name)=\(theirs)")
            }
            positions[localIndex] = remoteIndex
        }
        self.init(
            remote: remote, local: local, store: replica.store(local), positions: positions,
            rules: RowMerge.Rules(policy: local.policy, merges: local.merges, functions: replica.configuration.merges),
            isRelated: replica.hasRelations(local.name), extras: declared?.columns(lackedBy: local.columns))
    }
}
