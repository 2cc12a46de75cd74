import ConcordBenchmark
import Foundation

extension BenchmarkScaling {
    /// Every size's report, then (for several sizes) the per-row costs side by side.
    var table: String {
        var text = reports.map(\.table).joined(separator: "\n")
        guard reports.count > 1 else { return text }
        text += "\nScaling: Concord / plain cost per row (us per row; bytes per row for sizes)\n"
        text += runsNote + "\n"
        text += perRowTable.aligned + "\nExport since a recent version, next to the full export\n" + recentTable.aligned
        if reports.contains(where: { $0.importProbe != nil }) {
            text += "\nStreamed import in a child process (concord import)\n" + probeTable.aligned
        }
        return text
    }

    /// The same as Markdown: one section per size, the scaling tables, then what each phase measures.
    var markdown: String {
        let legend = "\n#### What each phase measures\n\n" + Self.legend.markdown
        var text = reports.map(\.markdown).joined(separator: "\n")
        guard reports.count > 1 else { return text + legend }
        text += "\n#### Scaling: cost per row\n\n"
        text +=
            "Concord / plain, microseconds per row (bytes per row for sizes). \(runsNote) "
            + "The last column divides Concord's per-row cost at the largest size by that at the smallest: "
            + "1.00 is perfectly linear.\n\n"
        text += perRowTable.markdown + "\n#### Export since a recent version\n\n" + recentTable.markdown
        if reports.contains(where: { $0.importProbe != nil }) {
            text += "\n#### Streamed import in a child process\n\n" + probeTable.markdown
        }
        return text + legend
    }

    /// What each phase's Concord figure measures and what it is compared with.
    static var legend: BenchmarkTable {
        BenchmarkTable(
            header: ["phase", "Concord measures", "plain is"],
            rows: BenchmarkPhaseKind.allCases.map { [$0.rawValue, $0.measures, $0.baseline] })
    }

    /// Which sizes had fewer runs, so a single-run median is never mistaken for three.
    var runsNote: String {
        "Runs: " + reports.map { "\(BenchmarkFormat.count($0.rows)) rows \($0.runs)" }.joined(separator: ", ")
            + " (sizes from \(BenchmarkFormat.count(Self.largeSize)) rows run --large-runs times)."
    }

    /// Phase by size: Concord and plain per-row cost, and the growth from the smallest to the largest size.
    var perRowTable: BenchmarkTable {
        let rows = BenchmarkPhaseKind.allCases.map { kind -> [String] in
            let phases = reports.compactMap { $0.phase(kind) }
            let cells = phases.map { phase in
                let cost = phase.perOperation
                return Self.figure(cost.concord, kind.isSize) + " / " + Self.figure(cost.plain, kind.isSize)
            }
            let growth =
                phases.first.flatMap { first in
                    phases.last.map { last in
                        first.perOperation.concord > 0
                            ? BenchmarkFormat.ratio(last.perOperation.concord / first.perOperation.concord) : "-"
                    }
                } ?? "-"
            return [kind.rawValue] + cells + [growth]
        }
        let sizes = reports.map { BenchmarkFormat.count($0.rows) + " rows" }
        return BenchmarkTable(
            header: ["phase"] + sizes + ["largest / smallest"], rows: rows,
            numericColumns: Array(1...(sizes.count + 1)))
    }

    /// Per size: the export since a recent version next to the full export.
    var recentTable: BenchmarkTable {
        let rows = reports.map { report -> [String] in
            let recent = report.recentExport
            return [
                BenchmarkFormat.count(report.rows), "\(recent.writes) -> \(recent.changes)",
                BenchmarkFormat.seconds(recent.seconds), Self.figure(recent.perChange * 1e6, false),
                BenchmarkFormat.seconds(recent.fullExportSeconds), Self.figure(recent.fullExportPerRow * 1e6, false),
            ]
        }
        return BenchmarkTable(
            header: [
                "rows", "writes -> changes", "recent export", "us per change",
                "full export", "us per row",
            ], rows: rows, numericColumns: [0, 2, 3, 4, 5])
    }

    /// Per size: the child-process import's file, peak memory and time.
    var probeTable: BenchmarkTable {
        let rows = reports.compactMap { report -> [String]? in
            guard let probe = report.importProbe else { return nil }
            let megabytes = { (bytes: Int) in BenchmarkFormat.megabytes(Double(bytes)) }
            return [
                BenchmarkFormat.count(probe.changes), megabytes(probe.fileBytes), megabytes(probe.peakBytes),
                megabytes(probe.baselinePeakBytes), probe.withinLimit ? "ok" : "OVER",
                BenchmarkFormat.seconds(probe.seconds),
            ]
        }
        return BenchmarkTable(
            header: [
                "changes", "file", "peak RSS", "baseline RSS",
                "< \(ImportProbe.limitBytes / 1_000_000) MB", "time",
            ],
            rows: rows, numericColumns: [0, 1, 2, 3, 5])
    }

    private static func figure(_ value: Double, _ isSize: Bool) -> String {
        isSize ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }
}
