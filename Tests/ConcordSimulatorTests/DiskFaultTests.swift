import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

/// Devices on simulated disks: power losses with torn and reordered writes, power failing inside
/// operations, and forks that copy the database file.
@Suite("Disk faults", .tags(.simulation, .slow), .timeLimit(.hangGuard))
struct DiskFaultTests {
    /// A scenario that crashes and forks often, mostly by cutting the power, often mid-operation.
    static func scenario(_ topology: Scenario.Topology) -> Scenario {
        var scenario = Scenario(name: "disk-faults", topology: topology, steps: 80)
        scenario.faults.crash = [20, 30]
        scenario.faults.fork = [3, 5]
        scenario.faults.powerLoss = [80, 100]
        scenario.faults.tornWrite = [50, 100]
        scenario.faults.reorder = [50, 100]
        scenario.faults.midOperation = [40, 80]
        scenario.faults.restore = [30, 60]
        return scenario
    }

    /// High crash, power-loss and fork rates run clean, and the faults fire.
    @Test(arguments: Scenario.Topology.allCases)
    func highCrashAndForkRatesRunClean(topology: Scenario.Topology) throws {
        var results: [SimulationResult] = []
        for seed in 1...4 as ClosedRange<UInt64> {
            let result = try Simulation(scenario: Self.scenario(topology), seed: seed).run()
            #expect(result.passed, "seed \(seed): \(result.failureDescription)")
            results.append(result)
        }
        func total(_ count: KeyPath<SimulationResult, Int>) -> Int { results.reduce(0) { $0 + $1[keyPath: count] } }
        #expect(total(\.powerLosses) > 10 && total(\.powerLossesWithUnsyncedWrites) > 0)
        #expect(total(\.midOperationCrashes) > 0 && total(\.forks) > 0 && total(\.restores) > 0)
    }

    /// The same seed gives the same trace and the same bytes in every device's database file.
    @Test(arguments: Scenario.Topology.allCases)
    func theSameSeedGivesTheSameTraceAndFiles(topology: Scenario.Topology) throws {
        let simulation = Simulation(scenario: Self.scenario(topology), seed: 5)
        let first = TemporaryDirectory()
        let second = TemporaryDirectory()
        let a = try simulation.run(simulation.plan().plan, in: first.url)
        let b = try simulation.run(simulation.plan().plan, in: second.url)
        #expect(a == b && a.powerLosses > 0)
        #expect(a.databaseFilesHash == b.databaseFilesHash && !a.databaseFilesHash.isEmpty)
        for device in 0..<3 {
            let name = "device-\(device).sqlite"
            #expect(
                try Data(contentsOf: first.url.appendingPathComponent(name))
                    == Data(contentsOf: second.url.appendingPathComponent(name)), "\(name) differs")
        }
    }
}
