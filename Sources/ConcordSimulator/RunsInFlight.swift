import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The simulation runs under way in this process, named on standard error if the process crashes.
///
/// Why: a run that fails a check writes a reproducer, but a run that traps — an index out of range in
/// the simulator itself, a crash in SQLite — takes the whole process with it, and a swarm of thousands of
/// runs then leaves no seed to rerun. Each batch and swarm job notes the run it starts in a fixed slot
/// of preformatted text; after ``reportOnCrash()``, a fault (SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE)
/// first writes every noted run to standard error, then hands the fault to whatever handled it before
/// (Swift's backtracer), so the backtrace follows as usual.
///
/// ```swift
/// RunsInFlight.reportOnCrash()   // once, as a tool's command starts
/// // a crash then prints first:
/// // concord: crashed while running scenario 'wide' seed 19000052 (run it alone with --seeds 19000052..19000052)
/// ```
public enum RunsInFlight {
    /// Slots for jobs; job *j* writes slot *j* modulo this.
    static let slotCount = 64
    static let slotSize = 512
    /// The noted lines, one NUL-terminated line per slot (empty when the slot's job runs nothing).
    private nonisolated(unsafe) static let slots: UnsafeMutablePointer<UInt8> = {
        let slots = UnsafeMutablePointer<UInt8>.allocate(capacity: slotCount * slotSize)
        slots.initialize(repeating: 0, count: slotCount * slotSize)
        return slots
    }()
    /// The faults reported, and what handled each before.
    private static let signals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE]
    private nonisolated(unsafe) static let previous: UnsafeMutablePointer<sigaction> = {
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        previous.initialize(repeating: sigaction(), count: 65)
        return previous
    }()

    /// Installs the crash report for this process (a tool's, not a library user's: it owns the signals).
    public static func reportOnCrash() {
        _ = slots
        for signal in signals {
            var action = sigaction()
            action.sa_flags = SA_SIGINFO | SA_ONSTACK
            sigemptyset(&action.sa_mask)
            #if canImport(Glibc)
                action.__sigaction_handler.sa_sigaction = { signal, _, _ in RunsInFlight.report(signal) }
            #else
                action.__sigaction_u.__sa_sigaction = { signal, _, _ in RunsInFlight.report(signal) }
            #endif
            sigaction(signal, &action, previous + Int(signal))
        }
    }

    /// Runs `body`, the run of `simulation` on job `job`, with the run noted for a crash report.
    static func running<T>(_ simulation: Simulation, job: Int, _ body: () throws -> T) rethrows -> T {
        let slot = slots + (job % slotCount) * slotSize
        let seed = simulation.seed
        let line =
            Array(
                "concord: crashed while running scenario '\(simulation.scenario.name)' seed \(seed) "
                    .utf8.prefix(slotSize - 64)) + Array("(run it alone with --seeds \(seed)..\(seed))\n".utf8)
        line.withUnsafeBufferPointer { slot.update(from: $0.baseAddress!, count: line.count) }
        slot[line.count] = 0
        defer { slot[0] = 0 }
        return try body()
    }

    /// The lines noted now, slot by slot (what a crash would print).
    static var noted: [String] {
        (0..<slotCount).compactMap { index in
            let slot = slots + index * slotSize
            return slot[0] == 0 ? nil : String(cString: slot)
        }
    }

    /// The signal handler: only async-signal-safe calls (write, sigaction).
    private static func report(_ signal: Int32) {
        for index in 0..<slotCount {
            let slot = slots + index * slotSize
            guard slot[0] != 0 else { continue }
            _ = write(2, slot, strlen(UnsafeRawPointer(slot).assumingMemoryBound(to: CChar.self)))
        }
        // Back to the handler before; returning runs the faulting instruction again, which faults into it.
        sigaction(signal, previous + Int(signal), nil)
    }
}
