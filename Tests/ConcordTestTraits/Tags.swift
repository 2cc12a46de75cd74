import Testing

/// The tags of Concord's tests: the one definition every test target uses (time limits: TimeLimits.swift).
///
/// Every suite carries the tag of the part it exercises (one of the first six) and any of the
/// others that apply. They are their own small target, with no dependency, so the pure
/// `ConcordCoreTests` can use them without linking SQLite; `ConcordTestSupport` re-exports them.
///
/// A toolchain whose `swift test` filters by tag, and Xcode's test navigator, select on them
/// (`--skip tag:slow`). The Swift 6.3 toolchain this package builds with on Linux does not, so
/// names stay filterable too: the slow suites are listed in README.md ("Fast inner loop") for
/// `swift test --skip`, and every `.property` test's function name starts with `property`.
extension Tag {
    // MARK: What a suite exercises

    /// ConcordCore's semantics alone: values, clock, merges, the changeset format. No SQLite.
    @Tag public static var core: Self
    /// The `Concord` library on real SQLite databases: capture, registers, merge, apply.
    @Tag public static var replica: Self
    /// The `concord` command-line tool: its argument parsing, and black-box runs of the executable.
    @Tag public static var cli: Self
    /// The `ConcordTesting` library: choice sequences, generators, shrinking, properties, merge laws, mutators.
    @Tag public static var concordTesting: Self
    /// `ConcordSimulator`: devices, networks, record server, reference model, checks, shrinking of plans.
    @Tag public static var simulation: Self
    /// `ConcordBenchmark`: the phases, workload and report of `concord bench` (never timings).
    @Tag public static var benchmark: Self

    // MARK: What a suite costs, or how it works

    /// Tests that take seconds rather than milliseconds in a debug build; the fast inner loop skips them.
    @Tag public static var slow: Self
    /// Randomized properties: hundreds of generated cases each, seconds per test in a debug build.
    ///
    /// Every test with this tag also has a function name starting with `property`, so a fast
    /// inner loop can skip them all with `swift test --skip /property`. Each prints its seed on
    /// failure; `CONCORD_SEED` replays it.
    @Tag public static var property: Self
    /// Hostile input: damaged or generated changesets, fuzzer runs and the reproducers they left.
    @Tag public static var fuzz: Self
    /// Comparisons with a checked-in file (pinned layouts, snapshots), regenerated only on purpose.
    @Tag public static var snapshot: Self
    /// Tests that `kill -9` real `concord` processes and check what they leave.
    @Tag public static var crash: Self
    /// Tests that run several processes or threads on one database file at once.
    @Tag public static var concurrency: Self
}
