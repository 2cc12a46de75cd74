/// Which synced columns an update changed, as `_concord_log.mask` holds it.
///
/// Why two forms: a table of up to 63 synced columns gets an INTEGER with
/// bit `i` set for column `i` (as every earlier layout stored it). A wider
/// table cannot fit one bit per column in a 64-bit integer, and columns
/// sharing a bit lose concurrent edits: a device that changed column 65
/// would stamp its unchanged column 66 too, over another device's edit of
/// it. Such a table's mask is TEXT: `x`, then one 19-digit number per 62
/// columns, each holding those columns' bits (19 digits hold 62 bits, and
/// fixed widths let the delete trigger read one chunk in SQL). A log row of
/// a wide table from an earlier layout holds an INTEGER whose last bit
/// stands for every column from 62 on, which still decodes (as changing
/// them all).
///
/// ```swift
/// ChangeMask.encode([true, false, true])                 // .integer(5)
/// ChangeMask.decode(.integer(5), count: 3)               // [true, false, true]
/// ChangeMask.sql(["(NEW.a IS NOT OLD.a)", "(NEW.b IS NOT OLD.b)"])   // "(... << 0) | (... << 1)"
/// ```
enum ChangeMask {
    /// Bits per integer: the integer form's last bit stands for every later column in earlier layouts.
    static let bits = 62
    /// Digits per chunk of the text form.
    private static let digits = 19

    /// Whether a table of `count` synced columns has the text form.
    static func isWide(_ count: Int) -> Bool { count > bits + 1 }

    /// The mask of an update that changed the columns `changed` says.
    static func encode(_ changed: [Bool]) -> SQLiteValue {
        guard isWide(changed.count) else {
            return .integer(changed.indices.filter { changed[$0] }.reduce(Int64(0)) { $0 | (1 << Int64($1)) })
        }
        let chunks = stride(from: 0, to: changed.count, by: bits).map { start in
            (start..<min(start + bits, changed.count)).filter { changed[$0] }
                .reduce(Int64(0)) { $0 | (1 << Int64($1 - start)) }
        }
        return .text(SQLiteText("x" + chunks.map(padded).joined()))
    }

    /// Which of `count` columns `mask` says changed; a mask it cannot read says all did.
    static func decode(_ mask: SQLiteValue, count: Int) -> [Bool] {
        switch mask {
        case .integer(let value):
            return (0..<count).map { value & (1 << Int64(min($0, bits))) != 0 }
        case .text(let text) where text.bytes.first == UInt8(ascii: "x"):
            let bytes = text.bytes
            let chunks = stride(from: 1, to: bytes.count, by: digits).map { start in
                start + digits <= bytes.count
                    ? Int64(String(decoding: bytes[start..<start + digits], as: UTF8.self)) : nil
            }
            return (0..<count).map { column in
                guard column / bits < chunks.count, let chunk = chunks[column / bits] else { return true }
                return chunk & (1 << Int64(column % bits)) != 0
            }
        default:
            return Array(repeating: true, count: count)
        }
    }

    /// Whether `mask` says no column changed (the update trigger logs such an update rather than test
    /// every column twice).
    static func isEmpty(_ mask: SQLiteValue, count: Int) -> Bool {
        if case .integer(let value) = mask { return value == 0 }
        return !decode(mask, count: count).contains(true)
    }

    /// SQL for the mask, given each column's "changed" test (an SQL expression that is 0 or 1).
    static func sql(_ tests: [String]) -> String {
        guard isWide(tests.count) else {
            return tests.enumerated().map { "(\($1) << \($0))" }.joined(separator: " | ")
        }
        let chunks = stride(from: 0, to: tests.count, by: bits).map { start in
            let terms = (start..<min(start + bits, tests.count)).map { "(\(tests[$0]) << \($0 - start))" }
            return "printf('%0\(digits)d', \(terms.joined(separator: " | ")))"
        }
        return "'x' || " + chunks.joined(separator: " || ")
    }

    /// SQL: whether the `mask` of a log row of a table of `count` columns has `column`'s bit.
    static func sqlHas(column: Int, count: Int) -> String {
        guard isWide(count) else { return "mask & \(Int64(1) << Int64(min(column, bits))) <> 0" }
        let start = 2 + column / bits * digits
        return "CAST(substr(mask, \(start), \(digits)) AS INTEGER) & \(Int64(1) << Int64(column % bits)) <> 0"
    }

    private static func padded(_ value: Int64) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
