import Concord
import Foundation

extension Workload {
    /// One release of the app after the first: the migration its migrator runs on the device's own
    /// database, the tables it declares, and the operations its users can perform from then on.
    ///
    /// Devices of one user run different releases for days, so a device that
    /// has not upgraded yet receives rows (and columns, and tables) from one
    /// that has, and passes them on. A release's `tables` lists the tables it
    /// starts syncing and the tables whose new columns it declares a merge on;
    /// a column added without a merge needs no entry, since Concord picks up
    /// an added column by itself. Its `operations` join those of the releases
    /// before it.
    ///
    /// ```swift
    /// let v2 = Workload.Version(
    ///     migration: "ALTER TABLE reminders ADD COLUMN priority INTEGER NOT NULL DEFAULT 0",
    ///     operations: ["UPDATE reminders SET priority = {0..3} WHERE id = 'r{1..6}'"])
    /// ```
    public struct Version: Codable, Equatable, Sendable {
        /// The SQL the app runs on its database when it upgrades to this release, in one transaction.
        public var migration: String
        /// Tables to enable sync on from this release: new tables, and old ones with merges for new columns.
        public var tables: [Table]?
        /// Operations this release adds to those of the earlier ones.
        public var operations: [String]?

        /// A release running `migration`, declaring `tables` and adding `operations`.
        public init(migration: String, tables: [Table]? = nil, operations: [String]? = nil) {
            self.migration = migration
            self.tables = tables
            self.operations = operations
        }
    }

    /// The newest release: 1 for a workload without ``versions``.
    public var lastVersion: Int { 1 + (versions?.count ?? 0) }

    /// The tables a device at `version` syncs, parents before children, each with every merge declared so far.
    func tables(at version: Int) -> [Table] {
        var result = tables ?? []
        for release in (versions ?? []).prefix(max(0, version - 1)) {
            for table in release.tables ?? [] {
                guard let index = result.firstIndex(where: { SQLiteName.same($0.name, table.name) }) else {
                    result.append(table)
                    continue
                }
                result[index].policy = table.policy ?? result[index].policy
                result[index].merges = (result[index].merges ?? [:]).merging(table.merges ?? [:]) { _, new in new }
            }
        }
        return result
    }

    /// The operations a device at `version` can perform: those of every release up to it.
    func operations(at version: Int) -> [String] {
        (operations ?? []) + (versions ?? []).prefix(max(0, version - 1)).flatMap { $0.operations ?? [] }
    }

    /// Upgrades the app on `replica` from release `from` to release `to`, running every migration in
    /// between in order (as an app that skipped a release does), each in its own transaction, and
    /// enabling sync on the tables each declares.
    ///
    /// Tables that sync already are declared again first, then the new ones: enabling a new table
    /// takes up every pending added column, each with the default merge, after which a merge
    /// declared on one would be a change of merge, which Concord refuses.
    ///
    /// As an app's migrator does, each migration records its release in the database
    /// (`PRAGMA user_version`) in its own transaction, and a migration the database records already is
    /// skipped: an upgrade a crash interrupted is finished by running it again (its tables are declared
    /// again, which changes nothing for those already declared), where running a migration twice
    /// would fail.
    func upgrade(_ replica: Replica, from: Int, to: Int) throws {
        guard to > from else { return }
        for version in (from + 1)...min(to, lastVersion) {
            let release = versions![version - 2]
            try replica.database.transaction {
                let migrated = try replica.database.scalar("PRAGMA user_version")?.integerValue ?? 0
                guard migrated < version else { return }
                try replica.database.execute(release.migration)
                try replica.database.execute("PRAGMA user_version = \(version)")
            }
            let earlier = tables(at: version - 1)
            let (old, new) = (release.tables ?? []).reduce(into: ([Table](), [Table]())) { split, table in
                if earlier.contains(where: { SQLiteName.same($0.name, table.name) }) {
                    split.0.append(table)
                } else {
                    split.1.append(table)
                }
            }
            let declared = tables(at: version)
            for table in old + new {
                try declared.first { SQLiteName.same($0.name, table.name) }!.enable(on: replica)
            }
        }
    }

    /// Checks every release's parts: a migration, tables a scenario can declare, templates that parse.
    /// Whether the migrations run, and change the schema only in ways Concord syncs, is for
    /// ``VersionSchemas`` to find out, which ``Scenario/validate()`` builds.
    func validateVersions() throws {
        guard let versions, !versions.isEmpty else { return }
        for (offset, release) in versions.enumerated() {
            let context = "version \(offset + 2): "
            guard !release.migration.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ScenarioError("\(context)\"migration\" is empty; give the SQL the app runs to upgrade")
            }
            try Self.validate(release.tables ?? [], context: context)
            for template in release.operations ?? [] {
                do { _ = try Template(template) } catch let error as ScenarioError {
                    throw ScenarioError(context + error.message)
                }
            }
        }
    }
}
