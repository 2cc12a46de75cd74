/// The text of a progress line — how much is done, how fast, how long is left — and when to redraw it.
///
/// Every long command (`import`, `export`, `sync`, `simulate`, `fuzz`,
/// `bench`) draws its progress through one meter, so they all read alike:
///
/// ```text
/// simulate: 45% 9/20 runs, 3.20 runs/s, 0:03 left
/// export: 52,000 rows, 25,100 rows/s, 0:02 elapsed
/// import: 38% 11.0 MB/29.0 MB, 21.4 MB/s, 0:01 left - validating
/// ```
///
/// The rate is the average since the meter started; time left is what the
/// rest takes at that rate. ``update(_:detail:)`` answers a line at most
/// once per ``interval`` (a tenth of a second), and always for the last
/// step, so a caller may report every row without flooding the terminal.
/// The clock is injected, so tests drive it by hand.
///
/// ```swift
/// var meter = ProgressMeter("fuzz", total: 10_000, unit: .items("inputs"))
/// if let line = meter.update(300) { output.progress(line) }
/// ```
struct ProgressMeter {
    /// What is counted.
    enum Unit: Equatable {
        /// Things with a name: `runs`, `rows`, `inputs`.
        case items(String)
        /// Bytes, shown in kB, MB or GB.
        case bytes
        /// A share of the work with no count worth showing (only percent and time).
        case share
    }

    /// The command's name, first on the line.
    let label: String
    /// How much there is to do, when known; without it the line shows time elapsed instead of time left.
    var total: Int?
    /// What `done` counts.
    let unit: Unit
    /// The shortest time between two lines.
    let interval: Duration
    /// Time since some fixed moment; only differences are used.
    private let clock: () -> Duration
    private var start: Duration
    private var lastDrawn: Duration?
    private var lastDrawnDone: Int?

    /// A meter started now; `clock` defaults to the monotonic clock.
    init(
        _ label: String, total: Int? = nil, unit: Unit, interval: Duration = .milliseconds(100),
        clock: @escaping () -> Duration = ProgressMeter.monotonicClock()
    ) {
        self.label = label
        self.total = total
        self.unit = unit
        self.interval = interval
        self.clock = clock
        start = clock()
    }

    /// Starts over from now with a new total, for a second stretch of work whose rate is its own.
    mutating func restart(total: Int?) {
        self.total = total
        start = clock()
        lastDrawn = nil
        lastDrawnDone = nil
    }

    /// Time since the meter started.
    var elapsed: Duration { clock() - start }

    /// The line for `done`, or `nil` when one was drawn less than ``interval`` ago, unless `done` just reached the total.
    mutating func update(_ done: Int, detail: String? = nil) -> String? {
        let now = clock()
        let finishing = total.map { done >= $0 && lastDrawnDone.map { $0 < done } ?? true } ?? false
        if let lastDrawn, now - lastDrawn < interval, !finishing { return nil }
        lastDrawn = now
        lastDrawnDone = done
        return line(done, detail: detail, elapsed: now - start)
    }

    /// The line for `done` after `elapsed`, whenever it is asked for.
    func line(_ done: Int, detail: String? = nil, elapsed: Duration) -> String {
        let seconds = elapsed.seconds
        var parts: [String] = []
        var counts: [String] = []
        if let total {
            counts.append("\(Self.percent(done, of: total))%")
            if unit != .share { counts.append("\(amount(done))/\(amount(total))\(unitSuffix)") }
        } else if unit != .share {
            counts.append("\(amount(done))\(unitSuffix)")
        }
        if !counts.isEmpty { parts.append(counts.joined(separator: " ")) }
        if unit != .share, done > 0, seconds > 0 {
            parts.append("\(rate(Double(done) / seconds))/s")
        }
        if let total, unit == .share || total > 0 {
            if done > 0, seconds > 0 {
                let left = Double(max(total - done, 0)) * seconds / Double(done)
                parts.append("\(Self.clockTime(left)) left")
            } else {
                parts.append("\(Self.clockTime(seconds, roundingUp: false)) elapsed")
            }
        } else {
            parts.append("\(Self.clockTime(seconds, roundingUp: false)) elapsed")
        }
        var text = "\(label): " + parts.joined(separator: ", ")
        if let detail, !detail.isEmpty { text += " - " + detail }
        return text
    }

    /// ` runs` for items, nothing for bytes (their amount carries the unit).
    private var unitSuffix: String {
        if case .items(let name) = unit { return " " + name }
        return ""
    }

    private func amount(_ value: Int) -> String {
        unit == .bytes ? Self.bytes(Double(value)) : Self.grouped(value)
    }

    private func rate(_ perSecond: Double) -> String {
        switch unit {
        case .bytes: return Self.bytes(perSecond)
        case .items(let name): return Self.number(perSecond) + " " + name
        case .share: return Self.number(perSecond)
        }
    }
}

extension ProgressMeter {
    /// Whole percent, rounded down, so 100% means done.
    static func percent(_ done: Int, of total: Int) -> Int {
        guard total > 0 else { return 100 }
        return Int(min(max(Double(done) / Double(total), 0), 1) * 100)
    }

    /// `0:07`, `12:34`, `1:02:03`; time left is rounded up, so it says `0:00` only when nothing is left,
    /// and time elapsed down.
    static func clockTime(_ seconds: Double, roundingUp: Bool = true) -> String {
        let clamped = seconds.isFinite ? min(max(seconds, 0), 359_999) : 0
        let whole = Int(clamped.rounded(roundingUp ? .up : .down))
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" : "\(minutes):\(twoDigits(secs))"
    }

    /// `1,234,567`: digits in groups of three, whatever the locale.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// A rate: two decimals below 10, one below 100, grouped whole numbers above.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "?" }
        if value >= 100 { return grouped(Int(value.rounded())) }
        return fixed(value, decimals: value >= 10 ? 1 : 2)
    }

    /// `512 B`, `14.5 kB`, `146.8 MB`, `1.2 GB` (powers of 1,000, as the benchmark reports sizes).
    static func bytes(_ value: Double) -> String {
        guard value.isFinite else { return "?" }
        let scales: [(Double, String)] = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        for (scale, name) in scales where value >= scale {
            return fixed(value / scale, decimals: 1) + " " + name
        }
        return "\(Int(value.rounded())) B"
    }

    /// `value` with `decimals` digits after the point, rounded half up, without Foundation's locale.
    private static func fixed(_ value: Double, decimals: Int) -> String {
        let scale = decimals == 1 ? 10 : 100
        let scaled = Int((value * Double(scale)).rounded())
        let fraction = String(scaled % scale)
        let padded = String(repeating: "0", count: decimals - fraction.count) + fraction
        return "\(scaled / scale).\(padded)"
    }

    /// Time since an arbitrary moment, by the process's monotonic clock.
    static func monotonicClock() -> () -> Duration {
        let origin = ContinuousClock.now
        return { ContinuousClock.now - origin }
    }
}
