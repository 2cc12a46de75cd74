import Foundation

/// Table and column names compared as SQLite compares them: ASCII letters without case, every other byte as it is.
///
/// SQLite takes `Reminders` and `reminders` for one table, but `é` written
/// precomposed and `é` written as `e` plus a combining accent for two; a Swift
/// `String` compares the other way round on the second. Wherever Concord
/// matches a name — from a changeset, from a foreign key, against its own
/// reserved prefix — it matches by these rules.
///
/// ```swift
/// SQLiteName.same("Reminders", "reminders")     // true
/// SQLiteName.same("\u{e9}", "e\u{301}")          // false: different bytes
/// ```
public enum SQLiteName {
    /// The name's bytes with ASCII letters in lower case.
    public static func folded(_ name: String) -> [UInt8] {
        name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }

    /// Whether SQLite takes the two names for one.
    public static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(folded(a), folded(b)).allSatisfy { $0 == $1 }
    }

    /// A string as a dictionary key that equals only the same bytes (a `String` key would
    /// take two canonically equivalent spellings for one).
    public struct Key: Hashable, Sendable {
        /// The string, as given.
        public let text: String

        /// A key for `text`.
        public init(_ text: String) { self.text = text }

        /// Whether the two strings have the same UTF-8 bytes.
        ///
        /// Apply looks a table up by name for every row, and every cached statement is looked up by
        /// its SQL, so the common case (native strings, whose bytes are contiguous) compares the two
        /// buffers with `memcmp` rather than byte by byte.
        public static func == (lhs: Key, rhs: Key) -> Bool {
            let (a, b) = (lhs.text.utf8, rhs.text.utf8)
            guard a.count == b.count else { return false }
            let direct = a.withContiguousStorageIfAvailable { x in
                b.withContiguousStorageIfAvailable { y in
                    x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
                }
            }
            return (direct ?? nil) ?? a.elementsEqual(b)
        }

        /// Hashes the UTF-8 bytes, so equal keys hash alike.
        public func hash(into hasher: inout Hasher) {
            let hashed: Void? = text.utf8.withContiguousStorageIfAvailable {
                hasher.combine(bytes: UnsafeRawBufferPointer($0))
            }
            if hashed == nil { for byte in text.utf8 { hasher.combine(byte) } }
        }
    }

    /// Whether `name` starts with `prefix`, as SQLite compares names.
    public static func hasPrefix(_ name: String, _ prefix: String) -> Bool {
        folded(name).starts(with: folded(prefix))
    }
}
