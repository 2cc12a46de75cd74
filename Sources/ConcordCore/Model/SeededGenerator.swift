/// A small, fast, seedable random number generator (SplitMix64).
///
/// Everything random in Concord — node ids in simulations, generated test
/// data, fault schedules — draws from one of these, so a seed replays exactly.
///
/// ```swift
/// var rng = SeededGenerator(seed: 42)
/// let roll = Int.random(in: 1...6, using: &rng)
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's whole state; a generator made with this as its seed continues the same sequence.
    public private(set) var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits of the sequence.
    public mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    /// What the sequence adds to its state at every step (the golden ratio in 64 bits).
    public static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// SplitMix64's finalizer: 64 bits whose every bit depends on every bit of `z`, so neighbouring
    /// inputs give unrelated outputs — a hash of a counter when a whole generator is more than needed.
    ///
    /// ```swift
    /// SeededGenerator.mix(seed &+ UInt64(message) &* SeededGenerator.increment) & 1   // a coin per message
    /// ```
    public static func mix(_ z: UInt64) -> UInt64 {
        var z = z
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
