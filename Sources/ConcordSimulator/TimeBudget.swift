/// How long a time-boxed sweep runs, as `concord simulate --duration` reads it: `90s`, `10m`, `1h`.
///
/// A whole number of seconds, minutes or hours, above zero; it prints back
/// in the largest unit that divides it, so `120s` reads back as `2m`.
///
/// ```swift
/// TimeBudget(parsing: "10m")?.seconds   // 600
/// TimeBudget(parsing: "90")             // nil: say the unit
/// ```
public struct TimeBudget: Hashable, Sendable, CustomStringConvertible {
    /// The length in seconds (at least 1).
    public let seconds: Int

    /// Reads a whole number followed by `s`, `m` or `h`; `nil` for anything else, or for zero.
    public init?(parsing text: String) {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3_600]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count > 0,
            count <= Int.max / unit
        else { return nil }
        seconds = count * unit
    }

    /// The length as a `Duration`.
    public var duration: Duration { .seconds(seconds) }

    /// `90s`, `10m`, `1h`: the largest unit that divides the length.
    public var description: String {
        if seconds % 3_600 == 0 { return "\(seconds / 3_600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
