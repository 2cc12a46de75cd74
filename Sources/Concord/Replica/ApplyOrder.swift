/// The order in which an apply merges a batch's rows, and keys in the order their index keeps them.
enum ApplyOrder {
    /// The order in which a batch's rows are merged: rows of tables with
    /// foreign keys first, as they came (their reprojection follows arrival
    /// order too); then each other table's rows by key, in SQLite's order
    /// (text before blobs, bytewise), and a key met twice in arrival order.
    static func writeOrder(_ batch: [RowChange], _ plans: TablePlans) -> [Int] {
        // Sorted as compact items, a rank (0: foreign keys; then per other table by name, text keys before
        // blobs: ``TablePlan/writeRank``) and the key's first eight bytes; whole keys are compared only when
        // those tie.
        var items: [(rank: Int, prefix: UInt64, index: Int)] = []
        items.reserveCapacity(batch.count)
        for (index, row) in batch.enumerated() {
            guard let rank = plans[row.table]?.writeRank, rank > 0 else {
                items.append((0, 0, index))
                continue
            }
            switch row.key {
            case .blob(let bytes): items.append((rank + 1, KeyOrder.prefix(bytes), index))
            case .text(let text): items.append((rank, KeyOrder.prefix(text.bytes), index))
            default: items.append((rank, 0, index))
            }
        }
        items.sort { a, b in
            if a.rank != b.rank { return a.rank < b.rank }
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            guard a.rank != 0 else { return a.index < b.index }
            let keys = KeyOrder.compare(batch[a.index].key, batch[b.index].key)
            return keys != 0 ? keys < 0 : a.index < b.index
        }
        return items.map(\.index)
    }
}

/// Keys in the order a key column's index keeps them: text before blobs, each bytewise.
enum KeyOrder {
    /// Negative, zero or positive as `a` sorts before, with or after `b`; only text and blob keys are told apart.
    static func compare(_ a: SQLiteValue, _ b: SQLiteValue) -> Int {
        switch (a, b) {
        case (.text(let x), .text(let y)): return compare(x.bytes, y.bytes)
        case (.blob(let x), .blob(let y)): return compare(x, y)
        case (.text, .blob): return -1
        case (.blob, .text): return 1
        default: return 0
        }
    }

    /// The first eight bytes, big-endian, zero-padded: a key whose prefix is smaller sorts first.
    static func prefix<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var value: UInt64 = 0
        var count = 0
        for byte in bytes.prefix(8) {
            value = value << 8 | UInt64(byte)
            count += 1
        }
        return count == 0 ? 0 : value << (8 * (8 - count))
    }

    private static func compare<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Int {
        if a.elementsEqual(b) { return 0 }
        return a.lexicographicallyPrecedes(b) ? -1 : 1
    }
}
