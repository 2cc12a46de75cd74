import Concord
import ConcordTestSupport
import Testing

@testable import ConcordCLI

/// A clock the test moves by hand.
private final class HandClock {
    var now = Duration.zero
    func advance(_ seconds: Double) { now += .milliseconds(Int64((seconds * 1000).rounded())) }
}

/// The progress line's text, rate, time left and throttling, driven by an injected clock.
@Suite("progress meter", .tags(.cli), .timeLimit(.hangGuard))
struct ProgressMeterTests {
    private func makeMeter(
        _ clock: HandClock, _ label: String = "simulate", total: Int? = 20, unit: ProgressMeter.Unit = .items("runs")
    ) -> ProgressMeter {
        ProgressMeter(label, total: total, unit: unit, clock: { clock.now })
    }

    @Test func aKnownTotalShowsPercentCountRateAndTimeLeft() {
        let clock = HandClock()
        let meter = makeMeter(clock)
        // 9 runs in 2.8125 s is 3.2 runs/s; 11 more take 3.44 s, shown rounded up.
        #expect(meter.line(9, elapsed: .microseconds(2_812_500)) == "simulate: 45% 9/20 runs, 3.20 runs/s, 0:04 left")
        #expect(meter.line(0, elapsed: .seconds(1.5)) == "simulate: 0% 0/20 runs, 0:01 elapsed")
        #expect(meter.line(20, elapsed: .seconds(4)) == "simulate: 100% 20/20 runs, 5.00 runs/s, 0:00 left")
    }

    @Test func anUnknownTotalShowsCountRateAndTimeElapsed() {
        let clock = HandClock()
        let meter = makeMeter(clock, "export", total: nil, unit: .items("rows"))
        #expect(
            meter.line(52_000, detail: "8.3 MB", elapsed: .seconds(2))
                == "export: 52,000 rows, 26,000 rows/s, 0:02 elapsed - 8.3 MB")
        #expect(meter.line(0, elapsed: .seconds(0.5)) == "export: 0 rows, 0:00 elapsed")
    }

    @Test func bytesAndSharesHaveTheirOwnForms() {
        let clock = HandClock()
        let bytes = makeMeter(clock, "import", total: 41_400_000, unit: .bytes)
        #expect(
            bytes.line(10_350_000, detail: "validating, 63,622 rows", elapsed: .seconds(1))
                == "import: 25% 10.4 MB/41.4 MB, 10.4 MB/s, 0:03 left - validating, 63,622 rows")
        let share = makeMeter(clock, "bench", total: 400, unit: .share)
        #expect(
            share.line(100, detail: "100000 rows, run 1/3: apply", elapsed: .seconds(60))
                == "bench: 25%, 3:00 left - 100000 rows, run 1/3: apply")
        let sync = makeMeter(clock, "sync", total: nil, unit: .share)
        #expect(sync.line(0, detail: "exchanging", elapsed: .seconds(75)) == "sync: 1:15 elapsed - exchanging")
    }

    @Test func linesAreDrawnAtMostTenTimesASecondButTheLastAlways() {
        let clock = HandClock()
        var meter = makeMeter(clock, total: 5)
        #expect(meter.update(0) != nil, "the first line is drawn at once")
        clock.advance(0.05)
        #expect(meter.update(1) == nil)
        clock.advance(0.05)
        #expect(meter.update(2) == "simulate: 40% 2/5 runs, 20.0 runs/s, 0:01 left")
        clock.advance(0.01)
        #expect(meter.update(3) == nil)
        #expect(meter.update(5) == "simulate: 100% 5/5 runs, 45.5 runs/s, 0:00 left", "the end is drawn at once")
        #expect(meter.update(5) == nil, "but only once")
    }

    @Test func aRestartCountsTheRateAndTimeFromItself() {
        let clock = HandClock()
        var meter = makeMeter(clock, "import", total: nil, unit: .bytes)
        clock.advance(10)
        #expect(meter.update(5_000_000) == "import: 5.0 MB, 500.0 kB/s, 0:10 elapsed")
        meter.restart(total: 2_000_000)
        clock.advance(1)
        #expect(
            meter.update(1_000_000) == "import: 50% 1.0 MB/2.0 MB, 1.0 MB/s, 0:01 left",
            "drawn at once, from the restart")
    }

    @Test func timesNumbersAndSizesAreFormattedWithoutTheLocale() {
        #expect(ProgressMeter.clockTime(0) == "0:00")
        #expect(ProgressMeter.clockTime(59.2) == "1:00")
        #expect(ProgressMeter.clockTime(59.2, roundingUp: false) == "0:59")
        #expect(ProgressMeter.clockTime(3661) == "1:01:01")
        #expect(ProgressMeter.clockTime(.infinity) == "0:00")
        #expect(ProgressMeter.grouped(0) == "0")
        #expect(ProgressMeter.grouped(999) == "999")
        #expect(ProgressMeter.grouped(1000) == "1,000")
        #expect(ProgressMeter.grouped(-1_234_567) == "-1,234,567")
        #expect(ProgressMeter.number(0.456) == "0.46")
        #expect(ProgressMeter.number(12.34) == "12.3")
        #expect(ProgressMeter.number(12_345.6) == "12,346")
        #expect(ProgressMeter.bytes(512) == "512 B")
        #expect(ProgressMeter.bytes(14_500) == "14.5 kB")
        #expect(ProgressMeter.bytes(146_800_000) == "146.8 MB")
        #expect(ProgressMeter.bytes(1_230_000_000) == "1.2 GB")
        #expect(ProgressMeter.percent(1, of: 3) == 33)
        #expect(ProgressMeter.percent(7, of: 0) == 100)
    }

    @Test func benchProgressWeighsEachRunByItsRows() {
        var work = BenchProgress(sizes: [10_000, 100_000], runs: { $0 >= 100_000 ? 1 : 3 })
        #expect(work.total == 10_000 * 4 + 100_000 * 2)
        #expect(work.done(atStep: "10000 rows: generating") == 0)
        #expect(work.done(atStep: "10000 rows, run 1/3: insert") == 10_000)
        #expect(work.done(atStep: "10000 rows, run 3/3: apply") == 30_000)
        #expect(work.done(atStep: "100000 rows: generating") == 40_000)
        #expect(work.done(atStep: "100000 rows, run 1/1: export") == 140_000)
        #expect(work.done(atStep: "something else") == 140_000, "an unknown step keeps the share")
    }

    /// Standard output and a standard error that counts as a terminal, as `Output.standard()` makes on one.
    private func terminalOutput(_ err: MemoryByteSink) -> Output {
        var output = Output(standardOutput: MemoryByteSink(), standardError: err)
        output.standardError = TextStream(sink: err, isTerminal: true)
        return output
    }

    @Test func aProgressLineDrawsOnATerminalOnlyWithoutQuiet() {
        let err = MemoryByteSink()
        var output = terminalOutput(err)
        let line = output.progressLine("fuzz", total: 10, unit: .items("inputs"))
        line.update(3)
        line.clear()
        let text = String(decoding: err.bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}[2K\rfuzz: 30% 3/10 inputs"))
        #expect(text.hasSuffix("\u{1B}[2K\r"))

        let quietErr = MemoryByteSink()
        output = terminalOutput(quietErr)
        output.quiet = true
        let quiet = output.progressLine("fuzz", total: 10, unit: .items("inputs"))
        quiet.startTicking(every: .milliseconds(1))
        quiet.update(3)
        quiet.phase("anything")
        quiet.clear()
        #expect(quietErr.bytes.isEmpty, "--quiet draws nothing")

        let pipeErr = MemoryByteSink()
        let piped = Output(standardOutput: MemoryByteSink(), standardError: pipeErr)
            .progressLine("fuzz", total: 10, unit: .items("inputs"))
        piped.update(3)
        piped.clear()
        #expect(pipeErr.bytes.isEmpty, "a pipe gets no progress")
    }

    @Test func aLineLongerThanTheTerminalIsCutSoItNeverWraps() {
        let err = MemoryByteSink()
        var output = terminalOutput(err)
        output.progressWidth = 10
        output.progress("simulate: 45% 9/20 runs")
        #expect(String(decoding: err.bytes, as: UTF8.self) == "\u{1B}[2K\rsimulate:")
    }
}
