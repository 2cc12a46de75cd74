import Concord
import ConcordTesting

extension Workload {
    /// The names the workload writes as `{name:X}`, in order of first use: in the schema, the
    /// migrations, then the operations.
    var logicalNames: [String] {
        var names: [String] = []
        let texts =
            [schema ?? ""] + (versions ?? []).map(\.migration) + (operations ?? [])
            + (versions ?? []).flatMap { $0.operations ?? [] }
        for text in texts { WorkloadNames.logicalNames(in: text, into: &names) }
        return names
    }

    /// This workload with its `{name:X}` names replaced by `drawn` (in the order of ``logicalNames``), or
    /// by themselves when `drawn` is `nil`: in its schema, migrations and operations (quoted), and in its
    /// tables' names and merges (as they are).
    ///
    /// ```swift
    /// let app = try Workload.wide.resolved().naming(plan.names)
    /// ```
    func naming(_ drawn: [String]?) -> Workload {
        let names = WorkloadNames(logical: logicalNames, drawn: drawn ?? [])
        var named = self
        named.schema = schema.map(names.substitute)
        named.operations = operations?.map(names.substitute)
        named.tables = tables?.map { $0.named(names) }
        named.versions = versions?.map { release in
            Version(
                migration: names.substitute(in: release.migration), tables: release.tables?.map { $0.named(names) },
                operations: release.operations?.map(names.substitute))
        }
        return named
    }

    /// Checks that ``names`` is one a scenario can give.
    func validateNames() throws {
        guard let names, !["drawn", "plain"].contains(names) else { return }
        throw ScenarioError("workload.names is '\(names)'; use \"drawn\" or \"plain\"")
    }
}

extension Workload.Table {
    /// This table with its name and its merges' columns standing for what `names` says.
    func named(_ names: WorkloadNames) -> Workload.Table {
        Workload.Table(
            name: names.identifier(name), policy: policy,
            merges: merges.map { merges in
                Dictionary(merges.map { (names.identifier($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
            })
    }
}
