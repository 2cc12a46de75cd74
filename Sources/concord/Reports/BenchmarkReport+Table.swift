import ConcordBenchmark
import Foundation

extension BenchmarkReport {
    /// The report for a terminal: a title, the phase table, then the recent export and import probe.
    var table: String {
        var text = "Concord vs plain SQLite \(sqlite): \(BenchmarkFormat.count(rows)) rows, median of \(runs) run(s)\n"
        text += phaseTable(markdown: false).aligned
        text += "\n" + notes.map { $0 + "\n" }.joined()
        return text
    }

    /// The report as Markdown: a heading, the phase table and the notes as a list.
    var markdown: String {
        var text = "#### \(BenchmarkFormat.count(rows)) rows, median of \(runs) run\(runs == 1 ? "" : "s")\n\n"
        text += phaseTable(markdown: true).markdown
        text += "\n" + notes.map { "- " + $0 + "\n" }.joined()
        return text
    }

    /// Phase, plain, Concord, ratio, target, and what plain stands for.
    func phaseTable(markdown: Bool) -> BenchmarkTable {
        let rows = phases.map { phase -> [String] in
            let verdict = phase.withinTarget ? "ok" : (markdown ? "**over**" : "OVER")
            let target = phase.target.map { String(format: "<= %.1fx ", $0) + verdict } ?? "-"
            return [
                phase.name, BenchmarkFormat.value(phase.plain, isSize: phase.kind.isSize),
                BenchmarkFormat.value(phase.concord, isSize: phase.kind.isSize),
                BenchmarkFormat.ratio(phase.ratio),
                markdown ? target.replacingOccurrences(of: "<=", with: "≤") : target,
                phase.kind.baseline,
            ]
        }
        return BenchmarkTable(
            header: ["phase", "plain", "concord", "ratio", "target", "plain is"], rows: rows,
            numericColumns: [1, 2, 3])
    }

    /// One line each for the export since a recent version and the child-process import.
    var notes: [String] {
        let recent = recentExport
        let micro = { (seconds: Double) in String(format: "%.2f us/row", seconds * 1e6) }
        var lines = [
            "export since a recent version: \(recent.writes) writes -> \(recent.changes) rows, "
                + "\(BenchmarkFormat.seconds(recent.seconds)) (\(micro(recent.perChange)), "
                + "\(BenchmarkFormat.megabytes(Double(recent.bytes)))); full export: "
                + "\(BenchmarkFormat.count(recent.fullExportRows)) rows, \(BenchmarkFormat.seconds(recent.fullExportSeconds)) "
                + "(\(micro(recent.fullExportPerRow)))"
        ]
        if !updateRounds.isEmpty {
            lines.append(
                "size after each of \(updateRounds.count) update rounds (each folded and checkpointed), Concord over plain: "
                    + updateRounds.map { "\($0.round): " + BenchmarkFormat.ratio($0.ratio) }.joined(separator: ", "))
        }
        if let probe = importProbe {
            let megabytes = { (bytes: Int) in BenchmarkFormat.megabytes(Double(bytes)) }
            lines.append(
                "streamed import in a child process (concord import, first run): "
                    + "\(BenchmarkFormat.count(probe.changes)) changes, \(megabytes(probe.fileBytes)) file, "
                    + "peak RSS \(megabytes(probe.peakBytes)) (baseline \(megabytes(probe.baselinePeakBytes)) "
                    + "importing \(recent.changes) rows), limit \(ImportProbe.limitBytes / 1_000_000) MB: "
                    + "\(probe.withinLimit ? "ok" : "OVER"); took \(BenchmarkFormat.seconds(probe.seconds))")
        }
        return lines
    }
}
