import Concord
import ConcordTestSupport
import Testing

@testable import ConcordCLI

/// `--key` of `concord conflicts` and `restore`: how a row key is written on the command line, and that every
/// key a listing prints is taken back as the same value.
@Suite("Row keys as arguments", .tags(.cli))
struct RowKeyArgumentTests {
    @Test func aKeyWrittenAsAHexLiteralIsABlobKeyAQuotedOneTextAndAnythingElseText() throws {
        func key(_ text: String) throws -> SQLiteValue? {
            guard
                case .arguments(let parsed) = try ArgumentParser(Subcommand.conflicts.spec).parse([
                    "x.db", "--key", text,
                ])
            else { return nil }
            return try ConflictsOptions(parsed).key?.value
        }
        #expect(try key("X'00ff'") == .blob([0x00, 0xFF]))
        #expect(try key("x''") == .blob([]))
        #expect(try key("r1") == "r1")
        #expect(try key("'X''61'''") == "X'61'", "quoted as SQL quotes it: a TEXT key that reads like a blob")
        #expect(try key("''") == "")
        #expect(throws: (any Error).self) { try key("X'0g'") }
        #expect(throws: (any Error).self) { try key("'it's'") }
        // Listings print keys so that --key takes them back.
        for value: SQLiteValue in ["X'61'", "'q'", "plain", "it's", .blob([0x61])] {
            #expect(try key(RowKey.spelling(of: value)) == value, "\(value)")
        }
        // A key holding control characters or direction overrides is printed escaped, and taken back so.
        #expect(try key("U&'a\\000Ab'") == "a\nb")
        #expect(try key("u&'\\+01F600'") == "\u{1F600}")
        #expect(throws: (any Error).self) { try key("U&'\\12'") }
        for value: SQLiteValue in [
            "a\nb", "\u{1B}[31mred", "nul\u{0}", "\u{202E}evil", "back\\slash\n'q'", "U&'x'", "tab\t\u{85}",
        ] {
            let spelled = RowKey.spelling(of: value)
            #expect(!spelled.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            #expect(try key(spelled) == value, "\(spelled)")
        }
    }
}
