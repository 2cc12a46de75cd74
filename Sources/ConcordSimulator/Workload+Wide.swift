extension Workload {
    /// An app that stresses values, names and rules rather than looking like any one app: every value
    /// SQLite can hold, table and column names drawn per seed, every merge, both policies, and every
    /// kind of foreign key.
    ///
    /// - `owners` (by column): a label last-writer-wins, a `max` score, a `min` low, a `counter` of taps
    ///   with increments and decrements, a `union` of tags, and a `longest` value (a user-defined join),
    ///   then 58 columns no write sets and two more, `far` and `far2`, written apart: columns 64 and 65,
    ///   past what one 64-bit change mask holds (see `ChangeMask`);
    /// - `places` (by row): deleted and inserted again, replaced whole (`INSERT OR REPLACE`), upserted
    ///   (`ON CONFLICT DO UPDATE`, `DO NOTHING`), as apps save records; owners are upserted too, and
    ///   saved whole as ORMs save them (`INSERT OR REPLACE` of every merged column but the counter, which
    ///   the replace sets back to its DEFAULT, and which cascades to the owner's notes);
    /// - `links` (by column): a `RESTRICT` child with two keys, to an owner and to a place;
    /// - `notes` (by row): a `CASCADE` child of an owner, with a `SET NULL` key to a place whose column has a `DEFAULT`;
    /// - `folders` (by row): a TEXT key holding numbers as text (`'2'`, `'02'`) and a `CASCADE` key to
    ///   itself in an INTEGER column, which SQLite compares under the key's affinity (`2` names `'2'`,
    ///   and `'2'` written there is stored as `2`). With foreign keys on, SQLite hands the delete trigger
    ///   such a key as a number (see `CaptureTriggers`). A `buddy`, a `SET NULL` key to any folder, its
    ///   own descendants too: a loop such a key closes is no cycle (`StandInLoopTests`);
    /// - `comments` (by column): a `RESTRICT` child of a link, itself a `RESTRICT` child of an owner and a
    ///   place: a comment written after its link and the link's owner were deleted keeps all three
    ///   (`RevivalChainTests`);
    /// - `gauges` (by column): a `STRICT`, `WITHOUT ROWID` table, a `CASCADE` child of an owner, whose typed
    ///   columns refuse what their type cannot hold (a blob in a TEXT column) and convert what they can
    ///   (`5` to `'5'`), with a `max` level and two generated columns, one `VIRTUAL` and one `STORED`, that
    ///   no replica syncs: each device computes them from the values it shows. Its key is its third column,
    ///   after a value and a generated column.
    ///
    /// The app also looks after its file as apps do: `VACUUM` rebuilds it (renumbering the rowids of tables
    /// without an INTEGER PRIMARY KEY, with a crash able to land inside), and `ANALYZE` adds `sqlite_stat1`
    /// to the schema and changes the plans, and so the row order, of every later query that asks for none.
    /// It undoes writes with its own savepoints (`ROLLBACK TO`), a `max` column's among them, and keeps what
    /// it wrote after one: what Concord captured of the undone writes must go with them. (Not a counter's
    /// increment: past the 64-bit range Concord refuses it, and the app would roll the whole savepoint back.)
    /// Its transactions write several tables at once, and insert a child before its parent under
    /// `defer_foreign_keys`, some refused at `COMMIT` and rolled back. It writes as today's clients do, too:
    /// names qualified by their schema, `RETURNING`, `UPDATE … FROM`, writes through a view, and a `TEMP`
    /// trigger of its own connection.
    ///
    /// Owner `'1'`'s label also goes between `0.0` and `-0.0`, which SQL calls equal and a replica must not:
    /// the sign is the value, and a write of one over the other changed the row.
    ///
    /// Every key column is untyped and holds `{key}`: text and blobs with the same bytes (`'1'`, `x'31'`)
    /// or the same characters (`é` precomposed and decomposed) as different rows, and now and then the
    /// integer `1`, which Concord refuses as a key. Every other column but the counter and the tags is
    /// untyped and gets `{value}`. Owner `'1'` and place `'1'` are hot rows: a fifth of the writes go to
    /// them, so devices whose clocks are apart edit them at once.
    public static let wide = Workload(
        schema: """
            CREATE TABLE {name:owners} ({name:id} PRIMARY KEY NOT NULL, {name:label}, {name:score}, {name:low},
                {name:taps} INTEGER NOT NULL DEFAULT 0, {name:tags} TEXT, {name:longest});
            CREATE TABLE {name:places} ({name:id} PRIMARY KEY NOT NULL, {name:label}, {name:data});
            CREATE TABLE {name:links} ({name:id} PRIMARY KEY NOT NULL,
                {name:owner} REFERENCES {name:owners}({name:id}) ON DELETE RESTRICT,
                {name:place} REFERENCES {name:places}({name:id}) ON DELETE RESTRICT, {name:note});
            CREATE TABLE {name:notes} ({name:id} PRIMARY KEY NOT NULL,
                {name:owner} REFERENCES {name:owners}({name:id}) ON DELETE CASCADE,
                {name:place} DEFAULT '1' REFERENCES {name:places}({name:id}) ON DELETE SET NULL, {name:body});
            """ + wideColumns + wideFoldersSchema + wideCommentsSchema + wideGaugesSchema + wideViewSchema,
        tables: [
            Table(
                name: "owners",
                merges: ["score": "max", "low": "min", "taps": "counter", "tags": "union", "longest": "longest"]),
            Table(name: "places", policy: "row"), Table(name: "links"), Table(name: "notes", policy: "row"),
            Table(name: "folders", policy: "row"), Table(name: "comments"),
            Table(name: "gauges", merges: ["level": "max"]),
        ],
        operations: wideOwners + widePlaces + wideChildren + wideZeros + wideFar + wideFolders + wideSaves
            + wideBuddies + wideComments + wideGauges + wideMaintenance + wideSavepoints + wideTransactions
            + wideBulk + wideClients + wideConnection,
        names: "drawn")

    private static let wideOwners = [
        "INSERT INTO {name:owners} ({name:id}, {name:label}, {name:score}, {name:low}, {name:tags}, {name:longest}) "
            + "VALUES ({key}, {value}, {value}, {value}, {union}, {value})",
        "INSERT INTO {name:owners} ({name:id}, {name:label}, {name:score}, {name:low}, {name:tags}, {name:longest}) "
            + "VALUES ({key}, {value}, {value}, {value}, {union}, {value})",
        "UPDATE {name:owners} SET {name:label} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:score} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:low} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:taps} = {name:taps} + {1..3} WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:taps} = {name:taps} - {1..3} WHERE {name:id} = {key}",
        // Counts near the ends of the 64-bit range: a device's share past it keeps its end, never wraps.
        "UPDATE {name:owners} SET {name:taps} = 9000000000000000000 WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:taps} = -9000000000000000000 WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:taps} = {name:taps} + 8000000000000000000 WHERE {name:id} = '1'",
        "UPDATE {name:owners} SET {name:tags} = {union} WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:longest} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:label} = {value}, {name:score} = {value}, {name:taps} = {name:taps} + 1 "
            + "WHERE {name:id} = '1'",
        "UPDATE {name:owners} SET {name:low} = {value}, {name:longest} = {value}, {name:taps} = {name:taps} - 1 "
            + "WHERE {name:id} = '1'",
        "DELETE FROM {name:owners} WHERE {name:id} = {key}",
        "INSERT INTO {name:owners} ({name:id}, {name:label}, {name:score}) VALUES ({key}, {value}, {value}) "
            + "ON CONFLICT ({name:id}) DO UPDATE SET {name:label} = excluded.{name:label}, "
            + "{name:score} = excluded.{name:score}, {name:taps} = {name:taps} + 1",
    ]

    private static let widePlaces = [
        "INSERT INTO {name:places} ({name:id}, {name:label}, {name:data}) VALUES ({key}, {value}, {value})",
        "INSERT INTO {name:places} ({name:id}, {name:label}, {name:data}) VALUES ({key}, {value}, {value})",
        "INSERT OR REPLACE INTO {name:places} ({name:id}, {name:label}, {name:data}) VALUES ({key}, {value}, {value})",
        "UPDATE {name:places} SET {name:data} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:places} SET {name:label} = {value} WHERE {name:id} = '1'",
        "UPDATE {name:places} SET {name:label} = {value} WHERE {name:id} = '1'",
        "DELETE FROM {name:places} WHERE {name:id} = {key}",
        "INSERT INTO {name:places} ({name:id}, {name:label}, {name:data}) VALUES ({key}, {value}, {value}) "
            + "ON CONFLICT DO UPDATE SET {name:data} = excluded.{name:data}",
        "INSERT INTO {name:places} ({name:id}, {name:label}, {name:data}) VALUES ({key}, {value}, {value}) "
            + "ON CONFLICT DO NOTHING",
    ]

    private static let wideChildren = [
        "INSERT INTO {name:links} ({name:id}, {name:owner}, {name:place}, {name:note}) "
            + "VALUES ({key}, {key}, {key}, {value})",
        "INSERT INTO {name:links} ({name:id}, {name:owner}, {name:place}, {name:note}) "
            + "VALUES ({key}, {key}, {key}, {value})",
        "UPDATE {name:links} SET {name:owner} = {key}, {name:place} = {key} WHERE {name:id} = {key}",
        "UPDATE {name:links} SET {name:note} = {value} WHERE {name:id} = {key}",
        "DELETE FROM {name:links} WHERE {name:id} = {key}",
        "INSERT INTO {name:notes} ({name:id}, {name:owner}, {name:place}, {name:body}) "
            + "VALUES ({key}, {key}, {key}, {value})",
        "INSERT INTO {name:notes} ({name:id}, {name:owner}, {name:place}, {name:body}) "
            + "VALUES ({key}, {key}, {key}, {value})",
        "INSERT INTO {name:notes} ({name:id}, {name:owner}, {name:place}, {name:body}) "
            + "VALUES ({key}, {key}, {key}, {value})",
        "UPDATE {name:notes} SET {name:body} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:notes} SET {name:place} = {key} WHERE {name:id} = {key}",
        "DELETE FROM {name:notes} WHERE {name:id} = {key}",
    ]

    /// The columns of `owners` after `longest`: 58 that no write sets, then `far` and `far2`. Added last (before
    /// sync is enabled), so their names come after the others: a reproducer recorded before keeps its names,
    /// and these stand for themselves there.
    private static let wideColumns = ((1...58).map { "pad\($0)" } + ["far", "far2"])
        .map { "\nALTER TABLE {name:owners} ADD COLUMN {name:\($0)};" }.joined()

    // Appended after the others, so the operations of existing reproducers keep their numbers.
    private static let wideFar = [
        "UPDATE {name:owners} SET {name:far} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:far2} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:owners} SET {name:far} = {value} WHERE {name:id} = '1'",
        "UPDATE {name:owners} SET {name:far2} = {value} WHERE {name:id} = '1'",
    ]

    /// Made after every other table and column, so that reproducers recorded before keep their names.
    private static let wideFoldersSchema = """

        CREATE TABLE {name:folders} ({name:id} TEXT PRIMARY KEY NOT NULL, {name:label},
            {name:parent} INTEGER REFERENCES {name:folders}({name:id}) ON DELETE CASCADE);
        ALTER TABLE {name:folders} ADD COLUMN {name:buddy} REFERENCES {name:folders}({name:id}) ON DELETE SET NULL;
        """

    // Appended after the others, so the operations of existing reproducers keep their numbers.
    private static let wideFolders = [
        "INSERT INTO {name:folders} ({name:id}, {name:label}, {name:parent}) VALUES ('{1..4}', {value}, {1..4})",
        "INSERT INTO {name:folders} ({name:id}, {name:label}, {name:parent}) VALUES ('0{1..4}', {value}, '{1..4}')",
        "INSERT INTO {name:folders} ({name:id}, {name:label}, {name:parent}) VALUES ('{1..4}', {value}, NULL)",
        "UPDATE {name:folders} SET {name:parent} = {1..4} WHERE {name:id} = '0{1..4}'",
        "UPDATE {name:folders} SET {name:label} = {value} WHERE {name:id} = '{1..4}'",
        "DELETE FROM {name:folders} WHERE {name:id} = '{1..4}'",
        "DELETE FROM {name:folders} WHERE {name:id} = '0{1..4}'",
    ]

    // Appended after the others, so the operations of existing reproducers keep their numbers.
    private static let wideZeros = [
        "UPDATE {name:owners} SET {name:label} = 0.0 WHERE {name:id} = '1'",
        "UPDATE {name:owners} SET {name:label} = -0.0 WHERE {name:id} = '1'",
    ]

    // Appended after the others, so the operations of existing reproducers keep their numbers.
    private static let wideBuddies = [
        "UPDATE {name:folders} SET {name:buddy} = '{1..4}' WHERE {name:id} = '{1..4}'",
        "UPDATE {name:folders} SET {name:buddy} = '0{1..4}' WHERE {name:id} = '{1..4}'",
        "INSERT INTO {name:folders} ({name:id}, {name:label}, {name:parent}, {name:buddy}) "
            + "VALUES ('0{1..4}', {value}, '{1..4}', '{1..4}')",
    ]

    /// Made after every other table and column, so that reproducers recorded before keep their names.
    private static let wideCommentsSchema = """

        CREATE TABLE {name:comments} ({name:id} PRIMARY KEY NOT NULL,
            {name:link} REFERENCES {name:links}({name:id}) ON DELETE RESTRICT, {name:body});
        """

    // Appended after the others, so the operations of existing reproducers keep their numbers.
    private static let wideComments = [
        "INSERT INTO {name:comments} ({name:id}, {name:link}, {name:body}) VALUES ({key}, {key}, {value})",
        "INSERT INTO {name:comments} ({name:id}, {name:link}, {name:body}) VALUES ({key}, {key}, {value})",
        "UPDATE {name:comments} SET {name:body} = {value} WHERE {name:id} = {key}",
        "DELETE FROM {name:comments} WHERE {name:id} = {key}",
    ]

    // Appended after the others, so the operations of existing reproducers keep their numbers.
    private static let wideSaves = [
        "INSERT OR REPLACE INTO {name:owners} ({name:id}, {name:label}, {name:score}, {name:low}, {name:tags}, "
            + "{name:longest}) VALUES ({key}, {value}, {value}, {value}, {union}, {value})"
    ]

    /// Made after every other table and column, so that reproducers recorded before keep their names.
    private static let wideGaugesSchema = """

        CREATE TABLE {name:gauges} ({name:reading} ANY,
            {name:twice} ANY GENERATED ALWAYS AS ({name:reading} * 2) VIRTUAL, {name:id} TEXT PRIMARY KEY NOT NULL,
            {name:owner} TEXT REFERENCES {name:owners}({name:id}) ON DELETE CASCADE, {name:unit} TEXT,
            {name:shout} TEXT GENERATED ALWAYS AS (upper({name:unit})) STORED, {name:level} INTEGER NOT NULL DEFAULT 0)
            STRICT, WITHOUT ROWID;
        """

    // Appended after the others, so the operations of existing reproducers keep their numbers.
    private static let wideGauges = [
        "INSERT INTO {name:gauges} ({name:id}, {name:owner}, {name:reading}, {name:unit}, {name:level}) "
            + "VALUES ({key}, {key}, {value}, {value}, {1..4})",
        "INSERT INTO {name:gauges} ({name:id}, {name:owner}, {name:reading}, {name:unit}, {name:level}) "
            + "VALUES ({key}, {key}, {value}, {value}, {1..4})",
        "UPDATE {name:gauges} SET {name:reading} = {value} WHERE {name:id} = {key}",
        "UPDATE {name:gauges} SET {name:unit} = {value}, {name:level} = {1..4} WHERE {name:id} = {key}",
        "INSERT OR REPLACE INTO {name:gauges} ({name:id}, {name:owner}, {name:reading}, {name:unit}) "
            + "VALUES ({key}, {key}, {value}, {value})",
        "INSERT INTO {name:gauges} ({name:id}, {name:owner}, {name:reading}) VALUES ({key}, {key}, {value}) "
            + "ON CONFLICT ({name:id}) DO UPDATE SET {name:level} = {name:level} + 1, "
            + "{name:reading} = excluded.{name:reading}",
        "DELETE FROM {name:gauges} WHERE {name:id} = {key}",
    ]

    /// The statements that look after the file and write no table. Appended after the others, so the
    /// operations of existing reproducers keep their numbers.
    static let wideMaintenance = ["VACUUM", "ANALYZE"]

    // The groups below are appended after the others, so the operations of existing reproducers keep their numbers.

    /// Transactions of several statements, whole or not at all, a power failure able to land inside. With
    /// `defer_foreign_keys`, a child is inserted before its parent (SQLite checks the key at `COMMIT`), and a
    /// `COMMIT` is refused when the parent never comes: the app then rolls back (``SimulatedDevice/runAppStatement(_:)``).
    /// Concord's capture log holds the child before the parent, and no write of the refused one.
    private static let wideTransactions = [
        "BEGIN; PRAGMA defer_foreign_keys = ON; INSERT INTO {name:notes} ({name:id}, {name:owner}, {name:place}, "
            + "{name:body}) VALUES ({key}, '1', NULL, {value}); INSERT OR IGNORE INTO {name:owners} ({name:id}, "
            + "{name:label}) VALUES ('1', {value}); COMMIT",
        "BEGIN; PRAGMA defer_foreign_keys = ON; INSERT INTO {name:notes} ({name:id}, {name:owner}, {name:place}, "
            + "{name:body}) VALUES ({key}, {key}, NULL, {value}); COMMIT",
        "BEGIN IMMEDIATE; UPDATE {name:owners} SET {name:label} = {value} WHERE {name:id} = {key}; "
            + "UPDATE {name:places} SET {name:label} = {value} WHERE {name:id} = {key}; "
            + "DELETE FROM {name:links} WHERE {name:id} = {key}; COMMIT",
    ]

    /// Statements that write several rows at once, as an app's "mark all" or import does: four places inserted
    /// from a recursive query, then updated and deleted together by a range of their keys, and an owner's
    /// notes deleted by a column that is not their key. A device whose fold takes fewer rows at a time folds
    /// one such statement in several transactions, a power failure able to land between them.
    private static let wideBulk = [
        "WITH RECURSIVE bulk_sequence_(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM bulk_sequence_ WHERE x < 4) "
            + "INSERT OR IGNORE INTO {name:places} ({name:id}, {name:label}, {name:data}) "
            + "SELECT 'bulk' || x, {value}, x FROM bulk_sequence_",
        "UPDATE {name:places} SET {name:data} = {value} WHERE {name:id} >= 'bulk' AND {name:id} < 'bulk~'",
        "DELETE FROM {name:places} WHERE {name:id} >= 'bulk' AND {name:id} < 'bulk~'",
        "DELETE FROM {name:notes} WHERE {name:owner} = {key}",
    ]

    /// A view of the places' labels that the app writes through, as apps keep old names working after a
    /// rename: its `INSTEAD OF` triggers write the synced table, and fire only when the app writes the view
    /// (never in a merge). The view names its own columns: SQLite calls a view's column `columnN` when it
    /// would be named `true` or `false`, whatever the query says. Made after every other table, so that
    /// reproducers recorded before keep their names.
    private static let wideViewSchema = """

        CREATE VIEW {name:place_labels} (view_key, view_label) AS SELECT {name:id}, {name:label} FROM {name:places};
        CREATE TRIGGER {name:place_labels_insert} INSTEAD OF INSERT ON {name:place_labels} BEGIN
            INSERT INTO {name:places} ({name:id}, {name:label}) VALUES (NEW.view_key, NEW.view_label); END;
        CREATE TRIGGER {name:place_labels_update} INSTEAD OF UPDATE ON {name:place_labels} BEGIN
            UPDATE {name:places} SET {name:label} = NEW.view_label WHERE {name:id} = OLD.view_key; END;
        CREATE TRIGGER {name:place_labels_delete} INSTEAD OF DELETE ON {name:place_labels} BEGIN
            DELETE FROM {name:places} WHERE {name:id} = OLD.view_key; END;
        """

    /// What today's clients write beside plain statements: names qualified by their schema (`main.t`),
    /// `RETURNING` (as ORMs read back what they saved), `UPDATE … FROM` another table (several rows at
    /// once), writes through the view of ``wideViewSchema``, a conditional upsert and an import from JSON.
    private static let wideClients = [
        "INSERT INTO main.{name:places} ({name:id}, {name:label}, {name:data}) VALUES ({key}, {value}, {value}) "
            + "RETURNING {name:id}, {name:data}",
        "DELETE FROM main.{name:links} WHERE {name:id} = {key} RETURNING *",
        "UPDATE main.{name:owners} SET {name:label} = {name:source}.{name:label} FROM {name:places} AS {name:source} "
            + "WHERE {name:source}.{name:id} = {name:owners}.{name:id}",
        "INSERT INTO {name:place_labels} (view_key, view_label) VALUES ({key}, {value})",
        "UPDATE {name:place_labels} SET view_label = {value} WHERE view_key = {key}",
        "DELETE FROM {name:place_labels} WHERE view_key = {key}",
        // An upsert that keeps the higher level only (`DO UPDATE … WHERE`, often a no-op), and rows inserted
        // from a JSON array, as an app imports what an API sent (`{union}` is not always JSON).
        "INSERT INTO {name:gauges} ({name:id}, {name:owner}, {name:reading}, {name:level}) "
            + "VALUES ({key}, {key}, {value}, {1..4}) ON CONFLICT ({name:id}) DO UPDATE SET "
            + "{name:reading} = excluded.{name:reading}, {name:level} = excluded.{name:level} "
            + "WHERE excluded.{name:level} > {name:gauges}.{name:level}",
        // (Read by index, not with `json_each`: a drawn table may be named so, and hide the function.)
        "WITH RECURSIVE items_(i, body) AS (SELECT 0, {union} UNION ALL SELECT i + 1, body FROM items_ "
            + "WHERE i + 1 < json_array_length(CASE WHEN json_valid(body) THEN body ELSE '[]' END)) "
            + "INSERT OR IGNORE INTO {name:places} ({name:id}, {name:label}, {name:data}) "
            + "SELECT 'json' || i, json_extract(body, '$[' || i || ']'), json_type(body, '$[' || i || ']') FROM items_ "
            + "WHERE json_valid(body) AND i < json_array_length(CASE WHEN json_valid(body) THEN body ELSE '[]' END)",
    ]

    /// The app's settings of its own connection, which go when it closes: a `TEMP` trigger counting a tap on
    /// the owner of the same key whenever a place's label changes (a write to another table, made by a
    /// trigger no other connection has, that Concord captures like any other), made and dropped now and then.
    static let wideConnection = [
        "CREATE TEMP TRIGGER IF NOT EXISTS {name:place_touched} AFTER UPDATE OF {name:label} ON main.{name:places} "
            + "BEGIN UPDATE {name:owners} SET {name:taps} = {name:taps} + 1 WHERE {name:id} = NEW.{name:id}; END",
        "DROP TRIGGER IF EXISTS temp.{name:place_touched}",
    ]

    /// Writes undone with the app's own savepoint, one kept after the rollback. Each statement inside is one no
    /// constraint of this app refuses (a refused one would roll the whole savepoint back, undoing nothing in part).
    private static let wideSavepoints = [
        "SAVEPOINT app; UPDATE {name:owners} SET {name:label} = {value}, {name:score} = {value} "
            + "WHERE {name:id} = {key}; ROLLBACK TO app; RELEASE app",
        "SAVEPOINT app; UPDATE {name:places} SET {name:data} = {value} WHERE {name:id} = {key}; ROLLBACK TO app; "
            + "UPDATE {name:places} SET {name:label} = {value} WHERE {name:id} = {key}; RELEASE app",
    ]
}
