import ConcordSimulator
import ConcordTesting
import Foundation

/// `concord fuzz --replay FILE`: one input against a fresh base replica, through every route, with every check.
///
/// A reproducer names an input the fuzzer ran against its own base replica,
/// with its fixed clock; `concord import` on a copy of that replica uses the
/// system clock instead, so a stamp near the drift limit may fare
/// differently. Replaying runs the input exactly as the fuzzer did, through
/// each route in turn, and exits 1 if any route breaks the promise.
///
/// ```swift
/// try FuzzReplay(path: "concord-fuzz-1-37.bin").run(json: false, output: &output)
/// ```
struct FuzzReplay {
    let path: String

    /// What one route did with the input.
    struct RouteResult: Encodable {
        var route: String
        /// `refused`, `accepted` or `finding`.
        var outcome: String
        var reason: String?
        var message: String?
        var applied: Int?
        var ignored: Int?
    }

    private struct Report: Encodable {
        var file: String
        var format: String
        var routes: [RouteResult]
    }

    func run(json: Bool, output: inout Output) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let start = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        let format: ChangesetMutator.Format = start == UInt8(ascii: "{") ? .json : .binary
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("concord-fuzz-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let fuzzer = try ChangesetFuzzer(seed: 0, directory: scratch)
        let routes: [ChangesetFuzzer.Route] = format == .json ? [.memory, .file] : [.memory, .file, .stream]
        var results: [RouteResult] = []
        for route in routes {
            let mutant = ChangesetMutator.Mutant(bytes: bytes, format: format, kinds: [], seed: -1)
            var result = RouteResult(route: route.rawValue, outcome: "finding")
            do {
                switch try fuzzer.run(ChangesetFuzzer.Input(index: nil, mutant: mutant, route: route)) {
                case .refused(let reason, let message):
                    (result.outcome, result.reason, result.message) = ("refused", reason, message)
                case .accepted(let applied, let ignored):
                    (result.outcome, result.applied, result.ignored) = ("accepted", applied, ignored)
                }
            } catch let finding as FuzzFinding {
                result.message = finding.problem
            }
            results.append(result)
        }
        if json {
            try output.printJSON(Report(file: path, format: format.rawValue, routes: results))
        } else {
            print("\(path) (\(format.rawValue), \(bytes.count) bytes) against the fuzzer's base replica:", to: &output)
            for result in results {
                let detail =
                    switch result.outcome {
                    case "refused": "refused (\(result.reason ?? "")): \(result.message ?? "")"
                    case "accepted": "accepted: applied \(result.applied ?? 0), ignored \(result.ignored ?? 0)"
                    default: "FINDING: \(result.message ?? "")"
                    }
                print("  \(result.route): \(detail)", to: &output)
            }
        }
        if results.contains(where: { $0.outcome == "finding" }) { throw ExitCode.failure }
    }
}
