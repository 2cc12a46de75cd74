import ConcordSimulator
import ConcordTesting
import Foundation

/// What `concord fuzz` prints: the outcome counts, the time, and every failure with its reproducer.
///
/// The counts come from the worker and depend only on the seed and the
/// inputs run; the time and rate are this machine's. `--json` prints the
/// same fields, keys sorted.
///
/// ```swift
/// let report = FuzzRunReport(summary: summary, first: 0, requested: 10_000, seconds: 3.2, complete: true, failures: [])
/// print(report.text)
/// ```
struct FuzzRunReport: Encodable {
    var summary: FuzzSummary
    /// The inputs asked for: `requested` of them from index `first`.
    var first: Int
    var requested: Int
    var seconds: Double
    /// Whether every input ran (false when a failure stopped the run).
    var complete: Bool
    var failures: [Failure]

    /// A trap, a hang, or a finding, and where its reproducer went.
    struct Failure: Encodable {
        /// `trap`, `hang` or `finding` (a broken promise that did not crash the worker).
        var kind: String
        var index: Int
        /// What went wrong, for a person.
        var message: String
        /// The reproducer's input file, and the base replica to apply it to.
        var reproducer: String?
        var database: String?
    }

    var inputsPerSecond: Double { Double(summary.inputs) / max(seconds, 0.000_001) }

    private enum CodingKeys: String, CodingKey {
        case seed, first, requested, inputs, accepted, acceptedChanging, refused, findings, refusals, formats, routes,
            kinds
        case seconds, inputsPerSecond, complete, failures
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(summary.seed, forKey: .seed)
        try container.encode(first, forKey: .first)
        try container.encode(requested, forKey: .requested)
        try container.encode(summary.inputs, forKey: .inputs)
        try container.encode(summary.accepted, forKey: .accepted)
        try container.encode(summary.acceptedChanging, forKey: .acceptedChanging)
        try container.encode(summary.refused, forKey: .refused)
        try container.encode(summary.findings, forKey: .findings)
        try container.encode(summary.refusals, forKey: .refusals)
        try container.encode(summary.formats, forKey: .formats)
        try container.encode(summary.routes, forKey: .routes)
        try container.encode(summary.kinds, forKey: .kinds)
        try container.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
        try container.encode(inputsPerSecond.rounded(), forKey: .inputsPerSecond)
        try container.encode(complete, forKey: .complete)
        try container.encode(failures, forKey: .failures)
    }

    /// The human-readable summary.
    var text: String {
        func count(_ dictionary: [String: Int]) -> String {
            dictionary.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        var lines = [
            (complete ? "\(summary.inputs) inputs" : "\(summary.inputs) of \(requested) inputs")
                + " (seed \(summary.seed), indices \(first)..<\(first + requested)"
                + (complete ? ")" : "; the run stopped at the first failure)")
                + String(format: " in %.2f s, %.0f inputs/s", seconds, inputsPerSecond),
            "accepted  \(summary.accepted) (\(summary.acceptedChanging) changed registers)",
            "refused   \(summary.refused)",
            "failed    \(summary.findings)"
                + (summary.findings > 0 ? " (findings, traps and hangs: see the errors below)" : ""),
        ]
        if !summary.refusals.isEmpty {
            lines.append("refusals by reason:")
            let width = String(summary.refusals.values.max() ?? 0).count
            for (reason, n) in summary.refusals.sorted(by: {
                $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
            }) {
                lines.append("  " + String(repeating: " ", count: width - String(n).count) + "\(n)  \(reason)")
            }
        }
        lines.append("by form: \(count(summary.formats)); by route: \(count(summary.routes))")
        return lines.joined(separator: "\n") + "\n"
    }
}
