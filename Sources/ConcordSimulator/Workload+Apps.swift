extension Workload {
    /// Lists; reminders that cascade with their list; subtasks; tags and a reminder-tag join table; a cover blob per
    /// list; and four triggers of the app's own, as real apps keep them.
    ///
    /// Adding a subtask reopens its reminder (a trigger writing another synced table), editing a
    /// reminder's title or state counts the edit in the same row (so the row is written twice, and
    /// stamped twice), completing a reminder clears its subtasks, and deleting a reminder notes it in an
    /// `activity` table that does not sync (as an audit log or a search index would). On rows Concord
    /// merges the first two are left out — the merged row already holds what they made where it was
    /// written — and the last two run: SQLite cannot leave a trigger's delete out, so a completed reminder
    /// merged here clears the subtasks this device holds, as this device's deletes, and every device
    /// keeps its own activity.
    public static let reminders = Workload(
        schema: """
            CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, cover BLOB);
            CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL,
                list_id TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
                title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, priority INTEGER NOT NULL DEFAULT 0,
                edits INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE subtasks (id TEXT PRIMARY KEY NOT NULL,
                reminder_id TEXT NOT NULL REFERENCES reminders(id) ON DELETE CASCADE, title TEXT NOT NULL);
            CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL);
            CREATE TABLE reminder_tags (id TEXT PRIMARY KEY NOT NULL,
                reminder_id TEXT NOT NULL REFERENCES reminders(id) ON DELETE CASCADE,
                tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE);
            CREATE TABLE activity (n INTEGER PRIMARY KEY, what TEXT NOT NULL);
            CREATE TRIGGER subtask_reopens AFTER INSERT ON subtasks BEGIN
                UPDATE reminders SET done = 0 WHERE id = NEW.reminder_id AND done <> 0; END;
            CREATE TRIGGER reminder_edited AFTER UPDATE OF title, done ON reminders BEGIN
                UPDATE reminders SET edits = edits + 1 WHERE id = NEW.id; END;
            CREATE TRIGGER reminder_done_clears AFTER UPDATE OF done ON reminders WHEN NEW.done = 1 BEGIN
                DELETE FROM subtasks WHERE reminder_id = NEW.id; END;
            CREATE TRIGGER reminder_deleted AFTER DELETE ON reminders BEGIN
                INSERT INTO activity (what) VALUES ('deleted ' || OLD.title); END;
            """,
        tables: ["lists", "reminders", "subtasks", "tags", "reminder_tags"].map { Table(name: $0) },
        operations: [
            "INSERT INTO lists (id, name, cover) VALUES ('l{1..3}', '{word}', x'0{0..3}')",
            "UPDATE lists SET name = '{word}' WHERE id = 'l{1..3}'",
            "UPDATE lists SET cover = x'1{0..9}' WHERE id = 'l{1..3}'",
            "DELETE FROM lists WHERE id = 'l{1..3}'",
            "INSERT INTO reminders (id, list_id, title) VALUES ('r{1..6}', 'l{1..3}', '{word}')",
            "INSERT INTO reminders (id, list_id, title) VALUES ('r{1..6}', 'l{1..3}', '{word}')",
            "UPDATE reminders SET done = 1 - done WHERE id = 'r{1..6}'",
            "UPDATE reminders SET title = '{word}', priority = {0..3} WHERE id = 'r{1..6}'",
            "UPDATE reminders SET list_id = 'l{1..3}' WHERE id = 'r{1..6}'",
            "DELETE FROM reminders WHERE id = 'r{1..6}'",
            "INSERT INTO subtasks (id, reminder_id, title) VALUES ('s{1..4}', 'r{1..6}', '{word}')",
            "DELETE FROM subtasks WHERE id = 's{1..4}'",
            "INSERT INTO tags (id, name) VALUES ('t{1..3}', '{word}')",
            "INSERT INTO reminder_tags (id, reminder_id, tag_id) VALUES ('rt{1..6}', 'r{1..6}', 't{1..3}')",
            "DELETE FROM tags WHERE id = 't{1..3}'",
        ])

    /// Counters merged as counters (concurrent increments and decrements add up) beside the same counts
    /// merged last-writer-wins, a best score merged by max, a fastest tap time merged by min, badges
    /// earned merged as a union (a JSON array each device appends to), and themes under the row policy
    /// (a theme's colours always come from one write). Now and then the app saves a counter whole, as
    /// ORMs do (`INSERT OR REPLACE` with a label and an absolute count): the counter changes by the
    /// difference from the count the row showed, and the best score, fastest time and badges, which the
    /// replace sets back to their DEFAULTs, keep what the row held.
    ///
    /// The app's triggers set each other off on the row-policy table: renaming a counter recolours its theme
    /// (`t1` for `c1`), a new background sets the foreground in the same row, and deleting one theme deletes
    /// its pair (`t1` and `t2`) from the very table its statement deletes from, also on a device that merges
    /// the delete, where Concord records the pair's delete as the device's own, with its values.
    ///
    /// The fastest time starts NULL, the smallest value of all, so under `min` it stays NULL: every time
    /// an app writes folds back to it. That is the `min` merge as documented, kept here as a trap an app
    /// may fall into (MergePolicies.md says how to avoid it); the wide app's `min` column gets values.
    public static let counter = Workload(
        schema: """
            CREATE TABLE counters (id TEXT PRIMARY KEY NOT NULL, label TEXT NOT NULL,
                taps INTEGER NOT NULL DEFAULT 0, taps_lww INTEGER NOT NULL DEFAULT 0, best INTEGER NOT NULL DEFAULT 0,
                fastest INTEGER, badges TEXT NOT NULL DEFAULT '[]');
            CREATE TABLE themes (id TEXT PRIMARY KEY NOT NULL, background TEXT, foreground TEXT);
            CREATE TRIGGER counter_renamed AFTER UPDATE OF label ON counters BEGIN
                UPDATE themes SET background = NEW.label WHERE id = 't' || substr(NEW.id, 2); END;
            CREATE TRIGGER theme_contrast AFTER UPDATE OF background ON themes BEGIN
                UPDATE themes SET foreground = 'on ' || NEW.background WHERE id = NEW.id; END;
            CREATE TRIGGER theme_pair_deleted AFTER DELETE ON themes BEGIN
                DELETE FROM themes WHERE id = 't' || (3 - substr(OLD.id, 2)); END;
            """,
        tables: [
            Table(
                name: "counters",
                merges: ["taps": "counter", "best": "max", "fastest": "min", "badges": "union"]),
            Table(name: "themes", policy: "row"),
        ],
        operations: [
            "INSERT INTO counters (id, label) VALUES ('c{1..3}', '{word}')",
            "UPDATE counters SET taps = taps + {1..3}, taps_lww = taps_lww + {1..3} WHERE id = 'c{1..3}'",
            "UPDATE counters SET taps = taps + {1..3}, taps_lww = taps_lww + {1..3} WHERE id = 'c{1..3}'",
            "UPDATE counters SET taps = taps - 1, taps_lww = taps_lww - 1 WHERE id = 'c{1..3}'",
            "UPDATE counters SET best = max(best, {0..20}) WHERE id = 'c{1..3}'",
            "UPDATE counters SET label = '{word}' WHERE id = 'c{1..3}'",
            "DELETE FROM counters WHERE id = 'c{1..3}'",
            "INSERT OR REPLACE INTO themes (id, background, foreground) VALUES ('t{1..2}', '{word}', '{word}')",
            "UPDATE themes SET foreground = '{word}' WHERE id = 't{1..2}'",
            "UPDATE counters SET fastest = min(coalesce(fastest, 1000), {100..900}) WHERE id = 'c{1..3}'",
            "UPDATE counters SET badges = json_insert(badges, '$[#]', '{word}') WHERE id = 'c{1..3}'",
            "INSERT OR REPLACE INTO counters (id, label, taps) VALUES ('c{1..3}', '{word}', {0..9})",
            "UPDATE themes SET background = '{word}' WHERE id = 't{1..2}'",
            "DELETE FROM themes WHERE id = 't{1..2}'",
        ])
}
