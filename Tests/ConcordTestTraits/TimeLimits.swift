import Testing

extension TimeLimitTrait.Duration {
    /// The minutes of ``hangGuard``, for a limit that grows with a longer local run
    /// (`.minutes(max(hangGuardMinutes, trials / 40))`).
    public static let hangGuardMinutes = 10

    /// The time limit of a suite or test that could hang — one that waits for child processes or
    /// locks, loops until replicas agree, shrinks, simulates, or reads hostile input:
    /// `@Suite("...", .tags(.cli), .timeLimit(.hangGuard))`.
    ///
    /// Ten minutes, though each such test takes seconds, because a test's limit runs from when it
    /// is scheduled until it has finished on the cooperative pool, not only while its body runs. In
    /// a parallel `swift test`, synchronous tests hold the pool's threads (two on this 2-core
    /// machine) for minutes, and the whole run takes about 5 minutes in a debug build. A test that
    /// runs its body with `offThePool` (ConcordTestSupport) does not wait for a thread to start
    /// it, but still resumes on the pool when it ends: the crash, concurrent-writer and lock
    /// harnesses, whose bodies take one to two minutes, failed a full run with limits of 4, 2 and
    /// 1 minutes while they waited for a thread after their work was done. So no limit here is
    /// shorter than this one.
    ///
    /// A synchronous test cannot be interrupted: past its limit it is reported as failed ("Time
    /// limit was exceeded"), naming the test, while the run keeps waiting for it.
    public static var hangGuard: Self { .minutes(hangGuardMinutes) }
}
