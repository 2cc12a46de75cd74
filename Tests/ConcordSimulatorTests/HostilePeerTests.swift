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

    /// A forger impersonating `writer` towards `receiver`.
    static func forger(_ writer: SimulatedDevice, _ receiver: SimulatedDevice) throws -> HostilePeer {
        HostilePeer(
            genuine: try writer.replica.changes(since: 0), nodes: [writer.node, receiver.node],
            receiver: receiver.node, versions: [try writer.replica.version, try receiver.replica.version],
            now: Simulation.start, maxDrift: 60_000)
    }

    @Test func aChangesetOfANewerFormatIsRefusedNamingTheReleaseItNeeds() throws {
        let (writer, receiver) = try Self.devices()
        let forger = try Self.forger(writer, receiver)
        var forms: Set<ChangesetMutator.Format> = []
        for seed in 0..<16 as Range<UInt64> {
            var source = ChoiceSource(seed: seed)
            let forgery = try forger.forge(.newerFormat, as: .binary, using: &source)
            forms.insert(forgery.form)
            let error = #expect(throws: ChangesetError.self) { try Changeset.decode(anyFormat: forgery.bytes) }
            let refusal = try #require(forgery.refusal)
            #expect(error.map { refusal.problem(with: $0) } == .some(nil), "\(String(describing: error))")
            #expect("\(error!)".contains(HostilePeer.futureRelease))
            // Another refusal is not the one expected: damaged bytes would not tell the user what to install.
            #expect(refusal.problem(with: ChangesetError.notAChangeset(prefix: [])) != nil)
            #expect(
                refusal.problem(
                    with: ChangesetError.unsupportedVersion(
                        found: UInt64(Changeset.formatVersion) + 1, supported: [1, 2, 3], needs: nil)) != nil)
        }
        #expect(forms == [.binary, .json], "both forms, whatever form the wire would have used")
    }

    @Test func aChangesetCutShortIsRefusedAsCutShortWhereverItEnds() throws {
        let (writer, receiver) = try Self.devices()
        let forger = try Self.forger(writer, receiver)
        var lengths: Set<Int> = []
        for seed in 0..<60 as Range<UInt64> {
            var source = ChoiceSource(seed: seed)
            let forgery = try forger.forge(.cutShort, as: .binary, using: &source)
            lengths.insert(forgery.bytes.count)
            let refusal = try #require(forgery.refusal)
            do {
                _ = try Changeset.decode(anyFormat: forgery.bytes)
                Issue.record("seed \(seed): \(forgery.what) decoded")
            } catch {
                #expect(refusal.problem(with: error) == nil, "seed \(seed): \(forgery.what)")
            }
        }
        #expect(lengths.contains { $0 < 4 } && lengths.contains { $0 > 40 }, "\(lengths.sorted())")
    }

    @Test func aSetNotWrittenCanonicallyIsStoredAsItsCanonicalArray() throws {
        #expect(HostilePeer.unsorted(.text(#"["a","b"]"#)) == .text(#"[ "a","b"]"#))
        #expect(HostilePeer.unsorted(.text("[]")) == .text("[ ]"))
        #expect(HostilePeer.unsorted(.text(#"["b","a","b"]"#)) == .text(#"["b","a","b"]"#))
        var source = ChoiceSource(seed: 17)
        for _ in 0..<200 {
            let set = HostilePeer.unsorted(Gen.unionArray.generate(using: &source))
            #expect(UnionValue.canonical(set) != set, "\(set) is canonical")
        }

        let schema = "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, tags TEXT)"
        let peer = try Replica(database: .inMemory())
        try peer.database.execute(schema)
        try peer.enableSync(on: "items", merges: ["tags": .union])
        try peer.database.execute(#"INSERT INTO items VALUES ('i1', '["a"]')"#)
        let peers = [NodeID(bytes: Array(repeating: 0xAB, count: NodeID.byteCount))!, peer.nodeID]
        let receiver = try Replica(database: .inMemory())
        try receiver.database.execute(schema)
        try receiver.enableSync(on: "items", merges: ["tags": .union])
        let forger = HostilePeer(
            genuine: try peer.changes(since: 0), nodes: peers, receiver: receiver.nodeID, versions: [0, 1],
            now: 0, maxDrift: 60_000)
        let forgery = try forger.forge(.unsortedUnion, as: .binary, using: &source)
        let forged = try Changeset.decode(anyFormat: forgery.bytes)
        let sent = try #require(forged.rows.first?.registers.columns.compactMap { $0 }.first?.value)
        #expect(UnionValue.canonical(sent) != sent, "\(forgery.what)")
        _ = try receiver.apply(forged)
        #expect(try receiver.database.scalar("SELECT tags FROM items") == UnionValue.canonical(sent))
        #expect(try receiver.check().isConsistent)
    }

    @Test func aCounterStrippedOfItsContributionsCountsForNothingAndIsPassedOnReadably() throws {
        let schema = "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, taps INTEGER NOT NULL DEFAULT 0)"
        let (peer, receiver) = (try Replica(database: .inMemory()), try Replica(database: .inMemory()))
        for replica in [peer, receiver] {
            try replica.database.execute(schema)
            try replica.enableSync(on: "items", merges: ["taps": .counter])
        }
        try peer.database.execute("INSERT INTO items VALUES ('i1', 5)")
        let forger = HostilePeer(
            genuine: try peer.changes(since: 0), nodes: [peer.nodeID], receiver: receiver.nodeID, versions: [1],
            now: 0, maxDrift: 60_000)
        var source = ChoiceSource(seed: 3)
        let forgery = try forger.forge(.counterWithoutContributions, as: .json, using: &source)
        let forged = try Changeset.decode(anyFormat: forgery.bytes)
        #expect(forged.rows.first?.registers.columns.first??.contributions == [], "\(forgery.what)")
        _ = try receiver.apply(forged)
        #expect(try receiver.database.scalar("SELECT taps FROM items") == .integer(0))
        #expect(try receiver.check().isConsistent)
        let passedOn = try receiver.changes(since: 0)
        for form in ChangesetMutator.Format.allCases {
            #expect(try Wire.decode(try Wire.encode(passedOn, as: form), as: form, expecting: passedOn) == passedOn)
        }
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

    @Test func jsonMessagesReadAlikeAfterAByteOrderMarkOrWhitespace() throws {
        let changes = try Self.devices().writer.replica.changes(since: 0)
        var leads: Set<[UInt8]> = []
        for padding in 0..<5 {
            // Trailing blanks (which JSON allows) change the length, and so the lead.
            let json = changes.jsonData() + Array(repeating: UInt8(ascii: " "), count: padding)
            let sent = Wire.lead(json)
            leads.insert(Array(sent.prefix(sent.count - json.count)))
            #expect(try Changeset.decode(anyFormat: sent) == changes)
        }
        #expect(leads.count == 5, "every lead: none, blanks, a byte-order mark, and both")
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
