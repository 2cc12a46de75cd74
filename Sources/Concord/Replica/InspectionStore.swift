@_spi(Testing) import ConcordCore
import Foundation

/// Inspection results every replica of the process shares (see ``InspectionCache``), keyed by what
/// they follow from: the text of the tables and the declarations, byte for byte.
///
/// Why shared: an app, a tool or a simulator opens the same schema again and again — a reopened file,
/// another device of a simulation — and what an inspection finds does not depend on the file or the
/// connection, only on that text (SQLite's own pragmas and conversions read nothing else). Only results
/// that inspecting again would repeat exactly are stored (DEFAULTs that are literals), and the store
/// forgets everything once it holds ``limit`` entries, so a process that sees many schemas stays small.
final class InspectionStore: @unchecked Sendable {
    /// The process's store. (`@unchecked Sendable`: every access takes `lock`.)
    static let shared = InspectionStore()

    /// A table's capture facts are found from the tables' text and the table's declaration.
    struct FactsKey: Hashable {
        let schema: SQLiteName.Key
        let declaration: [SQLiteName.Key]
    }

    /// The foreign keys between synced tables are found from the tables' text and every declaration.
    struct KeysKey: Hashable {
        let schema: SQLiteName.Key
        let declarations: [[SQLiteName.Key]]
    }

    /// How many entries of each kind the store keeps before it starts over.
    static let limit = 512

    /// A schema check finds nothing to refuse or adopt from the whole schema's text (`main` and `temp`)
    /// and the declarations of the synced tables.
    ///
    /// Every name and text is compared byte for byte: `String`'s `==` (and so `SyncedTable`'s) takes
    /// canonically equivalent text for the same (`Å` and `Å`), which SQLite takes for two names.
    struct CleanKey: Hashable {
        let schema: SQLiteName.Key
        let tables: [SyncedTable]
        let names: [[SQLiteName.Key]]

        init(schema: SQLiteName.Key, tables: [SyncedTable]) {
            self.schema = schema
            self.tables = tables
            self.names = tables.map(InspectionCache.declaration(of:))
        }
    }

    private let lock = NSLock()
    private var facts: [FactsKey: TableInspector.CaptureFacts] = [:]
    private var keys: [KeysKey: [ForeignKey]] = [:]
    private var clean: Set<CleanKey> = []

    func facts(_ key: FactsKey) -> TableInspector.CaptureFacts? {
        lock.withLock { facts[key] }
    }

    func store(_ found: TableInspector.CaptureFacts, for key: FactsKey) {
        lock.withLock {
            if facts.count >= Self.limit { facts.removeAll() }
            facts[key] = found
        }
    }

    func keys(_ key: KeysKey) -> [ForeignKey]? {
        lock.withLock { keys[key] }
    }

    func store(_ found: [ForeignKey], for key: KeysKey) {
        lock.withLock {
            if keys.count >= Self.limit { keys.removeAll() }
            keys[key] = found
        }
    }

    /// Whether a schema check of this schema and these declarations found nothing to refuse or adopt.
    func isClean(_ key: CleanKey) -> Bool {
        lock.withLock { clean.contains(key) }
    }

    func storeClean(_ key: CleanKey) {
        lock.withLock {
            if clean.count >= Self.limit { clean.removeAll() }
            clean.insert(key)
        }
    }
}
