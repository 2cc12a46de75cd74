import ConcordTestSupport
import Foundation
import Testing

/// Every Swift and JSON example in the documentation catalogs must be code the tests run.
///
/// The examples live in the `DocumentationExamplesTests.swift` files of the test targets, which
/// run them against in-memory replicas and check their outcome. This suite reads each catalog's
/// articles and requires every ```swift and ```json block to appear in one of those files as
/// consecutive lines (compared without their indentation), so an article cannot show code that no
/// longer compiles or no longer does what the article says. Shell and text blocks are not checked.
@Suite("Documentation snippets", .tags(.replica))
struct DocumentationSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let catalogs = [
        "Sources/Concord/Concord.docc",
        "Sources/ConcordCore/ConcordCore.docc",
        "Sources/ConcordTesting/ConcordTesting.docc",
        "Sources/ConcordSimulator/ConcordSimulator.docc",
    ]

    static let exampleFiles = [
        "Tests/ConcordTests/DocumentationExamplesTests.swift",
        "Tests/ConcordTestingTests/DocumentationExamplesTests.swift",
        "Tests/ConcordSimulatorTests/DocumentationExamplesTests.swift",
    ]

    /// One fenced block of an article.
    struct Snippet: CustomTestStringConvertible, Sendable {
        let file: String
        let line: Int
        let language: String
        let lines: [String]
        var testDescription: String { "\(file):\(line) (\(language))" }
    }

    /// The article files of every catalog, relative to the package root, sorted.
    static func articles() -> [String] {
        catalogs.flatMap { catalog -> [String] in
            let folder = root.appendingPathComponent(catalog)
            let paths = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
            return paths.filter { $0.hasSuffix(".md") }.map { catalog + "/" + $0 }
        }.sorted()
    }

    /// The ```swift and ```json blocks of every article.
    static func snippets() -> [Snippet] {
        articles().flatMap { path -> [Snippet] in
            guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else {
                return []
            }
            var snippets: [Snippet] = []
            var open: (language: String, line: Int, lines: [String])?
            for (index, line) in text.components(separatedBy: "\n").enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if var block = open {
                    if trimmed == "```" {
                        if ["swift", "json"].contains(block.language) {
                            snippets.append(
                                Snippet(file: path, line: block.line, language: block.language, lines: block.lines))
                        }
                        open = nil
                    } else {
                        block.lines.append(line)
                        open = block
                    }
                } else if trimmed.hasPrefix("```") {
                    open = (String(trimmed.dropFirst(3)), index + 1, [])
                }
            }
            return snippets
        }
    }

    /// The lines of every example file, without indentation.
    static let exampleLines: [[String]] = exampleFiles.map { path in
        let text = (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
        return text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<start + needle.count].elementsEqual(needle)
        }
    }

    @Test func everyCatalogHasArticlesAndTheArticlesHaveExamples() {
        let articles = Self.articles()
        for catalog in Self.catalogs {
            #expect(articles.contains { $0.hasPrefix(catalog + "/") }, "\(catalog) has no article")
        }
        #expect(Self.snippets().count >= 30, "the articles' examples were not found")
        #expect(Self.exampleLines.allSatisfy { $0.count > 20 }, "an example file was not found")
    }

    @Test(arguments: snippets())
    func theExampleRunsInATest(_ snippet: Snippet) {
        let needle = snippet.lines.map { $0.trimmingCharacters(in: .whitespaces) }
        let files = Self.exampleFiles.joined(separator: ", ")
        #expect(
            Self.exampleLines.contains { Self.contains($0, needle) },
            """
            \(snippet.file):\(snippet.line): this example is not in any of \(files); copy it there, \
            into a test that runs it and checks what the article says it does
            """)
    }
}
