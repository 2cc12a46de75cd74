import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// The mutator is a pure function of its seeds and its choices, and reaches every kind of edit.
@Suite(.tags(.concordTesting, .fuzz))
struct ChangesetMutatorTests {
    /// Two peers' changes to a table with every kind of column the edits care about:
    /// text, a counter (contributions), a union, and a real `max` column (real bits).
    static func seeds() throws -> [Changeset] {
        let clock = ManualClock(unixMilliseconds: 1_767_225_600_000)
        let schema = """
            CREATE TABLE cards (id TEXT PRIMARY KEY NOT NULL, title TEXT, likes INTEGER NOT NULL DEFAULT 0,
                                tags TEXT, score REAL);
            """
        var replicas: [Replica] = []
        for byte: UInt8 in [0x0A, 0x0B] {
            let replica = try Replica.inMemory(
                configuration: Replica.Configuration(
                    clock: clock, makeNodeID: { NodeID(bytes: Array(repeating: byte, count: 16))! }))
            try replica.database.execute(schema)
            try replica.enableSync(on: "cards", merges: ["likes": .counter, "tags": .union, "score": .max])
            replicas.append(replica)
        }
        clock.advance(by: 10)
        try replicas[0].database.execute(
            """
            INSERT INTO cards VALUES ('c1', 'one', 1, '["a"]', 1.5), ('c2', 'two', 0, NULL, -0.0), ('c3', 'three', 2, '[]', 3);
            """)
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[1].database.execute(
            "UPDATE cards SET likes = likes + 5, score = 9.5 WHERE id = 'c1'; DELETE FROM cards WHERE id = 'c2'")
        return [try replicas[0].changes(since: 0), try replicas[1].changes(since: 0)]
    }

    static func mutants(_ mutator: ChangesetMutator, seed: UInt64, count: Int) -> [ChangesetMutator.Mutant] {
        (0..<count).map { index in
            var source = ChoiceSource(seed: seed &+ UInt64(index), maxChoices: 1 << 20)
            return mutator.mutant(using: &source)
        }
    }

    @Test func theSameSeedGivesTheSameMutants() throws {
        let mutator = try ChangesetMutator(seeds: Self.seeds())
        let first = Self.mutants(mutator, seed: 42, count: 200)
        #expect(first == Self.mutants(try ChangesetMutator(seeds: Self.seeds()), seed: 42, count: 200))
        #expect(first != Self.mutants(mutator, seed: 43, count: 200))
        // A recorded choice sequence replays the same mutant.
        var fresh = ChoiceSource(seed: 7, maxChoices: 1 << 20)
        let mutant = mutator.mutant(using: &fresh)
        var replay = ChoiceSource(replaying: fresh.choices, maxChoices: 1 << 20)
        #expect(mutator.mutant(using: &replay) == mutant)
    }

    @Test func everyKindOfEditIsMade() throws {
        let mutator = try ChangesetMutator(seeds: Self.seeds())
        var seen: [ChangesetMutator.Kind: Int] = [:]
        for mutant in Self.mutants(mutator, seed: 1, count: 1_500) {
            #expect(!mutant.kinds.isEmpty, "a mutant with no edit: \(mutant)")
            for kind in mutant.kinds {
                seen[kind, default: 0] += 1
                #expect(kind.formats.contains(mutant.format), "\(kind) in a \(mutant.format) mutant")
            }
        }
        let missing = ChangesetMutator.Kind.allCases.filter { seen[$0] == nil }
        #expect(missing.isEmpty, "never made: \(missing.map(\.rawValue))")
    }

    @Test func structureAwareEditsRecomputeTheChecksum() throws {
        let mutator = try ChangesetMutator(seeds: Self.seeds())
        var checked = 0
        for mutant in Self.mutants(mutator, seed: 2, count: 1_000) where mutant.kinds.last == .recomputeChecksum {
            let bytes = mutant.bytes
            guard bytes.count >= 4 else { continue }
            let stored = bytes.suffix(4).enumerated().reduce(UInt32(0)) {
                $0 | UInt32($1.element) << (8 * UInt32($1.offset))
            }
            #expect(stored == CRC32.checksum(bytes.dropLast(4)), "\(mutant)")
            checked += 1
        }
        #expect(checked > 100)
    }

    /// Model-level edits encode a changeset the format can hold, so they decode, unless they push a
    /// number past a range the decoder enforces (causal lengths, clocks), which it then refuses by name.
    @Test func modelLevelEditsStillDecode() throws {
        let mutator = try ChangesetMutator(seeds: Self.seeds())
        var checked = 0
        for mutant in Self.mutants(mutator, seed: 3, count: 1_000) where mutant.kinds.allSatisfy(\.isModelLevel) {
            do {
                _ = try Changeset.decode(anyFormat: mutant.bytes)
            } catch ChangesetError.malformed(_, _, .causalLengthTooLarge), ChangesetError.malformed(
                _, _, .clockOutOfRange)
            {
            } catch {
                Issue.record("\(mutant): \(error)")
            }
            checked += 1
        }
        #expect(checked > 20)
    }
}
