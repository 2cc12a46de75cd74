import Concord
import ConcordTesting

/// What one fuzz input did to the replica: refused with a reason, or accepted.
///
/// Both are fine; what is not fine is a ``FuzzFinding``. The reason of a
/// refusal is a short, stable key for counting (`changeset.malformed.varintTooLong`,
/// `replica.tableNotSynced`, `clockDrift`), and the message is the error's
/// full text, which a person reads.
///
/// ```swift
/// switch try fuzzer.run(fuzzer.input(at: 7)) {
/// case .refused(let reason, _): counts[reason, default: 0] += 1
/// case .accepted(let applied, _): print("merged \(applied) rows")
/// }
/// ```
public enum FuzzOutcome: Sendable, Hashable {
    /// The replica refused the input: `reason` is the counting key (``reason(of:)``), `message` the error's text.
    case refused(reason: String, message: String)
    /// The replica applied the input: its `ApplyReport`'s counts.
    case accepted(applied: Int, ignored: Int)

    /// The counting key of a refusal's error: its type and case (and, for a malformed changeset, the rule it broke).
    public static func reason(of error: any Error) -> String {
        switch error {
        case let error as ChangesetError:
            if case .malformed(_, _, let reason) = error { return "changeset.malformed." + caseName(reason) }
            return "changeset." + caseName(error)
        case let error as ReplicaError:
            return "replica." + caseName(error)
        case is ClockDriftError:
            return "clockDrift"
        case let error as SQLiteError:
            return "sqlite.\(error.code)"
        default:
            return "other." + String(describing: type(of: error))
        }
    }

    /// An enum case's name: the label reflection gives a case with a payload, a table for the few without.
    private static func caseName(_ value: Any) -> String {
        if let reason = value as? ChangesetError.Reason, let name = payloadFreeReasons[reason] { return name }
        if let label = Mirror(reflecting: value).children.first?.label { return label }
        return String(describing: value).prefix(40).split(separator: " ").joined(separator: "-")
    }

    private static let payloadFreeReasons: [ChangesetError.Reason: String] = [
        .invalidUTF8: "invalidUTF8", .emptyIdentifier: "emptyIdentifier",
        .identifierContainsNUL: "identifierContainsNUL",
        .nullKey: "nullKey", .notANumber: "notANumber", .varintTooLong: "varintTooLong",
        .nonMinimalVarint: "nonMinimalVarint", .invalidHex: "invalidHex",
        .contributionWithoutStamp: "contributionWithoutStamp",
    ]
}

/// A broken promise: an input that changed the file although it was refused, left the replica
/// inconsistent, was not idempotent, or left a journal behind.
///
/// The fuzzer throws it instead of an outcome; it names the input (its index
/// under the run's seed, its form and route, the edits that made it) so the
/// input can be regenerated and saved as a reproducer.
///
/// ```swift
/// do { _ = try fuzzer.run(input) } catch let finding as FuzzFinding { print(finding) }
/// ```
public struct FuzzFinding: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input's index under the fuzzer's seed (`nil` for an input given as bytes).
    public var index: Int?
    /// The input's bytes, form and edits.
    public var mutant: ChangesetMutator.Mutant
    /// How the input reached the replica.
    public var route: ChangesetFuzzer.Route
    /// What went wrong, for a person.
    public var problem: String

    /// A finding about this input.
    public init(index: Int?, mutant: ChangesetMutator.Mutant, route: ChangesetFuzzer.Route, problem: String) {
        self.index = index
        self.mutant = mutant
        self.route = route
        self.problem = problem
    }

    /// Which input (by index when it has one), its mutant and route, and the problem.
    public var description: String {
        let which = index.map { "input \($0)" } ?? "the input"
        return "\(which) (\(mutant), applied through the \(route.rawValue) route): \(problem)"
    }
}

/// Outcome counts of a fuzz run; two runs with the same seed give equal summaries.
///
/// Counts are kept in dictionaries keyed by name; encode with sorted keys
/// (as `concord fuzz --json` does) for output that does not depend on
/// dictionary order.
///
/// ```swift
/// let summary = try fuzzer.run(inputs: 0..<1_000)
/// print(summary.accepted, summary.refusals.sorted { $0.key < $1.key })
/// ```
public struct FuzzSummary: Sendable, Hashable, Codable {
    /// The seed the inputs were drawn from.
    public var seed: UInt64
    /// Inputs run, findings included.
    public var inputs = 0
    /// Inputs the replica accepted.
    public var accepted = 0
    /// Accepted inputs that changed at least one register.
    public var acceptedChanging = 0
    /// Inputs the replica refused.
    public var refused = 0
    /// Inputs that broke the promise (`concord fuzz` adds those that trapped or hung a worker).
    public var findings = 0
    /// Refusals by ``FuzzOutcome/reason(of:)``.
    public var refusals: [String: Int] = [:]
    /// Inputs by form, by route, and by edit kind (an input counts once per kind it contains).
    public var formats: [String: Int] = [:]
    /// Inputs by ``ChangesetFuzzer/Route``'s raw value.
    public var routes: [String: Int] = [:]
    /// Inputs by the raw value of each kind of edit they contain, counted once per kind.
    public var kinds: [String: Int] = [:]

    /// An empty summary of a run under `seed`.
    public init(seed: UInt64) { self.seed = seed }

    /// Counts one input.
    public mutating func record(_ input: ChangesetFuzzer.Input, _ outcome: FuzzOutcome) {
        count(input)
        switch outcome {
        case .refused(let reason, _):
            refused += 1
            refusals[reason, default: 0] += 1
        case .accepted(let applied, _):
            accepted += 1
            if applied > 0 { acceptedChanging += 1 }
        }
    }

    /// Adds the counts of another run (of other inputs under the same seed).
    public mutating func add(_ other: FuzzSummary) {
        inputs += other.inputs
        accepted += other.accepted
        acceptedChanging += other.acceptedChanging
        refused += other.refused
        findings += other.findings
        refusals.merge(other.refusals, uniquingKeysWith: +)
        formats.merge(other.formats, uniquingKeysWith: +)
        routes.merge(other.routes, uniquingKeysWith: +)
        kinds.merge(other.kinds, uniquingKeysWith: +)
    }

    /// Counts one input that broke the promise.
    public mutating func recordFinding(_ input: ChangesetFuzzer.Input) {
        count(input)
        findings += 1
    }

    private mutating func count(_ input: ChangesetFuzzer.Input) {
        inputs += 1
        formats[input.mutant.format.rawValue, default: 0] += 1
        routes[input.route.rawValue, default: 0] += 1
        var seen = Set<ChangesetMutator.Kind>()
        for kind in input.mutant.kinds where seen.insert(kind).inserted { kinds[kind.rawValue, default: 0] += 1 }
    }
}
