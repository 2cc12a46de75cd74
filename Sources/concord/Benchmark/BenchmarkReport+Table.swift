import Foundation

extension BenchmarkRunner.Report {
    /// The report as an aligned text table, one phase per line.
    var table: String {
        var text = "Concord vs plain SQLite \(sqlite): \(rows) rows, median of \(runs) run(s)\n"
        text += pad("phase", 20) + pad("plain", 13) + pad("concord", 13) + pad("ratio", 9) + "target\n"
        for phase in phases {
            let isSize = phase.name.hasPrefix("size")
            let format = { (value: Double) in
                isSize ? String(format: "%.1f MB", value / 1_000_000) : String(format: "%.3f s", value)
            }
            let target = phase.target.map { String(format: "<= %.1fx  %@", $0, phase.withinTarget ? "ok" : "OVER") } ?? "-"
            text += pad(phase.name, 20) + pad(format(phase.plain), 13) + pad(format(phase.concord), 13)
                + pad(String(format: "%.2fx", phase.ratio), 9) + target + "\n"
        }
        text += "export and apply are compared with inserting the same rows into a fresh plain table.\n"
        return text
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
