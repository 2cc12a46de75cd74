import Concord

/// The rows every benchmark phase writes: a UUID text key and four columns.
///
/// Generated from a seed, so Concord and plain SQLite see the same bytes and
/// a run can be repeated exactly.
struct BenchmarkWorkload {
    let rows: [[SQLiteValue]]

    static let schema = "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT, qty INTEGER, price REAL, note TEXT)"
    static let insertSQL = "INSERT INTO items (id, title, qty, price, note) VALUES (?, ?, ?, ?, ?)"
    static let updateSQL = "UPDATE items SET qty = qty + 1 WHERE id = ?"
    static let readSQL = "SELECT id, title, qty, price, note FROM items WHERE id = ?"

    init(count: Int, seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        rows = (0..<count).map { index in
            [.text(Self.uuid(&rng)), .text("title number \(index)"), .integer(Int64(index)),
             .real(Double(index) * 1.5), .text("a note about item \(index)")]
        }
    }

    /// A version-4 UUID string drawn from `rng`.
    static func uuid(_ rng: inout SeededGenerator) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let cuts = [8, 12, 16, 20]
        var out = ""
        for (offset, character) in hex.enumerated() {
            if cuts.contains(offset) { out += "-" }
            out.append(character)
        }
        return out
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
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
