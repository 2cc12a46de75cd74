import ConcordTestTraits
import Testing

@testable import ConcordCore

/// Why a row is parked, as `concord status` prints it and `_concord_parked` stores it.
@Suite("Park reasons", .tags(.core))
struct ParkReasonTests {
    @Test func descriptionsNameTheParentOrQuoteSQLite() {
        #expect(ParkReason.missingParent(table: "lists", key: "l1").description == "missing parent lists/l1")
        #expect(ParkReason.hiddenParent(table: "lists", key: 7).description == "parent lists/7 is not visible")
        #expect(
            ParkReason.onCycle(table: "folders", key: .blob([0xAB])).description == "on a cycle through folders/X'AB'")
        #expect(
            ParkReason.missingParent(table: "lists", key: .text(SQLiteText(bytes: [0xFF]))).description
                == "missing parent lists/CAST(X'FF' AS TEXT)")
        #expect(
            ParkReason.constraint("NOT NULL constraint failed: reminders.title").description
                == "cannot be shown: NOT NULL constraint failed: reminders.title")
        #expect(
            ParkReason.unsyncableKey(type: "integer").description
                == "its key is an integer, and a synced key must be TEXT or BLOB (such as a UUID); "
                + "it stays in the table unsynced: delete it, or insert it again under a TEXT key")
        #expect(ParkReason.unsyncableKey(type: "null").description.hasPrefix("its key is NULL, and"))
        // A REAL primary key is parked too; the message once read "its key is an real".
        #expect(ParkReason.unsyncableKey(type: "real").description.hasPrefix("its key is a real, and"))
    }

    @Test func storedKindsArePinnedAndDistinct() {
        let reasons: [ParkReason] = [
            .missingParent(table: "t", key: "k"), .hiddenParent(table: "t", key: "k"), .onCycle(table: "t", key: "k"),
            .constraint("x"), .unsyncableKey(type: "integer"),
        ]
        #expect(reasons.map(\.kind) == [1, 2, 3, 4, 5])
    }

    @Test func constraintMessagesComeBackFromTheirStoredText() {
        let message = "CHECK constraint failed: length(title) > 0"
        #expect(ParkReason.constraintMessage(stored: ParkReason.constraint(message).description) == message)
        #expect(ParkReason.constraintMessage(stored: message) == message, "text without the prefix is kept")
        #expect(ParkReason.constraintMessage(stored: "cannot be shown: ") == "")
    }
}
