import ConcordTesting

/// An SQL template split into text and placeholders, parsed once so a bad placeholder is caught when
/// the scenario loads rather than when a step draws it.
///
/// ```swift
/// let template = try Template("UPDATE lists SET name = '{word}' WHERE id = 'l{1..3}'")
/// let sql = template.render(&source)   // e.g. "UPDATE lists SET name = 'milk' WHERE id = 'l2'"
/// ```
struct Template {
    enum Part {
        case text(String)
        case range(ClosedRange<Int>)
        case word
    }
    let parts: [Part]

    init(_ template: String) throws {
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            parts.append(.text(String(rest[..<open])))
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw ScenarioError("operation '\(template)' opens a placeholder with '{' and never closes it")
            }
            let name = rest[rest.index(after: open)..<close]
            if name == "word" {
                parts.append(.word)
            } else if let dots = name.range(of: ".."), let low = Int(name[..<dots.lowerBound]),
                let high = Int(name[dots.upperBound...]), low <= high
            {
                parts.append(.range(low...high))
            } else {
                throw ScenarioError(
                    "operation '\(template)' has placeholder '{\(name)}'; use {word} or {A..B} with A <= B")
            }
            rest = rest[rest.index(after: close)...]
        }
        parts.append(.text(String(rest)))
        self.parts = parts
    }

    func render(_ source: inout ChoiceSource) -> String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .range(let range): String(source.int(in: range))
            case .word: Workload.words[source.int(in: 0...Workload.words.count - 1)]
            }
        }.joined()
    }
}
