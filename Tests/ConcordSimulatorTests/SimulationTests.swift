import Concord
import Foundation
import Testing
@testable import ConcordSimulator

@Suite("Multi-device simulation")
struct SimulationTests {
    /// A sweep of seeds: every run keeps every invariant at every step and converges.
    @Test(arguments: 1...24 as ClosedRange<UInt64>)
    func seedsConverge(seed: UInt64) throws {
        let result = try Simulation(seed: seed, configuration: .init(devices: 3, steps: 150)).run()
        #expect(result.failure == nil, "seed \(seed): \(result.failure ?? "")")
        #expect(result.converged, "seed \(seed) did not converge")
        #expect(result.writes > 0 && result.messagesSent > 0, "seed \(seed) exercised nothing")
    }

    @Test func theSameSeedGivesTheSameTraceAndTheSameBytes() throws {
        let first = TemporaryFolder(), second = TemporaryFolder()
        let a = try Simulation(seed: 42, configuration: .init(devices: 3, steps: 120)).run(in: first.url)
        let b = try Simulation(seed: 42, configuration: .init(devices: 3, steps: 120)).run(in: second.url)
        #expect(a == b)
        for index in 0..<3 {
            let name = "device-\(index).sqlite"
            #expect(try Data(contentsOf: first.url.appendingPathComponent(name))
                    == Data(contentsOf: second.url.appendingPathComponent(name)), "\(name) differs")
        }
        let other = try Simulation(seed: 43, configuration: .init(devices: 3, steps: 120)).run()
        #expect(other.traceHash != a.traceHash)
    }
}

/// A fresh folder, removed when released.
final class TemporaryFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("concord-sim-test-\(UUID().uuidString)")
    init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
}
