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
        .executableTarget(name: "ConcordCLI", dependencies: ["Concord", "ConcordSimulator"], path: "Sources/concord"),
        .testTarget(name: "ConcordTests", dependencies: ["Concord", "ConcordTesting", "ConcordCLI"]),
        .testTarget(name: "ConcordTestingTests", dependencies: ["ConcordTesting", "Concord"]),
        .testTarget(name: "ConcordSimulatorTests", dependencies: ["ConcordSimulator", "Concord", "ConcordTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
