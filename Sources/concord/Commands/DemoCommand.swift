import Foundation

/// The arguments of `concord demo`: none.
struct DemoOptions: ParsableOptions {}

extension Subcommand {
    static let demo = Subcommand(
        "demo",
        abstract: "Show two devices editing offline, syncing, and agreeing.",
        discussion: """
            Creates two replicas of a small reminders database in a temporary folder, \
            edits them in conflicting ways, syncs them, and prints both sides before and after. \
            The files stay behind for a look with sqlite3 or `concord status`.
            """,
        options: DemoOptions.self
    ) { _, output in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("concord-demo")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        print(try RemindersDemo(directory: directory).run(), terminator: "", to: &output)
    }
}
