import Concord

/// The reminders app: lists, reminders that cascade with their list, subtasks,
/// tags and a reminder-tag join table, over small key spaces so that devices
/// collide often.
///
/// Each operation is plain SQL through the device's own connection, with
/// foreign keys enforced as a careful app would; an operation the schema
/// refuses (a reminder for a list this device just deleted) is the app's
/// error and changes nothing.
///
/// ```swift
/// let sql = RemindersWorkload.operation(&rng)   // e.g. "UPDATE reminders SET done = 1 WHERE id = 'r3'"
/// ```
public enum RemindersWorkload {
    public static let schema = """
        CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, cover BLOB);
        CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL,
            list_id TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
            title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, priority INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE subtasks (id TEXT PRIMARY KEY NOT NULL,
            reminder_id TEXT NOT NULL REFERENCES reminders(id) ON DELETE CASCADE, title TEXT NOT NULL);
        CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL);
        CREATE TABLE reminder_tags (id TEXT PRIMARY KEY NOT NULL,
            reminder_id TEXT NOT NULL REFERENCES reminders(id) ON DELETE CASCADE,
            tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE);
        """

    /// Tables in the order they are enabled: parents first.
    public static let tables = ["lists", "reminders", "subtasks", "tags", "reminder_tags"]

    /// One random app operation, as SQL.
    public static func operation(_ rng: inout SeededGenerator) -> String {
        let list = "l\(Int.random(in: 1...3, using: &rng))"
        let reminder = "r\(Int.random(in: 1...6, using: &rng))"
        let subtask = "s\(Int.random(in: 1...4, using: &rng))"
        let tag = "t\(Int.random(in: 1...3, using: &rng))"
        let word = ["milk", "call", "paint", "read", "plan"][Int.random(in: 0...4, using: &rng)]
        let n = Int.random(in: 0...3, using: &rng)
        switch Int.random(in: 0...13, using: &rng) {
        case 0: return "INSERT INTO lists (id, name, cover) VALUES ('\(list)', '\(word)', x'0\(n)')"
        case 1: return "UPDATE lists SET name = '\(word)' WHERE id = '\(list)'"
        case 2: return "DELETE FROM lists WHERE id = '\(list)'"
        case 3, 4: return "INSERT INTO reminders (id, list_id, title) VALUES ('\(reminder)', '\(list)', '\(word)')"
        case 5: return "UPDATE reminders SET done = 1 - done WHERE id = '\(reminder)'"
        case 6: return "UPDATE reminders SET title = '\(word)', priority = \(n) WHERE id = '\(reminder)'"
        case 7: return "UPDATE reminders SET list_id = '\(list)' WHERE id = '\(reminder)'"
        case 8: return "DELETE FROM reminders WHERE id = '\(reminder)'"
        case 9: return "INSERT INTO subtasks (id, reminder_id, title) VALUES ('\(subtask)', '\(reminder)', '\(word)')"
        case 10: return "DELETE FROM subtasks WHERE id = '\(subtask)'"
        case 11: return "INSERT INTO tags (id, name) VALUES ('\(tag)', '\(word)')"
        case 12: return "INSERT INTO reminder_tags (id, reminder_id, tag_id) VALUES ('\(reminder)-\(tag)', '\(reminder)', '\(tag)')"
        default: return "DELETE FROM tags WHERE id = '\(tag)'"
        }
    }
}
