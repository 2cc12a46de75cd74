import Concord

/// The rows every benchmark phase writes: a UUID text key and four columns.
///
/// Generated from a seed, so Concord and plain SQLite see the same bytes and
/// a run can be repeated exactly.
///
/// ```swift
/// let workload = BenchmarkWorkload(count: 1_000, seed: 1)
/// try workload.insert(into: database)
/// ```
struct BenchmarkWorkload {
    let rows: [[SQLiteValue]]

    static let schema =
        "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT, qty INTEGER, price REAL, note TEXT)"
    static let insertSQL = "INSERT INTO items (id, title, qty, price, note) VALUES (?, ?, ?, ?, ?)"
    static let updateSQL = "UPDATE items SET qty = qty + 1 WHERE id = ?"
    static let readSQL = "SELECT id, title, qty, price, note FROM items WHERE id = ?"

    init(count: Int, seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        rows = (0..<count).map { index in
            [
                .text(Self.uuid(&rng)), .text("title number \(index)"), .integer(Int64(index)),
                .real(Double(index) * 1.5), .text("a note about item \(index)"),
            ]
        }
    }

    /// A version-4 UUID string drawn from `rng` (lower-case hex, 8-4-4-4-12).
    static func uuid(_ rng: inout SeededGenerator) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Inserts every row through one prepared statement in one transaction.
    func insert(into database: Database) throws {
        try database.transaction {
            let statement = try database.prepare(Self.insertSQL)
            for row in rows { try statement.run(row) }
        }
    }

    /// Updates one column of every row, row by row, in one transaction.
    func updateEveryRow(in database: Database) throws {
        try database.transaction {
            let statement = try database.prepare(Self.updateSQL)
            for row in rows { try statement.run([row[0]]) }
        }
    }

    /// Reads `count` rows by key, in a scattered order.
    func pointReads(_ database: Database, count: Int) throws -> Int {
        let statement = try database.prepare(Self.readSQL)
        var found = 0
        var index = 0
        for _ in 0..<count {
            index = (index + 7_919) % rows.count
            try statement.bind([rows[index][0]])
            if try statement.step() { found += 1 }
            statement.reset()
        }
        return found
    }

    /// Gives every row a new title, `tag` and its position, row by row, in one transaction.
    func retitleEveryRow(in database: Database, tag: String) throws {
        try database.transaction {
            let statement = try database.prepare("UPDATE items SET title = ? WHERE id = ?")
            for (index, row) in rows.enumerated() { try statement.run([.text("\(tag) \(index)"), row[0]]) }
        }
    }

    /// Makes `count` more writes after the bulk phases: updates of rows spread over the table.
    ///
    /// The export since the version taken before them should cost in
    /// proportion to these writes, not to the table.
    func touch(_ database: Database, count: Int) throws {
        try database.transaction {
            let statement = try database.prepare(Self.updateSQL)
            for write in 0..<count {
                try statement.run([rows[(write * 104_729) % rows.count][0]])
            }
        }
    }
}
