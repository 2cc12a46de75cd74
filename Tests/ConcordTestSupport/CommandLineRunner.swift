import Foundation
import Testing

/// The `concord` executable SwiftPM built next to this test bundle, or the one `CONCORD_EXECUTABLE` names
/// (to run the black-box tests against another build, such as an earlier release).
public let concordExecutable: URL = {
    if let path = ProcessInfo.processInfo.environment["CONCORD_EXECUTABLE"] { return URL(fileURLWithPath: path) }
    let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = bundle.deletingLastPathComponent()
    // On Linux the runner is `<build>/<Package>PackageTests.xctest`; the tool sits beside it.
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("concord").path),
        directory.path != "/"
    {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("concord")
}()

/// What one run of the tool printed and returned.
public struct ToolRun {
    public var status: Int32
    public var output: Data
    public var errors: String
    public var text: String { String(decoding: output, as: UTF8.self) }
}

/// Runs `concord` with `arguments`, feeding `input` on standard input; `environment` adds to (or overrides) this process's.
@discardableResult
public func concord(
    _ arguments: [String], input: Data = Data(), environment: [String: String] = [:],
    in directory: TemporaryDirectory
) throws -> ToolRun {
    let process = Process()
    process.executableURL = concordExecutable
    process.arguments = arguments
    process.currentDirectoryURL = directory.url
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
    }
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    // Drain both pipes while the tool runs, so a full pipe never blocks it.
    let errors = PipeReader(stderr)
    // A tool that exits before reading its input fails the write; its status and errors say why.
    try? stdin.fileHandleForWriting.write(contentsOf: input)
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ToolRun(
        status: process.terminationStatus, output: output, errors: String(decoding: errors.wait(), as: UTF8.self))
}

/// Runs `concord` and records an issue unless it exits 0.
@discardableResult
public func concordOK(
    _ arguments: String..., input: Data = Data(), in directory: TemporaryDirectory,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ToolRun {
    try concordOK(arguments, input: input, in: directory, sourceLocation: sourceLocation)
}

/// Runs `concord` with an argument list and records an issue unless it exits 0.
@discardableResult
public func concordOK(
    _ arguments: [String], input: Data = Data(), in directory: TemporaryDirectory,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ToolRun {
    let run = try concord(arguments, input: input, in: directory)
    #expect(
        run.status == 0, "concord \(arguments.joined(separator: " ")) exited \(run.status): \(run.errors)",
        sourceLocation: sourceLocation)
    return run
}

/// Reads a pipe to its end on a background thread.
private final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        Thread.detachNewThread { [self] in
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// The SHA-free fingerprint tests use to say "byte-identical": the file's bytes.
public func fileBytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

/// Replicas `a.db` (holding `rows` reminders) and `b.db` (empty), both enabled with the tool itself and never synced.
public func twoReminderReplicas(rows: Int) throws -> TemporaryDirectory {
    let directory = TemporaryDirectory()
    for name in ["a.db", "b.db"] {
        try sqlite3Shell(directory.path(name), "CREATE TABLE reminders (id TEXT PRIMARY KEY, title TEXT);")
        try concordOK("enable", name, "--table", "reminders", in: directory)
    }
    try sqlite3Shell(
        directory.path("a.db"),
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) "
            + "INSERT INTO reminders SELECT 'r' || i, 'title ' || i FROM n;")
    return directory
}
