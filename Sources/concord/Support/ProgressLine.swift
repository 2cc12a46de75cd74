import Foundation

/// A progress line on standard error, drawn from a ``ProgressMeter`` at most ten times a second.
///
/// It holds its own copy of the command's ``Output`` (whose streams are
/// shared references), so a callback that outlives an `inout` access, such
/// as a row iterator handed to the library, can report through it. When
/// standard error is not a terminal, or the command was given `--quiet`, it
/// draws nothing and starts no thread.
///
/// A step the library takes in one call (a sync, a changeset read into
/// memory, a benchmark phase) reports nothing while it runs; ``startTicking(every:)``
/// redraws the line meanwhile, so its elapsed time and time left keep moving.
///
/// ```swift
/// let progress = output.progressLine("simulate", total: 20, unit: .items("runs"))
/// progress.update(9)        // simulate: 45% 9/20 runs, 3.20 runs/s, 0:03 left
/// progress.clear()
/// ```
final class ProgressLine: @unchecked Sendable {
    // Guards everything below: the ticking thread draws too.
    private let lock = NSLock()
    private var meter: ProgressMeter
    private var output: Output
    private var done = 0
    private var detail: String?
    private var ticking = false
    /// Whether anything is drawn at all.
    let isShown: Bool

    init(_ meter: ProgressMeter, output: Output) {
        self.meter = meter
        self.output = output
        isShown = output.showsProgress
    }

    /// Starts the count, rate and clock over with a new total, for the next stretch of work.
    func restart(total: Int?) {
        lock.withLock {
            meter.restart(total: total)
            done = 0
        }
    }

    /// Reports `done`; draws when the last line is a tenth of a second old, or the work is done.
    func update(_ done: Int, detail: String? = nil) {
        guard isShown else { return }
        lock.withLock {
            self.done = done
            self.detail = detail
            if let line = meter.update(done, detail: detail) { output.progress(line) }
        }
    }

    /// Draws at once with a new `detail` (a phase starting), whatever the time since the last line.
    func phase(_ detail: String, done: Int? = nil) {
        guard isShown else { return }
        lock.withLock {
            self.done = done ?? self.done
            self.detail = detail
            drawNow()
        }
    }

    /// Redraws the line every `period` until ``clear()``, for steps that report nothing while they run.
    func startTicking(every period: Duration = .milliseconds(500)) {
        guard isShown, lock.withLock({ !ticking }) else { return }
        lock.withLock { ticking = true }
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: period.seconds)
                let going = lock.withLock {
                    if ticking { drawNow() }
                    return ticking
                }
                if !going { return }
            }
        }
        thread.start()
    }

    /// Stops ticking and erases the line, before the command prints its result.
    func clear() {
        guard isShown else { return }
        lock.withLock {
            ticking = false
            output.clearProgress()
        }
    }

    /// Draws the current state; the lock is held.
    private func drawNow() {
        output.progress(meter.line(done, detail: detail, elapsed: meter.elapsed))
    }
}

extension Output {
    /// A ``ProgressLine`` for this command's output, started now.
    ///
    /// ```swift
    /// let progress = output.progressLine("fuzz", total: options.inputs, unit: .items("inputs"))
    /// ```
    func progressLine(_ label: String, total: Int? = nil, unit: ProgressMeter.Unit) -> ProgressLine {
        ProgressLine(ProgressMeter(label, total: total, unit: unit), output: self)
    }
}
