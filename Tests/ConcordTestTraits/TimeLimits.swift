import Testing

extension TimeLimitTrait.Duration {
    /// The time limit of a suite or test that could hang — one that waits for child processes or
    /// locks, loops until replicas agree, shrinks, simulates, or reads hostile input:
    /// `@Suite("...", .tags(.cli), .timeLimit(.hangGuard))`.
    ///
    /// Ten minutes, though each such test takes seconds, because a test's limit runs from when it
    /// is scheduled, not from when its body gets a thread: in a parallel `swift test`, synchronous
    /// tests hold the cooperative pool's threads (two on this 2-core machine), and the whole run
    /// takes about 5 minutes in a debug build. A shorter limit would fail tests that were only
    /// waiting. A test that blocks on processes for long runs its body with `offThePool`
    /// (ConcordTestSupport), which does not wait for the pool, and may then set a tighter limit of
    /// its own; when several limits apply, the shortest wins.
    ///
    /// A synchronous test cannot be interrupted: past its limit it is reported as failed ("Time
    /// limit was exceeded"), naming the test, while the run keeps waiting for it.
    public static var hangGuard: Self { .minutes(10) }
}
