import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// `Gen.anySQLiteValue` and its parts cover SQLite's whole value space, replay exactly, and shrink to simple values.
@Suite(.tags(.concordTesting))
struct AnySQLiteValueGenTests {
    static let samples = (0..<4_000 as Range<UInt64>).map { Gen.anySQLiteValue(largeLengths: nil).sample(seed: $0) }

    static func bytes(_ value: SQLiteValue) -> [UInt8]? {
        switch value {
        case .text(let text): text.bytes
        case .blob(let bytes): bytes
        default: nil
        }
    }

    static func texts(_ values: [SQLiteValue]) -> [SQLiteText] {
        values.compactMap { if case .text(let text) = $0 { text } else { nil } }
    }

    @Test func everyEdgeOfTheValueSpaceAppears() {
        let values = Set(Self.samples)
        for edge: SQLiteValue in [
            .null, .integer(0), .integer(1), .real(1), .integer(.max), .integer(.min), .real(-0.0), .real(0),
            .real(.infinity), .real(-.infinity), .real(.greatestFiniteMagnitude), .real(.leastNonzeroMagnitude),
            .real(-.leastNonzeroMagnitude), .real(Double.leastNormalMagnitude.nextDown), .text(""), .blob([]),
        ] {
            #expect(values.contains(edge), "never generated \(edge)")
        }
        let reals = Self.samples.compactMap { if case .real(let real) = $0 { real } else { nil } }
        #expect(reals.contains { $0.isSubnormal && $0 != .leastNonzeroMagnitude && $0 != -.leastNonzeroMagnitude })
        #expect(reals.filter { $0.isFinite && $0.rounded() != $0 }.count > 100, "too few fractional reals")
        let texts = Self.texts(Self.samples)
        #expect(texts.contains { $0.bytes.contains(0) && $0.isValidUTF8 }, "no text holding NUL")
        #expect(texts.filter { !$0.isValidUTF8 }.count > 100, "too little text that is not UTF-8")
        #expect(texts.contains { $0.bytes.starts(with: [0xC0, 0x80]) || $0.bytes.contains(0xED) && !$0.isValidUTF8 })
        // Both spellings of é, as separate values.
        #expect(texts.contains { $0.bytes.suffix(2) == [0xC3, 0xA9] })
        #expect(texts.contains { $0.bytes.suffix(3) == [0x65, 0xCC, 0x81] })
        #expect(
            texts.contains { $0.string?.contains("\u{212B}") ?? false }
                || texts.contains { $0.bytes.suffix(3) == [0xE2, 0x84, 0xAB] })
    }

    @Test func neverNaN() {
        for case .real(let real) in Self.samples { #expect(!real.isNaN) }
        for case .real(let real) in (0..<2_000 as Range<UInt64>).map({ Gen.anySQLiteReal.sample(seed: $0) }) {
            #expect(!real.isNaN)
        }
    }

    @Test func sameSeedSameBits() {
        for seed: UInt64 in 0..<200 {
            #expect(Gen.anySQLiteValue.sample(seed: seed) == Gen.anySQLiteValue.sample(seed: seed))
            var source = ChoiceSource(seed: seed)
            let value = Gen.anySQLiteValue.generate(using: &source)
            #expect(Gen.anySQLiteValue.replay(source.choices) == value)
        }
    }

    @Test func theSimplestValueOfEachKindIsItsZero() {
        let gen = Gen.anySQLiteValue
        #expect(gen.replay([]) == .null)
        #expect(gen.replay([1]) == .integer(0))
        #expect(gen.replay([2]) == .real(0))
        #expect(gen.replay([3]) == .text(""))
        #expect(gen.replay([4]) == .blob([]))
        let large = gen.replay([5])
        #expect(large.typeName == "blob" && Self.bytes(large)?.count == Gen.defaultLargeLengths.lowerBound)
    }

    @Test func counterexamplesShrinkToSmallValues() throws {
        let gen = Gen.anySQLiteValue(largeLengths: nil)
        let notUTF8 = try #require(
            Property.findFailure(gen, seed: 1, iterations: 500) { value in
                if case .text(let text) = value { return text.isValidUTF8 }
                return true
            })
        let minimal = try #require(Self.texts([gen.replay(notUTF8.choices)]).first)
        #expect(minimal.bytes.count <= 2 && !minimal.isValidUTF8, "\(minimal)")
        let negativeZero = try #require(Property.findFailure(gen, seed: 2, iterations: 500) { $0 != .real(-0.0) })
        #expect(gen.replay(negativeZero.choices) == .real(-0.0))
        let twoBytes = try #require(
            Property.findFailure(gen, seed: 3, iterations: 500) { value in
                if case .blob(let bytes) = value { return bytes.count < 2 }
                return true
            })
        #expect(gen.replay(twoBytes.choices) == .blob([0, 0]))
        let extreme = try #require(
            Property.findFailure(gen, seed: 4, iterations: 500) { $0.integerValue.map { $0 > -(1 << 62) } ?? true })
        #expect(gen.replay(extreme.choices) == .integer(.min))
    }

    @Test func largeValuesComeSometimesAndShrinkToTheShortestLength() throws {
        let lengths = (0..<300 as Range<UInt64>).compactMap { Self.bytes(Gen.anySQLiteValue.sample(seed: $0))?.count }
        let large = lengths.filter { $0 >= Gen.defaultLargeLengths.lowerBound }
        #expect(!large.isEmpty && large.count < 40, "\(large.count) large values in 300")
        #expect(large.allSatisfy { Gen.defaultLargeLengths.contains($0) })

        let gen = Gen.largeSQLiteValue(lengths: 1_000...50_000)
        var kinds: Set<String> = []
        for seed: UInt64 in 0..<60 {
            let value = gen.sample(seed: seed)
            let bytes = try #require(Self.bytes(value))
            #expect((1_000...50_000).contains(bytes.count))
            kinds.insert(
                value.typeName + (Self.texts([value]).first.map { $0.isValidUTF8 ? " UTF-8" : " not UTF-8" } ?? ""))
        }
        #expect(kinds == ["blob", "text UTF-8", "text not UTF-8"])
        let long = try #require(
            Property.findFailure(gen, seed: 5, iterations: 50) { (Self.bytes($0)?.count ?? 0) <= 20_000 })
        #expect(Self.bytes(gen.replay(long.choices))?.count == 20_001)
    }

    @Test func unionArraysAreArraysOfStringsAndIntegersToSQLite() throws {
        let database = try Database.inMemory()
        var spellings = 0
        var oddities = 0
        for seed: UInt64 in 0..<1_500 {
            let value = Gen.unionArray.sample(seed: seed)
            let shape = try database.scalar(
                "SELECT CASE WHEN json_valid(?1) THEN json_type(?1) = 'array' ELSE 0 END", [value])
            #expect(shape == .integer(1), "\(value)")
            let others = try database.scalar(
                "SELECT count(*) FROM json_each(?) WHERE type NOT IN ('integer', 'text')", [value])
            #expect(others == .integer(0), "\(value)")
            guard case .text(let text) = value else { continue }
            if text.string.map({ $0.contains("e\u{301}") || $0.contains("A\u{30A}") }) ?? false { spellings += 1 }
            if !text.isValidUTF8
                || text.string.map({ $0.contains("\\ud800") || $0.contains("9223372036854775808") }) ?? false
            {
                oddities += 1
            }
        }
        #expect(spellings > 10 && oddities > 10, "\(spellings) decomposed spellings, \(oddities) oddities")
        #expect(Gen.unionArray.replay([]) == .text("[]"))
    }

    @Test func valuesThatAreNotUnionArraysIncludeArraysCutShortMidNumber() throws {
        let database = try Database.inMemory()
        var cutMidNumber = 0
        for seed: UInt64 in 0..<1_500 {
            let value = Gen.notAUnionArray.sample(seed: seed)
            #expect(UnionValue.parse(value) == nil, "\(value)")
            let shape = try database.scalar(
                "SELECT CASE WHEN json_valid(?1) THEN json_type(?1) = 'array' ELSE 0 END", [value])
            // (SQLite's JSON functions read text only up to a NUL: past one, what they see is no value.)
            if case .text(let text) = value, shape == .integer(1), !text.bytes.contains(0) {
                let elements = try database.scalar(
                    "SELECT count(*) FROM json_each(?) WHERE type NOT IN ('integer', 'text')", [value])
                #expect(elements != .integer(0), "\(text): an array of strings and integers")
            }
            // Past its first element and ending in a digit: an array cut inside a number (no fixed oddity is).
            if case .text(let text) = value, text.bytes.first == UInt8(ascii: "["),
                text.bytes.contains(UInt8(ascii: ",")),
                let last = text.bytes.last, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(last)
            {
                cutMidNumber += 1
            }
        }
        #expect(cutMidNumber > 20, "\(cutMidNumber) arrays cut inside a number after their first element")
    }
}
