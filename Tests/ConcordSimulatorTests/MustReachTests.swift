import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordSimulator

/// A scenario's `mustReach`: read by name, unknown names refused, and a batch missing one is told so.
@Suite("Scenarios' mustReach", .tags(.simulation), .timeLimit(.hangGuard))
struct MustReachTests {
    private func decode(_ json: String) throws -> Scenario {
        try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
    }

    @Test func namesAreReadInTheOrderListed() throws {
        let scenario = try decode(#"{"name": "x", "mustReach": ["torn-write", "fork"]}"#)
        #expect(scenario.mustReach == [.tornWrite, .fork])
        #expect(try decode(#"{"name": "x"}"#).mustReach == nil)
    }

    @Test func anUnknownNameIsRefusedNamingTheValidOnes() throws {
        let error = #expect(throws: ScenarioError.self) {
            try decode(#"{"name": "x", "mustReach": ["torn-writes"]}"#)
        }
        #expect(error?.message.hasPrefix("unknown coverage event 'torn-writes'; the events are cascade, ") == true)
        #expect(error?.message.contains("torn-write, reordered-write") == true)
    }

    /// No hostile peer ever sends anything at the default rate of 0, so no run can reach hostile-accepted.
    @Test func aBatchWhereNoRunReachedAListedEventFails() throws {
        var scenario = Scenario(name: "unreachable", devices: 2, steps: 30)
        scenario.mustReach = [.hostileAccepted, .clockJump]
        let results = try SimulationBatch(scenarios: [scenario], seeds: 1...2, jobs: 2).run()
        #expect(results.allSatisfy { $0.passed })
        let unreached = scenario.unreached(in: results)
        #expect(unreached.first == .hostileAccepted)
        #expect(unreached.contains(.clockJump) == !results.contains { $0.coverage[.clockJump] > 0 })
        #expect(scenario.unreached(in: []) == [.hostileAccepted, .clockJump], "no run reached anything")
        var other = scenario
        other.name = "other"
        #expect(other.unreached(in: results) == [.hostileAccepted, .clockJump], "runs count for their own scenario")
    }

    /// A reproducer written before mustReach existed, and a scenario without it, encode without the key.
    @Test func aScenarioWithoutMustReachEncodesAsBefore() throws {
        let json = String(decoding: try JSONEncoder().encode(Scenario(name: "x")), as: UTF8.self)
        #expect(!json.contains("mustReach"))
    }
}
