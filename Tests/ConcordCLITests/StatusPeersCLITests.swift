import ConcordTestSupport
import Foundation
import Testing

/// `concord status` shows, per peer, what it has not read yet and when it last read, and the capture backlog.
@Suite("concord status: what is unsent", .tags(.cli), .timeLimit(.hangGuard))
struct StatusPeersCLITests {
    @Test func statusShowsUnreadChangesPerPeerAndTheCaptureBacklog() throws {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT);")
            try concordOK("enable", name, "--table", "notes", in: directory)
        }
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO notes VALUES ('n1', 'x');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO notes VALUES ('n2', 'y'), ('n3', 'z');")
        let text = try concordOK("status", "a.db", in: directory).text
        #expect(text.contains("; 2 local changes not read yet"), "\(text)")
        #expect(text.contains("capture log  2 writes waiting to be stamped"), "\(text)")
        let json = try concordOK("status", "a.db", "--json", in: directory).text
        let decoded = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let peer = try #require((decoded["peers"] as? [[String: Any]])?.first)
        #expect(peer["unread"] as? Int == 2 && peer["lastReadByPeer"] is Int && peer["lastReadFromPeer"] is Int)
        #expect(decoded["captureBacklog"] as? Int == 0, "the text status stamped them")
    }
}
