import Foundation

/// Wall-clock timing and medians for the benchmark.
///
/// ```swift
/// let seconds = try Stopwatch.time { try workload.insert(into: plain) }
/// Stopwatch.median([3, 1, 2])   // 2
/// ```
enum Stopwatch {
    /// Seconds `body` took, on the monotonic clock.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2]
            : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
