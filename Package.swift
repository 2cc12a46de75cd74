// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Concord",
    products: [
        .library(name: "Concord", targets: ["Concord"]),
        .library(name: "ConcordCore", targets: ["ConcordCore"]),
        .library(name: "ConcordTesting", targets: ["ConcordTesting"]),
        .library(name: "ConcordSimulator", targets: ["ConcordSimulator"]),
        .library(name: "ConcordBenchmark", targets: ["ConcordBenchmark"]),
        .executable(name: "concord", targets: ["ConcordCLI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The semantics, pure: values, stamps, clock, merges, visibility, the changeset format. No SQLite.
        .target(name: "ConcordCore"),
        // The SQLite shell around it: capture, register storage, the replica.
        .target(name: "Concord", dependencies: ["ConcordCore", "CSQLite"]),
        // Property testing a user can use too: generators, shrinking, merge laws, hostile changesets.
        .target(name: "ConcordTesting", dependencies: ["ConcordCore"]),
        .target(name: "ConcordSimulator", dependencies: ["Concord", "ConcordTesting"]),
        // Concord against plain SQLite, phase by phase, on the machine it runs on.
        .target(name: "ConcordBenchmark", dependencies: ["Concord"]),
        // The command-line tool: options, dispatch and output over the libraries.
        .executableTarget(
            name: "ConcordCLI", dependencies: ["Concord", "ConcordSimulator", "ConcordTesting", "ConcordBenchmark"],
            path: "Sources/concord"),
        // The tags and time limits every test target uses, alone so the pure ConcordCoreTests can have them without SQLite.
        .target(name: "ConcordTestTraits", path: "Tests/ConcordTestTraits"),
        // The test process's SQLite set-up, in C since it runs when the test bundle loads, before any test: no
        // memory statistics, whose process-wide lock tests running side by side would take turns on.
        .target(name: "ConcordTestProcess", dependencies: ["CSQLite"], path: "Tests/ConcordTestProcess"),
        // Helpers every test target shares: temporary folders, fixed clocks and node ids, the sqlite3 shell, the tool.
        // Re-exports ConcordTestTraits.
        .target(
            name: "ConcordTestSupport", dependencies: ["Concord", "ConcordTestTraits", "ConcordTestProcess"],
            path: "Tests/ConcordTestSupport"
        ),
        // Fixtures (earlier layouts, fuzz reproducers, snapshots) are read from the source tree by path.
        // The semantics alone: builds and runs without SQLite.
        .testTarget(name: "ConcordCoreTests", dependencies: ["ConcordCore", "ConcordTesting", "ConcordTestTraits"]),
        .testTarget(
            name: "ConcordTests",
            dependencies: ["Concord", "ConcordTesting", "ConcordSimulator", "ConcordTestSupport"],
            exclude: ["Fixtures"]),
        // Black-box tests of the `concord` executable, which `swift test` builds (ConcordCLIUnitTests depends on it).
        // Not depending on the tool's module lets them compile beside it rather than after it.
        .testTarget(name: "ConcordCLITests", dependencies: ["Concord", "ConcordTestSupport"]),
        // The tool's own parts in process: its argument parser, typed options and progress meter.
        .testTarget(name: "ConcordCLIUnitTests", dependencies: ["ConcordCLI", "Concord", "ConcordTestSupport"]),
        .testTarget(name: "ConcordTestingTests", dependencies: ["ConcordTesting", "Concord", "ConcordTestSupport"]),
        .testTarget(
            name: "ConcordSimulatorTests",
            dependencies: ["ConcordSimulator", "Concord", "ConcordTesting", "ConcordTestSupport"]),
        .testTarget(
            name: "ConcordBenchmarkTests", dependencies: ["ConcordBenchmark", "Concord", "ConcordTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// The tests' own code is compiled without optimization, in a release build too: what they test, the libraries
// and the tool, is optimized either way. On the 2-core CI machine the test targets then compiled in 85 s
// instead of 143 s, and the pure and simulator suites ran 2% longer (125 s against 123 s).
for target in package.targets where target.type == .test || target.path?.hasPrefix("Tests/") == true {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone"])]
}
