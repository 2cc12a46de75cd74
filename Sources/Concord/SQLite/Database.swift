import CSQLite
import Foundation

/// A connection to one SQLite database: the only place Concord reaches C.
///
/// It prepares and caches statements, runs transactions and savepoints, and
/// turns every failure into a ``SQLiteError`` that names the SQL. It is not
/// `Sendable`: a connection belongs to one task at a time, as SQLite expects.
///
/// ```swift
/// let database = try Database(path: "app.sqlite")
/// try database.execute("CREATE TABLE lists(id TEXT PRIMARY KEY, name TEXT)")
/// try database.execute("INSERT INTO lists VALUES (?, ?)", ["l1", "Groceries"])
/// let names = try database.query("SELECT name FROM lists ORDER BY id")
/// ```
public final class Database {
    /// How a file is opened.
    public enum Mode: Sendable {
        /// Reads only; a missing file is an error.
        case readOnly
        /// Reads and writes an existing file; a missing file is an error.
        case readWrite
        /// Reads and writes, creating the file when it does not exist.
        case readWriteCreate

        var flags: Int32 {
            switch self {
            case .readOnly: SQLITE_OPEN_READONLY
            case .readWrite: SQLITE_OPEN_READWRITE
            case .readWriteCreate: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            }
        }
    }

    /// The open connection, shared with every statement prepared on it.
    let connection: Connection
    var handle: OpaquePointer { connection.handle }
    /// The path the connection was opened with (`:memory:` for an in-memory database).
    public let path: String
    private var statementCache: [SQLiteName.Key: Statement] = [:]
    private var savepointDepth = 0
    /// The VFS the connection was opened with, kept registered for as long as the connection lives.
    var vfs: ReplicaVFS? { connection.vfs }

    /// Opens (or creates) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: the file to open; `:memory:` for an in-memory database, or a `file:` URI.
    ///   - mode: whether the connection may write, and whether a missing file is created.
    ///   - vfs: when given, files are opened through it: SQL's `'now'`
    ///     (and so every stamp a capture trigger takes) reads its clock, and
    ///     statement journals stay in memory (see ``ReplicaVFS``).
    /// - Throws: ``DatabaseOpenError`` when SQLite cannot open the file.
    public init(path: String, mode: Mode = .readWriteCreate, vfs: ReplicaVFS? = nil) throws {
        var handle: OpaquePointer?
        let flags = mode.flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let code = sqlite3_open_v2(path, &handle, flags, vfs?.name)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(connection: handle, code: code, sql: nil)
            let systemError = handle.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(handle)
            throw DatabaseOpenError(path: path, underlying: error, systemError: systemError)
        }
        connection = Connection(handle: handle, vfs: vfs)
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
    }

    /// Runs `body` with the connection's busy timeout at zero, so that a lock another connection holds
    /// fails at once rather than after the timeout; puts the timeout back after.
    ///
    /// ```swift
    /// try database.withoutWaitingForLocks { try database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    /// ```
    func withoutWaitingForLocks<T>(_ body: () throws -> T) throws -> T {
        let timeout = try scalar("PRAGMA busy_timeout")?.integerValue ?? 5_000
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Int32(clamping: timeout)) }
        return try body()
    }

    /// Stops SQLite from keeping memory statistics in this process, so that its allocations take no
    /// global lock; returns whether it took effect (only before the first connection opens).
    ///
    /// Why: every allocation SQLite makes then locks a process-wide mutex to
    /// count it — about a tenth of a simulation's time. It changes the whole
    /// process (`sqlite3_memory_used()` reads 0 afterwards), so a library
    /// never calls it for an app; a tool that owns its process may, first thing.
    ///
    /// ```swift
    /// _ = Database.disableMemoryStatistics()   // in main, before any database opens
    /// ```
    @discardableResult
    public static func disableMemoryStatistics() -> Bool {
        concord_sqlite3_disable_memory_statistics() == SQLITE_OK
    }

    /// A private in-memory database.
    public static func inMemory(vfs: ReplicaVFS? = nil) throws -> Database {
        try Database(path: ":memory:", vfs: vfs)
    }

    /// The first 100 bytes of the main database file, SQLite's header, read through the connection's own
    /// VFS file; `nil` for a database with no file or no header yet.
    ///
    /// Why not SQL: the header says how the file is journaled (bytes 18 and 19: 1 rollback, 2 WAL), and
    /// a connection in WAL mode reads pages through the log, so only the file tells what a connection
    /// opened next will find.
    func fileHeader() -> [UInt8]? {
        var pointer: UnsafeMutableRawPointer?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer) == SQLITE_OK,
            let file = pointer?.assumingMemoryBound(to: sqlite3_file.self),
            let read = file.pointee.pMethods?.pointee.xRead
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: 100)
        let code = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, 100, 0) }
        return code == SQLITE_OK ? bytes : nil
    }

    /// Runs one or more SQL statements that take no parameters.
    ///
    /// Statements run one at a time, so an error names the one that failed, not the whole script.
    public func execute(_ sql: String) throws {
        var utf8 = Array(sql.utf8CString)
        try utf8.withUnsafeMutableBufferPointer { buffer in
            guard var rest = UnsafePointer(buffer.baseAddress) else { return }
            while rest.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let silencer = connection.silencer
                let mark = silencer.codingMark
                // What it deletes through watched triggers, noted as run even when the step fails midway.
                defer { silencer.ran(codedDeletes: silencer.codedDeletes(since: mark)) }
                let code = sqlite3_prepare_v2(handle, rest, -1, &statement, &tail)
                let text = tail.map {
                    String(decoding: UnsafeRawBufferPointer(start: rest, count: $0 - rest), as: UTF8.self)
                }
                guard code == SQLITE_OK else {
                    throw SQLiteError(
                        connection: handle, code: code, sql: text?.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                defer { sqlite3_finalize(statement) }
                if let statement {
                    // Caught around every step while silencing: a script runs rarely, so no need to know first
                    // whether it codes a watched delete (see ``Statement/step()``).
                    let catching = silencer.isSilencing && silencer.catcher.start(on: handle)
                    var step = sqlite3_step(statement)
                    while step == SQLITE_ROW { step = sqlite3_step(statement) }
                    if catching {
                        silencer.catcher.stop(on: handle)
                        try silencer.deliverCaught(failed: step != SQLITE_DONE)
                    }
                    guard step == SQLITE_DONE else {
                        throw SQLiteError(
                            connection: handle, code: step, sql: text?.trimmingCharacters(in: .whitespacesAndNewlines))
                    }
                }
                guard let tail, tail != rest else { return }
                rest = tail
            }
        }
    }

    /// Runs one statement with bound parameters.
    public func execute(_ sql: String, _ values: [SQLiteValue]) throws {
        try cached(sql).run(values)
    }

    /// Prepares a statement the caller owns.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// A prepared statement kept for reuse; for SQL that runs many times.
    ///
    /// Keyed by the SQL's bytes: two statements that differ only in how a name
    /// is spelled in Unicode (`é` precomposed or not) are two statements to
    /// SQLite, though Swift strings call them equal.
    public func cached(_ sql: String) throws -> Statement {
        let key = SQLiteName.Key(sql)
        if let statement = statementCache[key] { return statement }
        let statement = try prepare(sql)
        statementCache[key] = statement
        return statement
    }

    /// `statement`, or a fresh copy of it while it is mid-run.
    ///
    /// Why: a kept statement (``cached(_:)``, a store's own) may be under iteration by a caller up the
    /// stack, as when a fold runs inside an export's row callback; binding it again would reset that run.
    ///
    /// ```swift
    /// let rows = try database.idle(database.cached("SELECT seq FROM log ORDER BY seq"))
    /// ```
    func idle(_ statement: Statement) throws -> Statement {
        statement.isRunning ? try prepare(statement.sql) : statement
    }

    /// Every row of a query.
    public func query(_ sql: String, _ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try cached(sql).all(values)
    }

    /// The first column of the first row, or `nil` when there is no row.
    public func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? statement.column(0) : nil
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open on this connection.
    public var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Nested calls become savepoints, so a failing inner step undoes only itself
    /// while the caller decides about the rest.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction("BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a deferred transaction, so every read sees one snapshot.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction("BEGIN DEFERRED", body)
    }

    private func transaction<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        if inTransaction { return try savepoint(body) }
        try control(begin)
        do {
            let result = try body()
            try control("COMMIT")
            return result
        } catch {
            try? control("ROLLBACK")
            throw error
        }
    }

    /// How a transaction whose body decides its own outcome ends.
    public enum TransactionEnd: Sendable {
        /// Keep what the body wrote.
        case commit
        /// Undo what the body wrote, as if it never ran.
        case rollBack
    }

    /// Runs `body` in a transaction (a savepoint when one is open) that ends as `body` says:
    /// committed or rolled back — and rolled back when it throws.
    ///
    /// ```swift
    /// try database.tentativeTransaction { try changedAnything() ? .commit : .rollBack }
    /// ```
    ///
    /// Rolled back at the top level, a transaction leaves the file untouched, byte for byte (a
    /// committed one that changed nothing may still rewrite the header's change counter).
    public func tentativeTransaction(_ body: () throws -> TransactionEnd) throws {
        let nested = inTransaction
        if nested { savepointDepth += 1 }
        defer { if nested { savepointDepth -= 1 } }
        let name = "concord_sp\(savepointDepth)"
        let (begin, commit, rollBack) =
            nested
            ? ("SAVEPOINT \(name)", ["RELEASE \(name)"], ["ROLLBACK TO \(name)", "RELEASE \(name)"])
            : ("BEGIN IMMEDIATE", ["COMMIT"], ["ROLLBACK"])
        try control(begin)
        let end: TransactionEnd
        do {
            end = try body()
        } catch {
            for statement in rollBack { try? control(statement) }
            throw error
        }
        for statement in end == .commit ? commit : rollBack { try control(statement) }
    }

    /// Runs `body` inside a savepoint, released on success and rolled back on error.
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "concord_sp\(savepointDepth)"
        try control("SAVEPOINT \(name)")
        do {
            let result = try body()
            try control("RELEASE \(name)")
            return result
        } catch {
            try? control("ROLLBACK TO \(name)")
            try? control("RELEASE \(name)")
            throw error
        }
    }

    /// Commits the open transaction and begins another, for a test that plants a crash-unsafe write
    /// order; inside a savepoint (an app's transaction around the operation) there is nothing to split.
    @_spi(Testing) public func commitAndBeginAgain() throws {
        guard savepointDepth == 0 else { return }
        precondition(inTransaction, "only an open transaction can be split")
        try control("COMMIT")
        try control("BEGIN IMMEDIATE")
    }

    /// Runs a transaction-control statement (`BEGIN`, `COMMIT`, `SAVEPOINT` ...), kept prepared: a sync opens
    /// several transactions and savepoints, and compiling each again would cost more than running it.
    private func control(_ sql: String) throws {
        try cached(sql).run()
    }

    /// The identity of the main database file — its device and inode, as `"device:inode"` — or
    /// `nil` for an in-memory or temporary database.
    ///
    /// A copy of the file (`cp`, a restored backup, `VACUUM INTO`) has another
    /// identity, while renaming or moving it within a file system keeps it.
    public var fileIdentity: String? { filePath.flatMap(Self.deviceAndInode(of:)) }

    /// The absolute path of the main database file, or `nil` for an in-memory or temporary database.
    public var filePath: String? {
        guard let name = sqlite3_db_filename(handle, "main"), name.pointee != 0 else { return nil }
        return String(cString: name)
    }

    /// How many names (hard links) the file at `path` has, or `nil` when it cannot be read.
    public static func linkCount(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_nlink)
    }

    /// `"device:inode"` of the file at `path`, or `nil` when it cannot be read.
    public static func deviceAndInode(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino)"
    }

    /// Whether the connection enforces foreign keys: what `PRAGMA foreign_keys` reads.
    ///
    /// Read through `sqlite3_db_config`, not SQL: SQLite compiles every PRAGMA to run once, so a cached
    /// `PRAGMA foreign_keys` is compiled again each time it runs, and Concord asks before every fold.
    public var enforcesForeignKeys: Bool {
        get throws {
            let enabled = concord_sqlite3_foreign_keys_enabled(handle)
            guard enabled >= 0 else {
                throw SQLiteError(connection: handle, code: SQLITE_ERROR, sql: "PRAGMA foreign_keys")
            }
            return enabled == 1
        }
    }

    /// The collation a column of a table in the main schema is declared with (`BINARY` when none is).
    public func columnCollation(table: String, column: String) throws -> String {
        var collation: UnsafePointer<CChar>?
        let code = sqlite3_table_column_metadata(handle, "main", table, column, nil, &collation, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: handle, code: code, sql: nil)
        }
        return collation.map { String(cString: $0) } ?? "BINARY"
    }

    /// The SQLite library version, such as `3.40.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// The SQLite library version as one number, such as `3040001` for 3.40.1.
    public static var libraryVersionNumber: Int { Int(sqlite3_libversion_number()) }
}

/// A database file could not be opened.
public struct DatabaseOpenError: Error, CustomStringConvertible {
    /// The path the connection was asked to open.
    public let path: String
    /// What SQLite reported.
    public let underlying: SQLiteError
    /// The system's error number behind it (`errno`), 0 when none was recorded.
    public var systemError: Int32 = 0

    /// The path, SQLite's message and code, and what to check: the process's limit on open files when
    /// the system said it ran out of them (a `sync` of many replicas holds each open), else the path.
    public var description: String {
        let opened = "cannot open database '\(path)': \(underlying.message) (SQLite error \(underlying.code)); "
        guard systemError != EMFILE && systemError != ENFILE else {
            return opened + "the process has too many files open (\(String(cString: strerror(systemError)))); "
                + "raise the limit (`ulimit -n`) or open fewer databases at once"
        }
        return opened + "check that the path exists and is readable"
    }
}

/// Quotes an SQL identifier: `my "table"` becomes `"my ""table"""`.
public func quoteIdentifier(_ name: String) -> String {
    "\"" + doubling(UInt8(ascii: "\""), in: name) + "\""
}

/// `text` with every `quote` doubled, as SQL escapes a quote inside quotes.
///
/// Concord quotes names every time it builds SQL, and most names hold no
/// quote: those come back as they are, without Foundation's search.
func doubling(_ quote: UInt8, in text: String) -> String {
    guard text.utf8.contains(quote) else { return text }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 2)
    for byte in text.utf8 {
        bytes.append(byte)
        if byte == quote { bytes.append(quote) }
    }
    // A quote is one ASCII byte, never part of a longer UTF-8 sequence: the result is as valid as `text`.
    return String(decoding: bytes, as: UTF8.self)
}
