@_spi(Simulation) import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

@Suite("Hostile peers and the wire", .tags(.simulation, .slow), .timeLimit(.hangGuard))
struct HostilePeerTests {
    /// A scenario where a fifth of the steps are hostile changesets.
    static func hostile(_ topology: Scenario.Topology) -> Scenario {
        var scenario = Scenario(name: "hostile-\(topology.rawValue)", topology: topology, steps: 100)
        scenario.faults.hostile = [20, 20]
        return scenario
    }

    /// Two devices of the reminders app, the first with a few rows written.
    static func devices() throws -> (writer: SimulatedDevice, receiver: SimulatedDevice) {
        let simulation = Simulation(scenario: .default, seed: 5)
        let workload = try Scenario.default.workload.resolved()
        let make = { (index: Int) in
            try SimulatedDevice(
                index: index, node: simulation.node(forDevice: index),
                durability: Durability(journalMode: .wal, synchronous: .full), skew: 0, drift: 0,
                time: Simulation.start, workload: workload, bugs: [])
        }
        let writer = try make(0)
        try writer.replica.database.execute(
            "INSERT INTO lists (id, name) VALUES ('l1', 'home'); "
                + "INSERT INTO reminders (id, list_id, title) VALUES ('r1', 'l1', 'call')")
        return (writer, try make(1))
    }

    @Test(arguments: Scenario.Topology.allCases)
    func aScenarioFullOfHostilePeersRunsClean(topology: Scenario.Topology) throws {
        var refused = 0
        var accepted = 0
        for seed in 1...4 as ClosedRange<UInt64> {
            let result = try Simulation(scenario: Self.hostile(topology), seed: seed).run()
            #expect(result.passed, "seed \(seed): \(result.failureDescription)")
            refused += result.hostileRefused
            accepted += result.hostileAccepted
        }
        #expect(refused > 0 && accepted > 0, "refused \(refused), accepted \(accepted)")
    }

    @Test func mutatedChangesetsAreRefusedWithTheFileByteIdentical() throws {
        let (writer, receiver) = try Self.devices()
        let mutator = try ChangesetMutator(seeds: [try writer.replica.changes(since: 0)])
        var refusals = 0
        for seed in 0..<40 as Range<UInt64> {
            var source = ChoiceSource(seed: seed)
            let mutant = mutator.mutant(using: &source)
            let before = receiver.disk.copy(of: receiver.path)
            do {
                _ = try receiver.replica.apply(try Changeset.decode(anyFormat: mutant.bytes))
            } catch {
                refusals += 1
                #expect(receiver.disk.copy(of: receiver.path) == before, "\(mutant)")
            }
        }
        #expect(refusals > 10)
        // The receiver goes on syncing: the genuine changeset still applies (some mutants may have been
        // accepted already, so it need not change anything) and the writer's rows are there.
        _ = try receiver.replica.apply(try writer.replica.changes(since: 0))
        #expect(try receiver.replica.registers(of: "lists", key: .text("l1")) != nil)
    }

    @Test(arguments: ChangesetMutator.Format.allCases)
    func messagesDecodedFromTheirBytesEqualWhatWasSent(form: ChangesetMutator.Format) throws {
        let changes = try Self.devices().writer.replica.changes(since: 0)
        #expect(!changes.rows.isEmpty)
        #expect(try Wire.decode(try Wire.encode(changes, as: form), as: form, expecting: changes) == changes)
        var other = changes
        other.upTo += 1
        #expect(throws: Wire.Mismatch.self) {
            try Wire.decode(try Wire.encode(changes, as: form), as: form, expecting: other)
        }
    }

    @Test func messagesTravelInBothForms() {
        for seed in 1...50 as ClosedRange<UInt64> {
            let forms = (1...8).map { Wire.form(seed: seed, message: $0) }
            #expect(forms.filter { $0 == .json }.count == 1, "seed \(seed): one message in eight is JSON")
        }
        #expect((1...20).map { Wire.form(seed: 3, message: $0) } == (1...20).map { Wire.form(seed: 3, message: $0) })
    }

    @Test(arguments: Scenario.Topology.allCases)
    func theSameSeedGivesTheSameTraceWithHostilePeers(topology: Scenario.Topology) throws {
        let simulation = Simulation(scenario: Self.hostile(topology), seed: 11, keepsTrace: true)
        let first = try simulation.run()
        let second = try simulation.run()
        #expect(first.trace == second.trace && first.traceHash == second.traceHash)
        #expect(first.dumpHash == second.dumpHash)
        #expect(first.hostileRefused + first.hostileAccepted > 0)
    }
}
