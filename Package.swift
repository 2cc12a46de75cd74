// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Concord",
    products: [
        .library(name: "Concord", targets: ["Concord"]),
        .library(name: "ConcordTesting", targets: ["ConcordTesting"]),
        .library(name: "ConcordSimulator", targets: ["ConcordSimulator"]),
        .executable(name: "concord", targets: ["ConcordCLI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "Concord", dependencies: ["CSQLite"]),
        .target(name: "ConcordTesting", dependencies: ["Concord"]),
        .target(name: "ConcordSimulator", dependencies: ["Concord", "ConcordTesting"]),
        .executableTarget(name: "ConcordCLI", dependencies: ["Concord", "ConcordSimulator", "ConcordTesting"], path: "Sources/concord"),
        // Helpers every test target shares: temporary folders, fixed clocks and node ids, the sqlite3 shell, the tool.
        .target(name: "ConcordTestSupport", dependencies: ["Concord"], path: "Tests/ConcordTestSupport"),
        // Fixtures (earlier layouts, fuzz reproducers) are read from the source tree by path.
        .testTarget(name: "ConcordTests", dependencies: ["Concord", "ConcordTesting", "ConcordTestSupport"],
                    exclude: ["Fixtures"]),
        // Black-box tests of the `concord` executable (built because this target depends on it).
        .testTarget(name: "ConcordCLITests", dependencies: ["ConcordCLI", "Concord", "ConcordTestSupport"]),
        .testTarget(name: "ConcordTestingTests", dependencies: ["ConcordTesting", "Concord", "ConcordTestSupport"]),
        .testTarget(name: "ConcordSimulatorTests", dependencies: ["ConcordSimulator", "Concord", "ConcordTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
