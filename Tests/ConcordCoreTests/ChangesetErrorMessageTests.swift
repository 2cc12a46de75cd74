import ConcordTestTraits
import Testing

@testable import ConcordCore

/// Every refusal says what failed, where (byte offset and field, or path) and what to do about it.
@Suite("Changeset error messages", .tags(.core))
struct ChangesetErrorMessageTests {
    @Test func eachKindOfFailureSaysWhatWhereAndWhatToDo() {
        let release = ConcordRelease.current
        let cases: [(ChangesetError, String)] = [
            (
                .truncated(offset: 57, field: "rows[0].key (table 'reminders')"),
                "The changeset is truncated: it ends at byte 57 while reading rows[0].key (table 'reminders'). "
                    + "The copy was probably cut short; export it again or copy the whole file."
            ),
            (
                .checksumMismatch(stored: 0xB1A1_662F, computed: 0xABCD, offset: 90),
                "The changeset is corrupted: the CRC-32 stored at byte 90 is 0xB1A1662F but the bytes before it "
                    + "hash to 0x0000ABCD. Some bytes changed after it was exported; export it again and transfer it "
                    + "unmodified."
            ),
            (
                .malformed(
                    offset: 12, field: "rows[3].liveness.causalLength (table 't')",
                    reason: .causalLengthTooLarge(4_611_686_018_427_387_905)),
                "The changeset is malformed at byte 12, reading rows[3].liveness.causalLength (table 't'): causal "
                    + "length 4611686018427387905 exceeds the limit of 4611686018427387904; each delete or re-insert "
                    + "adds one or two, so no real history reaches it. It is damaged or was written by a faulty "
                    + "encoder; export it again."
            ),
            (
                .trailingBytes(offset: 100),
                "The changeset has extra bytes after its end, starting at byte 100. Something was appended to it "
                    + "(or two files concatenated); export it again or remove the extra bytes."
            ),
            (
                .unencodable(
                    field: "rows[0].columns[1].stamp (table 'posts', column 'title')",
                    reason: .clockOutOfRange(9_223_372_036_854_775_808)),
                "Cannot encode the changeset: rows[0].columns[1].stamp (table 'posts', column 'title'): clock "
                    + "reading 9223372036854775808 exceeds the limit of 9223372036854775807 (a 63-bit hybrid logical "
                    + "clock). The changeset (or the order of encoder calls) is wrong; fix the code that builds it."
            ),
            (
                .unsupportedVersion(found: 3, supported: [1, 2], needs: "0.3.0"),
                "This changeset needs Concord ≥ 0.3.0 (it is in format 3; this build, Concord \(release), reads "
                    + "formats 1–2): update Concord on this device."
            ),
            (
                .unsupportedVersion(found: 7, supported: [1, 2], needs: nil),
                "This changeset is in format 7, and it does not say which Concord release reads it (this build, "
                    + "Concord \(release), reads formats 1–2): update Concord on this device, or export the "
                    + "changeset again if the file is damaged."
            ),
            (
                .unsupportedVersion(found: 0, supported: [1, 2], needs: nil),
                "This changeset says it is in format 0, which no Concord release writes (this build, Concord "
                    + "\(release), reads formats 1–2): it is damaged; export it again."
            ),
            (
                .unsupportedVersion(found: 5, supported: [1], needs: nil),
                "This changeset is in format 5, and it does not say which Concord release reads it (this build, "
                    + "Concord \(release), reads format 1): update Concord on this device, or export the changeset "
                    + "again if the file is damaged."
            ),
            (
                .io(operation: "open", path: "/tmp/x.cncd", reason: "Permission denied"),
                "Cannot open '/tmp/x.cncd': Permission denied. Check the path, its permissions and the free space, "
                    + "then retry."
            ),
        ]
        for (error, message) in cases { #expect(error.description == message) }
    }

    @Test func reasonsNameTheValuesInvolved() {
        #expect(
            ChangesetError.Reason.unknownPolicy("\"Column\"").description
                == "\"Column\" is not a table policy; expected one of 'column', 'row'")
        #expect(
            ChangesetError.Reason.nodeIndexOutOfRange(index: 5, nodeCount: 2).description
                == "node reference 5 is out of range; 2 nodes are known so far (0 means none, 3 introduces a new one)")
        #expect(
            ChangesetError.Reason.duplicateTable("Reminders").description
                == "table 'Reminders' appears twice (SQLite names ignore ASCII case)")
        #expect(
            ChangesetError.Reason.lengthTooLarge(declared: 1_000_000_001, limit: 1_000_000_000).description
                == "the declared length 1000000001 exceeds the limit of 1000000000 bytes")
        #expect(
            ChangesetError.Reason.releaseMismatch(format: 2, expected: "0.2.0", found: "0.3.0").description
                == "format 2 names Concord 0.2.0 as the oldest release that reads it, but this changeset names \"0.3.0\""
        )
    }
}
