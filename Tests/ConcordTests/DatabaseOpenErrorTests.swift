import Foundation
import Testing

@testable import Concord

/// A file that cannot be opened is named with what to check: the path, or the process's limit on open
/// files when the system ran out of them (a `sync` of many replicas holds each one open).
@Suite(.tags(.replica))
struct DatabaseOpenErrorTests {
    @Test func aMissingFolderNamesThePathAndRunningOutOfFilesNamesTheLimit() throws {
        let error = try openError { try Database(path: "/no/such/folder/a.db", mode: .readWrite) }
        #expect(error.systemError == ENOENT)
        #expect(error.description.hasPrefix("cannot open database '/no/such/folder/a.db': "))
        #expect(error.description.hasSuffix("check that the path exists and is readable"))
        var exhausted = error
        exhausted.systemError = EMFILE
        #expect(exhausted.description.contains("too many files open"))
        #expect(exhausted.description.hasSuffix("raise the limit (`ulimit -n`) or open fewer databases at once"))
    }
}

/// The ``DatabaseOpenError`` `body` throws.
private func openError(_ body: () throws -> Database) throws -> DatabaseOpenError {
    do {
        _ = try body()
    } catch let error as DatabaseOpenError {
        return error
    }
    Issue.record("the database opened")
    throw CancellationError()
}
