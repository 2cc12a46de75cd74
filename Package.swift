// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Concord",
    products: [
        .library(name: "Concord", targets: ["Concord"]),
        .executable(name: "concord", targets: ["ConcordCLI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "Concord", dependencies: ["CSQLite"]),
        .executableTarget(name: "ConcordCLI", dependencies: ["Concord"], path: "Sources/concord"),
        .testTarget(name: "ConcordTests", dependencies: ["Concord", "ConcordCLI"]),
    ],
    swiftLanguageModes: [.v6]
)
