import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordSimulator

/// The scenario files in `Simulations/` run in CI over a bounded seed range,
/// and every reproducer in `Simulations/regressions/` must pass.
@Suite("Scenario files and regressions", .tags(.simulation, .slow), .timeLimit(.hangGuard))
struct ScenarioFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Simulations")

    static func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted().map { folder.appendingPathComponent($0).path }
    }

    static let scenarios = files(in: root)
    static let regressions = files(in: root.appendingPathComponent("regressions"))
    /// Seeds per scenario here, where each file runs in this library's own process; `.ci/run` sweeps every
    /// file over seeds 1...40 from the release tool, and `concord simulate FILE` runs the file's own range.
    static let seedsInCI: ClosedRange<UInt64> = 1...1

    @Test func everyFamilyHasAScenario() {
        let names = Set(Self.scenarios.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
        let families: Set = [
            "forked-edits", "out-of-order-children", "cascading-deletes", "move-delete-race",
            "counter-app", "reminders-cloud", "crash-restart", "clock-skew", "rolling-upgrade", "wide",
        ]
        #expect(families.isSubset(of: names), "missing: \(families.subtracting(names).sorted())")
    }

    @Test(arguments: scenarios)
    func scenarioPasses(path: String) throws {
        let scenario = try Scenario.load(path: path)
        for seed in Self.seedsInCI {
            let result = try Simulation(scenario: scenario, seed: seed).run()
            #expect(
                result.passed, "\(scenario.name) seed \(seed): \(result.failure?.description ?? "did not converge")")
        }
    }

    @Test(arguments: regressions)
    func regressionPasses(path: String) throws {
        let reproducer = try Reproducer.read(from: path)
        let result = try reproducer.replay()
        #expect(result.passed, "\(path) fails again: \(result.failure?.description ?? "did not converge")")
        #expect(!reproducer.plan.steps.isEmpty)
    }

    @Test func aScenarioNeedsOnlyAName() throws {
        let scenario = try JSONDecoder().decode(Scenario.self, from: Data(#"{"name": "quick"}"#.utf8))
        #expect(scenario == Scenario(name: "quick"))
        try scenario.validate()
    }

    @Test func theFullCheckRunsEveryFullEverySteps() throws {
        let json = #"{"name": "x", "checks": {"fullEvery": 3}}"#
        let scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        #expect((0..<7).filter { scenario.checks.isFull(step: $0) } == [2, 5])
        #expect(Scenario(name: "x").checks.fullEvery == 10)
    }

    @Test(arguments: [
        (#"{"name": "x", "checks": {"fullEvery": 0}}"#, "checks.fullEvery is 0; give 1 (every step) or more"),
        (#"{"name": "x", "devices": 1}"#, "\"devices\" is 1; a simulation needs at least 2"),
        (
            #"{"name": "x", "seeds": "9..1"}"#,
            "seeds '9..1' is not a range; write it as A..B with A <= B, such as 1..20"
        ),
        (
            #"{"name": "x", "faults": {"loss": [40, 10]}}"#,
            "faults.loss is [40, 10]; give it as [low, high] with 0 <= low <= high"
        ),
        (
            #"{"name": "x", "workload": {"app": "todo"}}"#,
            "unknown app 'todo'; the built-in apps are counter, reminders, wide"
        ),
        (
            #"{"name": "x", "workload": {"schema": "CREATE TABLE t (id TEXT PRIMARY KEY)", "tables": [{"name": "t"}], "operations": ["DELETE FROM t WHERE id = '{1..}'"]}}"#,
            "operation 'DELETE FROM t WHERE id = '{1..}'' has placeholder '{1..}'; use {word}, {key}, {value}, {union}, {name:X} or {A..B} with A <= B"
        ),
        (
            #"{"name": "x", "workload": {"app": "counter", "versions": [{"migration": " "}]}}"#,
            "version 2: \"migration\" is empty; give the SQL the app runs to upgrade"
        ),
        (
            #"{"name": "x", "workload": {"app": "counter", "versions": [{"migration": "SELECT 1", "operations": ["{x}"]}]}}"#,
            "version 2: operation '{x}' has placeholder '{x}'; use {word}, {key}, {value}, {union}, {name:X} or {A..B} with A <= B"
        ),
        (
            #"{"name": "x", "workload": {"app": "counter", "versions": [{"migration": "SELECT 1", "tables": [{"name": "themes", "merges": {"background": "avg"}}]}]}}"#,
            "version 2: table 'themes' merges background with 'avg'; a scenario can use lww, max, min, counter, union, longest"
        ),
        (
            #"{"name": "x", "mix": {"write": 50, "sync": 45, "upgrade": 6}, "workload": {"app": "counter", "versions": [{"migration": "SELECT 1"}]}}"#,
            "mix gives write 50, sync 45 and upgrade 6; each must be >= 0 and together at most 100"
        ),
        (
            #"{"name": "x", "mix": {"batch": [0, 3]}}"#,
            "mix.batch is [0, 3]; give it as [low, high] with 1 <= low <= high <= 20"
        ),
    ])
    func badScenariosSayWhatIsWrong(json: String, message: String) throws {
        let scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        #expect(throws: ScenarioError(message)) { try scenario.validate() }
    }

    /// A release is tried on a scratch database when the scenario loads: a migration that fails, or one
    /// that changes a synced table in a way Concord does not sync, is named before any device starts.
    @Test(arguments: [
        ("ALTER TABLE nowhere ADD COLUMN x INTEGER", "version 2's migration fails: SQLite error"),
        ("ALTER TABLE themes RENAME COLUMN foreground TO fg", "version 2's migration is not additive: table 'themes'"),
        ("ALTER TABLE themes ADD COLUMN accent TEXT", "version 2 adds columns to table 'themes', which syncs by row"),
        (
            "ALTER TABLE counters ADD COLUMN views INTEGER NOT NULL DEFAULT 5",
            "version 2's migration fails: cannot sync table 'counters': its new column views is declared a counter"
        ),
    ])
    func releasesThatCannotRunSayWhy(migration: String, start: String) throws {
        var scenario = Scenario(name: "x")
        let tables =
            migration.contains("views") ? [Workload.Table(name: "counters", merges: ["views": "counter"])] : nil
        scenario.workload = Workload(app: "counter", versions: [.init(migration: migration, tables: tables)])
        #expect {
            try scenario.validate()
        } throws: { error in
            (error as? ScenarioError)?.message.hasPrefix(start) == true
        }
    }

    /// A release may make a change Concord refuses if a later one undoes it, in a scenario whose writes come
    /// one statement at a time; a refused child is fine too, as its parent table waits with it.
    @Test(
        arguments: [
            ("CREATE UNIQUE INDEX tags_name ON tags (name)", "DROP INDEX tags_name", [1, 1], nil),
            (
                "CREATE UNIQUE INDEX tags_name ON tags (name)", "SELECT 1", [1, 1],
                "version 3's migration is not additive: "
            ),
            ("CREATE UNIQUE INDEX items_body ON items (body)", "DROP INDEX items_body", [1, 1], nil),
            (
                "CREATE UNIQUE INDEX tags_name ON tags (name)", "DROP INDEX tags_name", [2, 3],
                "mix.batch is [2, 3], and a release refuses a table"
            ),
        ] as [(String, String, [Int], String?)])
    func aRefusingReleaseIsUndoneLaterAndStandsAlone(refuse: String, undo: String, batch: [Int], start: String?) throws
    {
        var scenario = Scenario(name: "x")
        scenario.mix.batch = batch
        scenario.workload = Workload(
            schema: "CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT); CREATE TABLE items (id TEXT "
                + "PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE CASCADE, body TEXT); "
                + "CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT);",
            tables: [.init(name: "lists"), .init(name: "items"), .init(name: "tags")],
            operations: ["INSERT OR IGNORE INTO tags (id, name) VALUES ('t{1..2}', '{word}')"],
            versions: [.init(migration: refuse), .init(migration: undo)])
        guard let start else { return try scenario.validate() }
        #expect {
            try scenario.validate()
        } throws: { error in
            (error as? ScenarioError)?.message.hasPrefix(start) == true
        }
    }
}
