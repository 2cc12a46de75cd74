extension FuzzRunReport {
    /// The report of a supervised run: its counts, and one failure for each crash, hang and finding.
    ///
    /// The first ``FuzzReproducers/limit`` failures get a reproducer written
    /// to the current directory; a crash's input is counted as a finding,
    /// since the worker that hit it could not report it.
    ///
    /// ```swift
    /// var reproducers = FuzzReproducers(seed: 1, scratch: run + "/regenerate")
    /// let report = try FuzzRunReport(outcome, first: 0, requested: 10_000, seconds: 3.2, timeout: 10,
    ///                                reproducers: &reproducers)
    /// ```
    init(
        _ outcome: FuzzSupervisor.Outcome, first: Int, requested: Int, seconds: Double, timeout: Double,
        reproducers: inout FuzzReproducers
    ) throws {
        self.init(
            summary: outcome.report.summary, first: first, requested: requested, seconds: seconds,
            complete: outcome.complete, failures: [])
        for crash in outcome.crashes {
            var failure = Failure(
                kind: crash.hung ? "hang" : "trap", index: crash.index,
                message: crash.hung
                    ? "input \(crash.index) ran for more than \(timeout) s; its fuzz worker was stopped"
                    : "a fuzz worker \(crash.how) while running input \(crash.index)")
            summary.recordFinding(try reproducers.input(at: crash.index))
            if failures.count < FuzzReproducers.limit { try reproducers.save(crash.index, into: &failure) }
            if !crash.log.isEmpty { failure.message += "\n" + FuzzReproducers.tail(crash.log) }
            failures.append(failure)
        }
        for finding in outcome.report.findings.sorted(by: { $0.index < $1.index }) {
            var failure = Failure(kind: "finding", index: finding.index, message: finding.description)
            if failures.count < FuzzReproducers.limit { try reproducers.save(finding.index, into: &failure) }
            failures.append(failure)
        }
        failures.sort { $0.index < $1.index }
    }

    /// One `Error: …` message per failure, saying where its reproducer is and how to replay it.
    var errorMessages: [String] {
        failures.map { failure in
            var message = "Error: \(failure.message)"
            if let file = failure.reproducer, let database = failure.database {
                message +=
                    "\nReproducer written to \(file), with the base replica in \(database). Replay it with "
                    + "`cp \(database) scratch.db && concord import scratch.db \(file)`, or as the fuzzer ran it "
                    + "(fixed clock, every route, every check) with `concord fuzz --replay \(file)`."
            }
            return message
        }
    }
}
