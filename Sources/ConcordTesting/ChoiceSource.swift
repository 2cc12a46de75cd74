import ConcordCore

/// The stream of choices every generator draws from: fresh from a seed, or
/// replayed from a recorded sequence.
///
/// A generated value is a pure function of the choices made while drawing
/// it, so recording those choices (plain `UInt64`s, each meaning "the n-th
/// simplest option") is enough to replay the value exactly, and making the
/// sequence smaller is how ``Shrinker`` makes the value simpler. Generators
/// never touch the random number generator directly; they ask for a choice
/// in `0...maximum` and the source either draws it fresh (and records it) or
/// reads it back from the replayed sequence. A replayed choice above the
/// maximum is clamped into range, and a sequence that runs out yields `0`
/// (the simplest option), so any sequence at all replays to *some* value.
///
/// ```swift
/// var fresh = ChoiceSource(seed: 42)
/// let value = fresh.draw(Gen.int(in: 0...100).array(length: 0...5))
/// var again = ChoiceSource(replaying: fresh.choices)
/// assert(again.draw(Gen.int(in: 0...100).array(length: 0...5)) == value)
/// ```
public struct ChoiceSource: Sendable {
    /// How many choices one run may make before every further choice is `0`.
    ///
    /// A bound keeps a runaway generator finite; choices past it are not
    /// recorded, and replay returns `0` for them too, so runs stay replayable.
    public static let defaultMaxChoices = 10_000

    /// The choices made so far, in order (clamped and padded when replaying).
    public private(set) var choices: [UInt64] = []

    /// Descriptions of the values drawn with ``draw(_:label:)`` and the
    /// messages passed to ``note(_:)``, in order: the counterexample text.
    public private(set) var log: [String] = []

    /// Whether a choice was asked for past ``maxChoices`` (and forced to `0`).
    public private(set) var overran = false

    /// The most choices this source records.
    public let maxChoices: Int

    private var generator: SeededGenerator?
    private let replayed: [UInt64]
    private var drawDepth = 0

    /// A source that draws fresh choices from a SplitMix64 stream seeded
    /// with `seed`, recording each one in ``choices``.
    public init(seed: UInt64, maxChoices: Int = ChoiceSource.defaultMaxChoices) {
        generator = SeededGenerator(seed: seed)
        replayed = []
        self.maxChoices = maxChoices
    }

    /// A source that replays `choices`, clamping out-of-range entries and
    /// answering `0` once the sequence runs out.
    public init(replaying choices: [UInt64], maxChoices: Int = ChoiceSource.defaultMaxChoices) {
        generator = nil
        replayed = choices
        self.maxChoices = maxChoices
    }

    /// Whether this source replays a recorded sequence rather than drawing fresh.
    public var isReplaying: Bool { generator == nil }

    /// One choice in `0...maximum`; fresh choices are uniform.
    public mutating func choose(upTo maximum: UInt64) -> UInt64 {
        choose(upTo: maximum) { rng in uniform(upTo: maximum, using: &rng) }
    }

    /// One choice in `0...maximum` whose *fresh* distribution is `fresh`.
    ///
    /// Replay ignores `fresh`, so a generator may bias what it draws (toward
    /// edge cases, say) without changing what its choices mean.
    public mutating func choose(
        upTo maximum: UInt64,
        fresh: (inout SeededGenerator) -> UInt64
    ) -> UInt64 {
        guard choices.count < maxChoices else {
            overran = true
            return 0
        }
        let choice: UInt64
        if var rng = generator {
            choice = min(fresh(&rng), maximum)
            generator = rng
        } else if choices.count < replayed.count {
            choice = min(replayed[choices.count], maximum)
        } else {
            choice = 0
        }
        choices.append(choice)
        return choice
    }

    /// A boolean that is `true` with `probability` when fresh; `false` is the
    /// simpler choice (`0`).
    public mutating func bool(probability: Double = 0.5) -> Bool {
        choose(upTo: 1) { rng in unitInterval(using: &rng) < probability ? 1 : 0 } == 1
    }

    /// An index into `weights`, fresh draws proportional to the weights;
    /// lower indices are simpler. Weights must not all be zero. An index of
    /// weight zero is never returned: a replayed or shrunk choice naming one
    /// (fresh draws never do) gives the next index of positive weight, else the
    /// last one before it.
    public mutating func index(weights: [UInt64]) -> Int {
        precondition(!weights.isEmpty, "index(weights:) needs at least one weight")
        let total = weights.reduce(0, +)
        precondition(total > 0, "index(weights:) needs a positive weight")
        let last = UInt64(weights.count - 1)
        let choice = choose(upTo: last) { rng in
            var ticket = uniform(upTo: total - 1, using: &rng)
            for (index, weight) in weights.enumerated() {
                if ticket < weight { return UInt64(index) }
                ticket -= weight
            }
            return last
        }
        let index = Int(choice)
        guard weights[index] == 0 else { return index }
        return weights[index...].firstIndex { $0 > 0 } ?? weights[..<index].lastIndex { $0 > 0 }!
    }

    /// An integer in `range`; the choice counts outward from the value
    /// nearest zero (0, 1, -1, 2, -2, …), and fresh draws favour the edges
    /// one time in eight.
    public mutating func int64(in range: ClosedRange<Int64>) -> Int64 {
        let mapping = IntegerChoice(range)
        let choice = choose(upTo: mapping.span) { rng in
            if rng.next() % 8 == 0 {
                let edges = mapping.edgeChoices
                return edges[Int(rng.next() % UInt64(edges.count))]
            }
            return uniform(upTo: mapping.span, using: &rng)
        }
        return mapping.value(for: choice)
    }

    /// An `Int` in `range`, laid out like ``int64(in:)``.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        Int(int64(in: Int64(range.lowerBound)...Int64(range.upperBound)))
    }

    /// Draws a value from `gen`, and when this is a top-level draw (not one
    /// made inside another generator) logs its description for reports.
    ///
    /// The log uses `String(describing:)`; for sets and dictionaries, whose
    /// order varies between processes, draw with ``Gen/generate(using:)``
    /// and ``note(_:)`` a sorted rendering instead.
    public mutating func draw<Value>(_ gen: Gen<Value>, label: String? = nil) -> Value {
        drawDepth += 1
        let value = gen.generate(using: &self)
        drawDepth -= 1
        if drawDepth == 0 {
            let text = String(describing: value)
            log.append(label.map { "\($0) = \(text)" } ?? text)
        }
        return value
    }

    /// Adds a line to ``log``, shown with a failing counterexample.
    public mutating func note(_ message: String) {
        log.append(message)
    }
}

/// A uniform integer in `0...maximum` by Lemire's multiply-and-reject,
/// written out so that seeds replay identically on every toolchain.
func uniform(upTo maximum: UInt64, using rng: inout SeededGenerator) -> UInt64 {
    if maximum == .max { return rng.next() }
    let range = maximum + 1
    var product = rng.next().multipliedFullWidth(by: range)
    if product.low < range {
        let threshold = (0 &- range) % range
        while product.low < threshold {
            product = rng.next().multipliedFullWidth(by: range)
        }
    }
    return product.high
}

/// A uniform `Double` in `[0, 1)` from the top 53 bits of one draw.
func unitInterval(using rng: inout SeededGenerator) -> Double {
    Double(rng.next() >> 11) * 0x1p-53
}
