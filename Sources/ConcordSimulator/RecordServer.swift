import Concord

/// A record server in the manner of CloudKit: it stores one record per row,
/// refuses stale uploads, and hands out changes since a token.
///
/// The server does not merge. Every record carries a change tag; an upload
/// naming an older tag than the server holds is refused with "server record
/// changed" and the server's record, and the device must fetch, merge and
/// retry — so the server's copy only ever moves to a join of what it held.
/// Uploads and fetches come in batches of at most ``batchLimit`` records.
/// Devices of an app's older and newer releases share it, so it keeps each
/// table's widest declaration (a release only appends columns) and hands a
/// record saved under a narrower one out with no register in the columns it
/// lacked.
///
/// ```swift
/// var server = RecordServer()
/// let outcome = server.save([RecordServer.Upload(change: row, knownTag: nil)], schemas: tables)
/// let page = server.changes(since: 0)
/// ```
struct RecordServer {
    /// CloudKit's limit on records per request.
    static let batchLimit = 400
    /// The node id changesets from the server carry; no device has it.
    static let node = NodeID(bytes: Array(repeating: 0xFF, count: 16))!

    struct RecordID: Hashable, Comparable {
        let table: String
        let key: SQLiteValue
        static func < (a: RecordID, b: RecordID) -> Bool { (a.table, a.key) < (b.table, b.key) }
    }

    struct Record {
        var change: RowChange
        /// Bumped on every save; an upload must name the current one.
        var tag: Int
        /// The server change token of the save that wrote this version.
        var token: Int
        /// The oracle's bookkeeping, not the server's: the ledger's writes of the row this version holds
        /// (what its uploader knew of the row), which a device that applies it learns.
        var knowledge: Set<Int> = []
    }

    /// A record a device uploads, with the tag it last saw for it (`nil`: it believes the record is new).
    struct Upload {
        let change: RowChange
        let knownTag: Int?
        /// What the uploader knows of the row: the ledger's writes its registers hold.
        var knowledge: Set<Int> = []
    }

    struct SaveOutcome {
        /// Records saved, with their new tags.
        var saved: [(RecordID, Int)] = []
        /// "Server record changed": the server's current records for the refused uploads.
        var conflicts: [Record] = []
    }

    private(set) var records: [RecordID: Record] = [:]
    private(set) var schemas: [String: TableSchema] = [:]
    private(set) var token = 0

    /// Saves each record whose tag is current and refuses the others (CloudKit's non-atomic batch).
    mutating func save(_ uploads: [Upload], schemas: [TableSchema]) -> SaveOutcome {
        precondition(uploads.count <= Self.batchLimit, "a batch holds at most \(Self.batchLimit) records")
        for schema in schemas {
            // An older release's narrower declaration leaves the wider one in place.
            if let held = self.schemas[schema.name], held.columns.count > schema.columns.count,
                held.columns.starts(with: schema.columns)
            {
                continue
            }
            self.schemas[schema.name] = schema
        }
        var outcome = SaveOutcome()
        for upload in uploads {
            let id = RecordID(table: upload.change.table, key: upload.change.key)
            if let held = records[id], held.tag != upload.knownTag {
                outcome.conflicts.append(held)
                continue
            }
            if records[id] == nil, upload.knownTag != nil {
                // The device remembers a record the server never had: impossible, as records are never deleted.
                preconditionFailure("device names a tag for \(id), which the server never stored")
            }
            token += 1
            let tag = (records[id]?.tag ?? 0) + 1
            records[id] = Record(change: upload.change, tag: tag, token: token, knowledge: upload.knowledge)
            outcome.saved.append((id, tag))
        }
        return outcome
    }

    /// Records saved after `since`, oldest first, at most `limit`; `more` when others remain.
    func changes(since: Int, limit: Int = batchLimit) -> (records: [Record], token: Int, more: Bool) {
        let newer = records.values.filter { $0.token > since }.sorted { $0.token < $1.token }
        let page = Array(newer.prefix(min(limit, Self.batchLimit)))
        return (page, page.last?.token ?? since, newer.count > page.count)
    }

    /// The records as a changeset, for a device to apply.
    func changeset(_ page: [Record], since: Int, upTo: Int) -> Changeset {
        let tables = Set(page.map(\.change.table)).sorted().compactMap { schemas[$0] }
        let rows = page.map { record in
            let change = record.change
            let width = max(schemas[change.table]?.columns.count ?? 0, change.registers.columns.count)
            return change.selectingColumns(Array(0..<width))
        }
        return Changeset(source: Self.node, since: Int64(since), upTo: Int64(upTo), tables: tables, rows: rows)
    }
}

/// What a device's app remembers of the record server: lost in a crash, relearned by fetching.
struct CloudClient {
    /// The change tag last seen per record.
    var tags: [RecordServer.RecordID: Int] = [:]
    /// The registers the server held when this device last saw each record, so unchanged rows are not uploaded again.
    var serverCopy: [RecordServer.RecordID: RowRegisters] = [:]
    /// The server change token fetched up to.
    var token = 0
    /// The token the first fetched page with rows the replica held back started from (rows of a table it
    /// refuses for now, ``ApplyReport/heldBack``): fetches start there again until nothing is held back, as
    /// the replica keeps no held-back row and the server sends a record once per token.
    var heldBackSince: Int?
    /// The local version uploaded up to.
    var uploadedVersion: Int64 = 0
}
