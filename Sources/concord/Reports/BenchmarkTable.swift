import Foundation

/// A table of strings rendered either aligned for a terminal or as Markdown.
///
/// Every benchmark table is built once as cells, so the text and Markdown
/// outputs can never disagree on a figure.
///
/// ```swift
/// let table = BenchmarkTable(header: ["phase", "ratio"], rows: [["insert", "1.90x"]])
/// print(table.aligned)    // phase   ratio ...
/// print(table.markdown)   // | phase | ratio | ...
/// ```
struct BenchmarkTable {
    var header: [String]
    var rows: [[String]]
    /// Columns (by index) holding figures: right-aligned in Markdown.
    var numericColumns: [Int] = []

    /// Columns padded to their widest cell, two spaces apart.
    var aligned: String {
        let all = [header] + rows
        let widths = header.indices.map { column in
            all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
            }.joined()
        }.joined(separator: "\n") + "\n"
    }

    /// A GitHub-flavoured Markdown table.
    var markdown: String {
        let rule = header.indices.map { numericColumns.contains($0) ? "---:" : "---" }
        return ([header, rule] + rows).map { "| " + $0.joined(separator: " | ") + " |" }.joined(separator: "\n") + "\n"
    }
}
