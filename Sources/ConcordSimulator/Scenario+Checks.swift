extension Scenario {
    /// How often the expensive safety checks run while a seed's plan runs.
    ///
    /// Every step checks what it touched cheaply: the ledger of the apps'
    /// writes, each touched device's clock and parked rows. The full check
    /// of a device (SQLite's `integrity_check` and `foreign_key_check`, and
    /// every table against the projection recomputed from all registers)
    /// costs far more than a step, so it runs on the devices a step touched
    /// only every `fullEvery` steps, and always on every device at the end,
    /// after the liveness phase. A wrong state a full check would catch
    /// mid-run that later steps do not repair is still caught at the end;
    /// `fullEvery: 1` checks every step, as the simulator did before.
    ///
    /// ```json
    /// { "name": "notes", "checks": { "fullEvery": 1 } }
    /// ```
    public struct Checks: Codable, Equatable, Sendable {
        /// Steps between full checks of the touched devices (10 by default; 1 checks every step).
        public var fullEvery = Checks.defaultFullEvery

        /// The default, chosen so full checks cost about as much as the steps between them.
        public static let defaultFullEvery = 10

        /// The default schedule, as a scenario file that gives no `checks` gets it.
        public init() {}

        /// Reads a schedule whose fields may be left out, taking their defaults.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init()
            fullEvery = try container.decodeIfPresent(Int.self, forKey: .fullEvery) ?? fullEvery
        }

        /// Whether the touched devices get the full check after step `step` (counted from 0).
        func isFull(step: Int) -> Bool { fullEvery <= 1 || (step + 1) % fullEvery == 0 }
    }
}
