import Foundation
import Testing

/// The environment variable that makes ``expectSnapshot(_:matches:sourceLocation:)`` rewrite
/// snapshot files instead of comparing with them.
public let updateSnapshotsVariable = "CONCORD_UPDATE_SNAPSHOTS"

/// Compares `actual` with the checked-in snapshot file at `url`, and records an issue that shows
/// the difference as a unified diff and says how to regenerate the file (`swift test --filter`
/// with `filter`, which names the test).
///
/// With `CONCORD_UPDATE_SNAPSHOTS=1` in the environment it writes `actual` to `url` instead (and
/// records an issue if that changed the file, so a run that rewrites snapshots never passes
/// silently); review the change with `git diff` and commit it with the change that caused it.
public func expectSnapshot(
    _ actual: String, matches url: URL, filter: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let existing = try? String(contentsOf: url, encoding: .utf8)
    let regenerate = "`\(updateSnapshotsVariable)=1 swift test --filter \(filter)`"
    if ProcessInfo.processInfo.environment[updateSnapshotsVariable] == "1" {
        guard existing != actual else { return }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record(
                """
                \(updateSnapshotsVariable)=1: wrote \(url.path). Review it with `git diff`, then run the test \
                again without the variable.
                """, sourceLocation: sourceLocation)
        } catch {
            Issue.record("cannot write the snapshot \(url.path): \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let existing else {
        Issue.record(
            """
            No snapshot at \(url.path). If the output is what you want, create it with: \(regenerate)
            """, sourceLocation: sourceLocation)
        return
    }
    guard existing != actual else { return }
    Issue.record(
        """
        The output differs from the snapshot \(url.lastPathComponent) (- snapshot, + now):
        \(unifiedDiff(existing, actual))
        If the change is deliberate, regenerate the snapshot with \(regenerate), check it with \
        `git diff`, and commit it with the change that caused it.
        """, sourceLocation: sourceLocation)
}

/// The lines that differ between `old` and `new`, as a unified diff with `context` lines around each change.
public func unifiedDiff(_ old: String, _ new: String, context: Int = 2) -> String {
    let a = old.components(separatedBy: "\n")
    let b = new.components(separatedBy: "\n")
    // Longest common subsequence, by suffix lengths.
    var lcs = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in stride(from: a.count - 1, through: 0, by: -1) {
        for j in stride(from: b.count - 1, through: 0, by: -1) {
            lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
        }
    }
    // The edit script: each line marked " " (in both), "-" (only in old) or "+" (only in new).
    var script: [(mark: Character, line: String)] = []
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
        if i < a.count, j < b.count, a[i] == b[j] {
            script.append((" ", a[i]))
            i += 1
            j += 1
        } else if i < a.count, j == b.count || lcs[i + 1][j] >= lcs[i][j + 1] {
            script.append(("-", a[i]))
            i += 1
        } else {
            script.append(("+", b[j]))
            j += 1
        }
    }
    // Keep the changes and `context` unchanged lines on either side; elide the rest.
    let changed = script.indices.filter { script[$0].mark != " " }
    var shown = Set<Int>()
    for index in changed { shown.formUnion(max(0, index - context)...min(script.count - 1, index + context)) }
    var lines: [String] = []
    var previous = -1
    var oldLine = 1
    var newLine = 1
    for (index, entry) in script.enumerated() {
        if shown.contains(index) {
            if previous == -1 || index != previous + 1 {
                lines.append("@@ snapshot line \(oldLine), now line \(newLine) @@")
            }
            lines.append("\(entry.mark)\(entry.line)")
            previous = index
        }
        if entry.mark != "+" { oldLine += 1 }
        if entry.mark != "-" { newLine += 1 }
    }
    return lines.joined(separator: "\n")
}
