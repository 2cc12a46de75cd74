/// How a choice maps onto an integer range so that smaller choices are
/// simpler integers.
///
/// Choice 0 is the value nearest zero (the "target"); choices then alternate
/// up and down (target+1, target-1, target+2, …) until one side of the range
/// runs out, and continue along the longer side. Shrinking a choice toward 0
/// therefore shrinks the integer's distance from zero, and positive values
/// come before negative ones of the same size.
///
/// ```swift
/// let mapping = IntegerChoice(-2...5)
/// // choices 0...7 ↦ 0, 1, -1, 2, -2, 3, 4, 5
/// ```
struct IntegerChoice: Sendable {
    let lowerBound: Int64
    /// The number of choices minus one: `upperBound - lowerBound`.
    let span: UInt64
    /// The target's offset from `lowerBound`.
    private let targetOffset: UInt64
    /// How many steps fit above and below the target.
    private let up: UInt64
    private let down: UInt64

    init(_ range: ClosedRange<Int64>) {
        lowerBound = range.lowerBound
        span = UInt64(bitPattern: range.upperBound &- range.lowerBound)
        let target = min(max(0, range.lowerBound), range.upperBound)
        targetOffset = UInt64(bitPattern: target &- range.lowerBound)
        up = span - targetOffset
        down = targetOffset
    }

    /// The integer a (clamped) choice stands for.
    func value(for rawChoice: UInt64) -> Int64 {
        let choice = min(rawChoice, span)
        let paired = min(up, down)
        let offset: UInt64
        if choice == 0 {
            offset = targetOffset
        } else if choice <= 2 * paired {
            let step = (choice + 1) / 2
            offset = choice % 2 == 1 ? targetOffset + step : targetOffset - step
        } else if up > down {
            offset = targetOffset + (choice - paired)
        } else {
            offset = targetOffset - (choice - paired)
        }
        return lowerBound &+ Int64(bitPattern: offset)
    }

    /// The choice that stands for `value` (which must lie in the range).
    func choice(for value: Int64) -> UInt64 {
        let offset = UInt64(bitPattern: value &- lowerBound)
        let paired = min(up, down)
        if offset == targetOffset { return 0 }
        if offset > targetOffset {
            let distance = offset - targetOffset
            return distance <= paired ? 2 * distance - 1 : distance + paired
        }
        let distance = targetOffset - offset
        return distance <= paired ? 2 * distance : distance + paired
    }

    /// Choices worth drawing more often than uniform: the target, its
    /// neighbours and both ends of the range.
    var edgeChoices: [UInt64] {
        let upper = lowerBound &+ Int64(bitPattern: span)
        return [0, min(1, span), min(2, span), choice(for: lowerBound), choice(for: upper)]
    }
}
