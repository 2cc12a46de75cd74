import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

/// Table and column names drawn per seed: distinct, quoted wherever the simulator writes SQL, and read
/// back from the statements it generated.
///
/// A name the simulator splices in unquoted, or reads back by splitting at
/// spaces, would make the app's statements fail or the ledger record a write
/// against the wrong table; these catch that before a long run does.
@Suite(.tags(.simulation))
struct WorkloadNamesTests {
    static let wide = try! Workload.wide.resolved()

    static func names(seed: UInt64) -> [String] {
        var source = ChoiceSource(seed: seed)
        return WorkloadNames.draw(for: wide, using: &source)
    }

    @Test func drawnNamesAreDistinctToSQLiteAndToSwift() {
        for seed in 1...300 as ClosedRange<UInt64> {
            let names = Self.names(seed: seed)
            #expect(names.count == Self.wide.logicalNames.count)
            for (index, name) in names.enumerated() {
                #expect(!name.isEmpty, "seed \(seed)")
                for other in names[..<index] {
                    #expect(other != name && !SQLiteName.same(other, name), "seed \(seed): \(other) and \(name)")
                }
            }
        }
    }

    @Test func noDrawnTableNameStartsWithAQuote() {
        let tables = (Self.wide.tables ?? []).map(\.name)
        for seed in 1...300 as ClosedRange<UInt64> {
            let named = Self.wide.naming(Self.names(seed: seed))
            for table in named.tables ?? [] {
                #expect(!["\"", "'", "`", "["].contains(table.name.unicodeScalars.first.map(String.init) ?? ""))
            }
            #expect(named.tables?.count == tables.count)
        }
    }

    @Test func everyRenderedStatementRunsAndNamesItsTable() throws {
        for seed in 1...40 as ClosedRange<UInt64> {
            let app = Self.wide.naming(Self.names(seed: seed))
            let replica = try Replica.inMemory(configuration: .init(merges: Workload.mergeFunctions))
            try app.install(on: replica)
            let tables = Set(replica.tables.map(\.name))
            #expect(tables == Set((app.tables ?? []).map(\.name)), "seed \(seed)")
            let views = Set(
                try replica.database.query("SELECT name FROM sqlite_schema WHERE type = 'view'").compactMap(
                    \.first?.textValue))
            #expect(views.count == 1, "seed \(seed)")
            var source = ChoiceSource(seed: seed)
            for _ in 0..<80 {
                let sql = app.operation(&source)
                if Workload.wideMaintenance.contains(sql) || Statement.changesSchema(sql) {
                    try replica.database.execute(sql)
                    continue
                }
                let named = Statement.tables(namedBy: sql)
                #expect(!named.isEmpty, "seed \(seed): no table in \(sql)")
                for table in named {
                    #expect(tables.contains(table) || views.contains(table), "seed \(seed): \(table) read from \(sql)")
                }
                do { try replica.database.execute(sql) } catch {
                    // A write may be refused (a key taken, a parent missing: ``SimulationRun/isRefusal(_:)``);
                    // the SQL must parse. A transaction refused inside stays open, and the app rolls it back.
                    let refused = (error as? SQLiteError).map(SimulationRun.isRefusal)
                    #expect(refused == true, "seed \(seed): \(sql): \(error)")
                    if replica.database.inTransaction { try replica.database.execute("ROLLBACK") }
                }
            }
        }
    }

    @Test func statementsReadQuotedTableNames() {
        let cases: [(String, String)] = [
            (#"DELETE FROM "a ""b"" FROM" WHERE "id" = 'into'"#, #"a "b" FROM"#),
            (#"INSERT OR REPLACE INTO "x y" ("into") VALUES (1)"#, "x y"),
            ("UPDATE \"\u{301}e\" SET \"v\" = 1", "\u{301}e"),
            ("UPDATE lists SET name = 'milk' WHERE id = 'l1'", "lists"),
            ("INSERT INTO `select` (a) VALUES ('update')", "select"),
        ]
        for (sql, table) in cases { #expect(Statement.table(writtenBy: sql) == table, "\(sql)") }
        let transaction = #"BEGIN; INSERT INTO "a;b" (id) VALUES ('x; UPDATE y'); UPDATE c SET v = 1; COMMIT"#
        #expect(Statement.tables(namedBy: transaction) == ["a;b", "c"])
        #expect(Statement.tables(namedBy: "INSERT INTO t (id) VALUES (1) ON CONFLICT DO UPDATE SET v = 2") == ["t"])
        #expect(Statement.tables(namedBy: #"UPDATE OR IGNORE "or" SET v = 1"#) == ["or"])
        let bulk =
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 4) "
            + "INSERT INTO t SELECT x FROM n"
        #expect(Statement.tables(namedBy: bulk) == ["t"])
        // A schema before the name: `main.t` names `t`, quoted or not, spaced or not; a `WITH` name so
        // qualified is a table.
        #expect(Statement.tables(namedBy: #"INSERT INTO main."a.b" (id) VALUES ('x') RETURNING *"#) == ["a.b"])
        let join = "UPDATE OR IGNORE main . t SET v = s.v FROM u AS s WHERE s.id = t.id"
        #expect(Statement.tables(namedBy: join) == ["t", "u"])
        #expect(Statement.tables(namedBy: "WITH n(x) AS (SELECT 1) INSERT INTO main.n SELECT x FROM n") == ["n"])
        #expect(Statement.tables(namedBy: #"DELETE FROM "main" WHERE id = 'main.x'"#) == ["main"])
    }

    /// An upsert's conflict updates the row, and Concord captures an update: the ledger must record one.
    @Test func upsertsAreToldFromOtherInserts() {
        #expect(Statement.updatesOnConflict("INSERT INTO t (id) VALUES ('a') ON CONFLICT DO UPDATE SET v = 1"))
        #expect(Statement.updatesOnConflict("insert into t values (1) on conflict (id) do update set v = excluded.v"))
        #expect(!Statement.updatesOnConflict("INSERT INTO t (id) VALUES ('a') ON CONFLICT DO NOTHING"))
        #expect(!Statement.updatesOnConflict(#"INSERT INTO "do" ("update") VALUES ('do update')"#))
        #expect(!Statement.updatesOnConflict("INSERT OR REPLACE INTO t VALUES ('a')"))
    }

    @Test func templatesLeaveQuotedIdentifiersAlone() throws {
        var source = ChoiceSource(seed: 1)
        let template = try Template(#"UPDATE "{word}""" SET "\u{301}{1..2}" = {0..0} WHERE id = '{name:x}'"#)
        #expect(template.render(&source) == #"UPDATE "{word}""" SET "\u{301}{1..2}" = 0 WHERE id = '"x"'"#)
    }

    /// Wide seed 384 failed only after seeds 374..383 ran in the same process: the process's template
    /// cache, keyed by `String`, took a template naming `Å` (U+212B) for one naming `Å` (U+00C5), which
    /// SQLite tells apart, and rendered another run's column name.
    @Test func templatesOfCanonicallyEquivalentNamesStayApart() {
        var source = ChoiceSource(seed: 1)
        for name in ["\u{C5}", "\u{212B}", "A\u{30A}"] {
            let text = "UPDATE t SET \"\(name)\" = 1"
            #expect(Array((Template.parsed(text)?.render(&source) ?? "").utf8) == Array(text.utf8))
        }
    }

    @Test func namesSubstituteQuoted() {
        let names = WorkloadNames(logical: ["items", "id"], drawn: ["order", "a\"b"])
        #expect(names.substitute(in: "SELECT {name:id} FROM {name:items}") == #"SELECT "a""b" FROM "order""#)
        #expect(WorkloadNames().substitute(in: "{name:t}") == #""t""#)
    }

    @Test func theSameSeedDrawsTheSameNamesAndOtherSeedsOthers() throws {
        let scenario = Scenario(name: "wide", workload: Workload(app: "wide"))
        let first = Simulation(scenario: scenario, seed: 9).plan().plan
        #expect(first.names == Simulation(scenario: scenario, seed: 9).plan().plan.names)
        #expect(first.names != Simulation(scenario: scenario, seed: 10).plan().plan.names)
        #expect(Simulation(scenario: Scenario(name: "plain"), seed: 9).plan().plan.names == nil)
    }
}
