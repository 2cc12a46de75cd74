/// Minimizes a failing choice sequence while keeping it failing.
///
/// Shrinking works on choices, not values, so every generator shrinks for
/// free (in the style of Hypothesis): a candidate is a smaller sequence —
/// shorter, or equally long and lexicographically smaller — and it is kept
/// when replaying it still fails. Passes, repeated to a fixed point: delete
/// chunks of 8, 4, 2 and 1 choices; zero chunks; lower each choice by binary
/// search toward 0; move amounts from an earlier choice to a nearby later
/// one; swap out-of-order neighbours. Every kept candidate is strictly
/// smaller, so shrinking terminates, is deterministic, and never calls the
/// predicate more than `maxCalls` times (repeated candidates are cached).
///
/// ```swift
/// // Shrink "an array of 0...1000 whose sum exceeds 100".
/// let gen = Gen.int(in: 0...1000).array()
/// let result = Shrinker.shrink(failing) { choices in gen.replay(choices).reduce(0, +) > 100 }
/// gen.replay(result.choices)   // [101]
/// ```
public struct Shrinker {
    /// The default bound on predicate calls.
    public static let defaultMaxCalls = 2_000

    /// Shrinks `choices` (which must fail) with a plain "still fails?" test.
    public static func shrink(
        _ choices: [UInt64],
        maxCalls: Int = defaultMaxCalls,
        stillFails: ([UInt64]) -> Bool
    ) -> ShrinkResult {
        shrink(choices, maxCalls: maxCalls) { candidate in stillFails(candidate) ? candidate : nil }
    }

    /// Shrinks `choices` with a test that, when the candidate still fails,
    /// returns the choices the run actually consumed (clamped, truncated or
    /// padded), which may be smaller still; `nil` means it passed.
    public static func shrink(
        _ choices: [UInt64],
        maxCalls: Int = defaultMaxCalls,
        run: ([UInt64]) -> [UInt64]?
    ) -> ShrinkResult {
        var shrinker = Shrinker(current: choices, maxCalls: maxCalls)
        shrinker.minimize(run)
        return ShrinkResult(
            choices: shrinker.current,
            calls: shrinker.calls,
            improvements: shrinker.improvements,
            exhausted: shrinker.calls >= maxCalls
        )
    }

    private var current: [UInt64]
    private let maxCalls: Int
    private var calls = 0
    private var improvements = 0
    private var rejected: Set<[UInt64]> = []

    private init(current: [UInt64], maxCalls: Int) {
        self.current = current
        self.maxCalls = maxCalls
    }

    private var budgetLeft: Bool { calls < maxCalls }

    private mutating func minimize(_ run: ([UInt64]) -> [UInt64]?) {
        var improved = true
        while improved, budgetLeft {
            let before = improvements
            deleteChunks(run)
            zeroChunks(run)
            lowerValues(run)
            redistribute(run)
            swapNeighbours(run)
            improved = improvements > before
        }
    }

    /// Tries `candidate`; keeps it (or the smaller consumed sequence) if it
    /// is smaller than the current sequence and still fails.
    private mutating func consider(_ candidate: [UInt64], _ run: ([UInt64]) -> [UInt64]?) -> Bool {
        guard budgetLeft, isSimpler(candidate, than: current), !rejected.contains(candidate) else {
            return false
        }
        calls += 1
        guard let consumed = run(candidate) else {
            rejected.insert(candidate)
            return false
        }
        current = isSimpler(consumed, than: candidate) ? consumed : candidate
        improvements += 1
        return true
    }

    private mutating func deleteChunks(_ run: ([UInt64]) -> [UInt64]?) {
        for size in [8, 4, 2, 1] {
            var start = current.count - size
            while start >= 0, budgetLeft {
                if start + size <= current.count {
                    var candidate = current
                    candidate.removeSubrange(start..<start + size)
                    if consider(candidate, run) { continue }
                }
                start -= 1
            }
        }
    }

    private mutating func zeroChunks(_ run: ([UInt64]) -> [UInt64]?) {
        for size in [8, 4, 2, 1] {
            var start = current.count - size
            while start >= 0, budgetLeft {
                let end = min(start + size, current.count)
                if start < end, current[start..<end].contains(where: { $0 != 0 }) {
                    var candidate = current
                    candidate.replaceSubrange(start..<end, with: repeatElement(0, count: end - start))
                    _ = consider(candidate, run)
                }
                start -= 1
            }
        }
    }

    private mutating func lowerValues(_ run: ([UInt64]) -> [UInt64]?) {
        var index = 0
        while index < current.count, budgetLeft {
            lower(at: index, run)
            index += 1
        }
    }

    /// Binary search for the smallest value at `index` that still fails,
    /// assuming (without relying on it) that failing is monotone there.
    private mutating func lower(at index: Int, _ run: ([UInt64]) -> [UInt64]?) {
        guard current[index] > 0 else { return }
        if consider(replacing(index, with: 0), run) { return }
        var passing: UInt64 = 0
        while index < current.count, current[index] > passing + 1, budgetLeft {
            let failing = current[index]
            let middle = passing + (failing - passing) / 2
            if !consider(replacing(index, with: middle), run) { passing = middle }
        }
    }

    /// Moves an earlier choice's value onto a later choice up to four places
    /// on: e.g. two array elements whose sum matters become one.
    private mutating func redistribute(_ run: ([UInt64]) -> [UInt64]?) {
        var first = 0
        while first < current.count, budgetLeft {
            var second = first + 1
            while second < min(first + 5, current.count), current[first] > 0, budgetLeft {
                let (sum, overflow) = current[second].addingReportingOverflow(current[first])
                if !overflow {
                    var candidate = current
                    candidate[first] = 0
                    candidate[second] = sum
                    _ = consider(candidate, run)
                }
                second += 1
            }
            first += 1
        }
    }

    /// Swaps a choice with a smaller one one or two places on (an element
    /// two places on is the next array element, past its "more" flag).
    private mutating func swapNeighbours(_ run: ([UInt64]) -> [UInt64]?) {
        var index = 0
        while index < current.count, budgetLeft {
            for distance in 1...2 where index + distance < current.count {
                if current[index] > current[index + distance] {
                    var candidate = current
                    candidate.swapAt(index, index + distance)
                    _ = consider(candidate, run)
                }
            }
            index += 1
        }
    }

    private func replacing(_ index: Int, with value: UInt64) -> [UInt64] {
        var candidate = current
        candidate[index] = value
        return candidate
    }
}

/// Shortlex order: fewer choices first, then lexicographically smaller.
func isSimpler(_ lhs: [UInt64], than rhs: [UInt64]) -> Bool {
    lhs.count != rhs.count ? lhs.count < rhs.count : lhs.lexicographicallyPrecedes(rhs)
}

/// What ``Shrinker`` found: the minimal failing choices and what it cost.
///
/// ```swift
/// let result = Shrinker.shrink([9, 9, 9]) { $0.contains { $0 >= 5 } }
/// // result.choices == [5]
/// ```
public struct ShrinkResult: Sendable, Equatable {
    /// The smallest failing sequence found.
    public let choices: [UInt64]
    /// How many times the predicate ran.
    public let calls: Int
    /// How many smaller failing sequences were adopted along the way.
    public let improvements: Int
    /// Whether shrinking stopped because it ran out of predicate calls
    /// (the result may then not be a fixed point).
    public let exhausted: Bool
}
