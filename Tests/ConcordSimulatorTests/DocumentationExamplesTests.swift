// swift-format-ignore-file
// (The examples below are the documentation catalogs' code, character for character.)
import ConcordSimulator
import ConcordTestSupport
import Foundation
import Testing

// The examples of the ConcordSimulator documentation catalog
// (Sources/ConcordSimulator/ConcordSimulator.docc). Each test names the article and section it
// comes from; the code (and the scenario file) between the checks is the article's, character for
// character (`DocumentationSnippetTests` in ConcordTests checks that every example appears in one
// of the DocumentationExamplesTests files).

/// Simulating Your App, "Describe your app": the scenario file, as the article shows it.
let notesScenarioFile = #"""
{
  "name": "notes",
  "summary": "Folders of notes with a like counter, edited on three devices.",
  "topology": "mesh",
  "devices": 3,
  "steps": 120,
  "seeds": "1..5",
  "workload": {
    "schema": "CREATE TABLE folders (id TEXT PRIMARY KEY NOT NULL, name TEXT); CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, folder_id TEXT REFERENCES folders(id) ON DELETE CASCADE, body TEXT, likes INTEGER NOT NULL DEFAULT 0);",
    "tables": [
      { "name": "folders" },
      { "name": "notes", "merges": { "likes": "counter" } }
    ],
    "operations": [
      "INSERT OR IGNORE INTO folders (id, name) VALUES ('f{1..2}', '{word}')",
      "DELETE FROM folders WHERE id = 'f{1..2}'",
      "INSERT INTO notes (id, folder_id, body) VALUES ('n{1..4}', 'f{1..2}', '{word}')",
      "UPDATE notes SET body = '{word}' WHERE id = 'n{1..4}'",
      "UPDATE notes SET likes = likes + 1 WHERE id = 'n{1..4}'",
      "UPDATE notes SET likes = likes + 1 WHERE id = 'n{1..4}'",
      "DELETE FROM notes WHERE id = 'n{1..4}'"
    ]
  },
  "faults": { "crash": [0, 10], "loss": [0, 50] }
}
"""#

@Suite("Documentation: Simulating Your App", .tags(.simulation), .timeLimit(.hangGuard))
struct SimulatingYourAppExamples {
    @Test func theScenarioFileRunsFromSwift() throws {
        let folder = TemporaryDirectory()
        let scenarioPath = folder.url.appendingPathComponent("notes.json").path
        try Data(notesScenarioFile.utf8).write(to: URL(fileURLWithPath: scenarioPath))

        // Simulating Your App, "Run simulations from your tests"
        let scenario = try Scenario.load(path: scenarioPath)
        for seed in try scenario.seedRange {
            let result = try Simulation(scenario: scenario, seed: seed).run()
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
        }

        #expect(scenario.name == "notes" && scenario.devices == 3 && scenario.steps == 120)
        #expect(try scenario.seedRange == 1...5)
        #expect(scenario.workload.tables?.map(\.name) == ["folders", "notes"])
        #expect(scenario.faults.crash == [0, 10] && scenario.faults.loss == [0, 50])
        #expect(scenario.faults.duplicate == Scenario.Faults().duplicate, "fields left out keep their defaults")

        // Simulating Your App, "Run simulations from your tests" (a scenario built in Swift)
        var stress = Scenario(name: "notes-stress", topology: .cloud, devices: 4, steps: 300)
        stress.workload = scenario.workload
        stress.faults.fetchLimit = [1, 5]   // small fetches: children arrive before their parents
        try stress.validate()
        let result = try Simulation(scenario: stress, seed: 1).run()

        #expect(result.passed, "\(result.failure?.description ?? "did not converge")")
        #expect(result.fetches > 0 && result.writes > 0)
    }

    @Test func theSameSeedGivesTheSameRun() throws {
        let scenario = try JSONDecoder().decode(Scenario.self, from: Data(notesScenarioFile.utf8))
        let first = try Simulation(scenario: scenario, seed: 2).run()
        let second = try Simulation(scenario: scenario, seed: 2).run()
        #expect(first == second)
        #expect(first.traceHash == second.traceHash && first.dumpHash == second.dumpHash)
    }

    @Test func aReproducerReplays() throws {
        let path = ScenarioFileTests.root.appendingPathComponent("regressions/local-delete-kept-counter-value.json").path

        // Simulating Your App, "When a seed fails" (replaying from Swift)
        let reproducer = try Reproducer.read(from: path)
        let result = try reproducer.replay()   // runs the recorded plan and keeps its trace
        if let failure = result.failure { print(failure) }

        #expect(result.passed)
        #expect(reproducer.plan.steps.count == 3)
        #expect(reproducer.failure.hasPrefix("safety failure at step 2: device 2: counters 'c3'.taps"))
        #expect(result.trace?.isEmpty == false)
    }
}
