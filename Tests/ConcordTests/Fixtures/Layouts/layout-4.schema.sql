CREATE TABLE _concord_state (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    layout INTEGER NOT NULL,
    hlc INTEGER NOT NULL,
    version INTEGER NOT NULL,
    node INTEGER NOT NULL
);
CREATE TABLE _concord_nodes (idx INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE);
CREATE TABLE _concord_tables (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    columns TEXT NOT NULL,
    policy TEXT NOT NULL,
    merges TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE _concord_peers (node BLOB PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE _concord_parked (
    tbl TEXT NOT NULL, pk NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (tbl, pk)
) WITHOUT ROWID;
CREATE TABLE _concord_revived (tbl TEXT NOT NULL, pk NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
CREATE TABLE _concord_log (
    seq INTEGER PRIMARY KEY,
    tbl INTEGER NOT NULL,
    pk NOT NULL,
    op INTEGER NOT NULL,
    at REAL NOT NULL,
    mask INTEGER
);
CREATE TABLE lists (
    id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, color BLOB, position REAL,
    archived INTEGER NOT NULL DEFAULT 0);
CREATE TABLE reminders (
    id TEXT PRIMARY KEY NOT NULL, list_id TEXT REFERENCES lists(id) ON DELETE CASCADE, title TEXT,
    done INTEGER NOT NULL DEFAULT 0, due REAL, notes TEXT);
CREATE TABLE comments (
    id TEXT PRIMARY KEY NOT NULL, list_id TEXT NOT NULL REFERENCES lists(id) ON DELETE RESTRICT,
    body TEXT, author TEXT);
CREATE TABLE settings (key BLOB PRIMARY KEY NOT NULL, value, updated INTEGER);
CREATE TABLE stats (
    id TEXT PRIMARY KEY NOT NULL, views INTEGER NOT NULL DEFAULT 0, best REAL, first_seen INTEGER,
    tags TEXT, label TEXT);
CREATE TABLE IF NOT EXISTS "_concord_rows_lists" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, "h_name" INTEGER, "n_name" INTEGER, "h_color" INTEGER, "n_color" INTEGER, "h_position" INTEGER, "n_position" INTEGER, "h_archived" INTEGER, "n_archived" INTEGER
);
CREATE INDEX "_concord_rows_lists_key" ON "_concord_rows_lists"(kh);
CREATE TABLE IF NOT EXISTS "_concord_hidden_lists" (pk PRIMARY KEY NOT NULL, "name", "color", "position", "archived") WITHOUT ROWID;
CREATE TRIGGER "_concord_lists_key" BEFORE UPDATE OF "id" ON "lists"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table lists cannot change; delete the row and insert it under the new key');
END;
CREATE TABLE IF NOT EXISTS "_concord_rows_reminders" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, "h_list_id" INTEGER, "n_list_id" INTEGER, "h_title" INTEGER, "n_title" INTEGER, "h_done" INTEGER, "n_done" INTEGER, "h_due" INTEGER, "n_due" INTEGER, "h_notes" INTEGER, "n_notes" INTEGER
);
CREATE INDEX "_concord_rows_reminders_key" ON "_concord_rows_reminders"(kh);
CREATE TABLE IF NOT EXISTS "_concord_hidden_reminders" (pk PRIMARY KEY NOT NULL, "list_id", "title", "done", "due", "notes") WITHOUT ROWID;
CREATE TRIGGER "_concord_reminders_key" BEFORE UPDATE OF "id" ON "reminders"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table reminders cannot change; delete the row and insert it under the new key');
END;
CREATE INDEX "_concord_hidden_reminders_list_id" ON "_concord_hidden_reminders"("list_id");
CREATE INDEX "_concord_index_reminders_list_id" ON "reminders"("list_id");
CREATE TABLE IF NOT EXISTS "_concord_rows_comments" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER
);
CREATE INDEX "_concord_rows_comments_key" ON "_concord_rows_comments"(kh);
CREATE TABLE IF NOT EXISTS "_concord_hidden_comments" (pk PRIMARY KEY NOT NULL, "list_id", "body", "author") WITHOUT ROWID;
CREATE TRIGGER "_concord_comments_key" BEFORE UPDATE OF "id" ON "comments"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table comments cannot change; delete the row and insert it under the new key');
END;
CREATE INDEX "_concord_hidden_comments_list_id" ON "_concord_hidden_comments"("list_id");
CREATE INDEX "_concord_index_comments_list_id" ON "comments"("list_id");
CREATE TABLE IF NOT EXISTS "_concord_rows_settings" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER
);
CREATE INDEX "_concord_rows_settings_key" ON "_concord_rows_settings"(kh);
CREATE TABLE IF NOT EXISTS "_concord_hidden_settings" (pk PRIMARY KEY NOT NULL, "value", "updated") WITHOUT ROWID;
CREATE TRIGGER "_concord_settings_key" BEFORE UPDATE OF "key" ON "settings"
WHEN NEW."key" IS NOT OLD."key"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table settings cannot change; delete the row and insert it under the new key');
END;
CREATE TABLE IF NOT EXISTS "_concord_rows_stats" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, "h_views" INTEGER, "n_views" INTEGER, "h_best" INTEGER, "n_best" INTEGER, "h_first_seen" INTEGER, "n_first_seen" INTEGER, "h_tags" INTEGER, "n_tags" INTEGER, "h_label" INTEGER, "n_label" INTEGER
);
CREATE INDEX "_concord_rows_stats_key" ON "_concord_rows_stats"(kh);
CREATE TABLE IF NOT EXISTS "_concord_hidden_stats" (pk PRIMARY KEY NOT NULL, "views", "best", "first_seen", "tags", "label") WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "_concord_counters_stats" (
    pk NOT NULL, col TEXT NOT NULL, node INTEGER NOT NULL, cl INTEGER NOT NULL,
    amount INTEGER NOT NULL, hlc INTEGER NOT NULL, PRIMARY KEY (pk, col, node)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "_concord_logvalues_stats" (seq INTEGER PRIMARY KEY, "o_views", "n_views", "o_best", "n_best", "o_first_seen", "n_first_seen", "o_tags", "n_tags");
CREATE TRIGGER "_concord_stats_key" BEFORE UPDATE OF "id" ON "stats"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table stats cannot change; delete the row and insert it under the new key');
END;
CREATE TRIGGER "_concord_stats_check_insert" BEFORE INSERT ON "stats"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: counter column stats.views holds integers') WHERE typeof(NEW."views") NOT IN ('integer', 'null');
  SELECT RAISE(ABORT, 'concord: union column stats.tags holds a JSON array of strings and integers') WHERE NEW."tags" IS NOT NULL AND CASE WHEN json_valid(NEW."tags") AND json_type(NEW."tags") = 'array' THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
END;
CREATE TRIGGER "_concord_stats_check_update" BEFORE UPDATE ON "stats"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: counter column stats.views holds integers') WHERE typeof(NEW."views") NOT IN ('integer', 'null');
  SELECT RAISE(ABORT, 'concord: union column stats.tags holds a JSON array of strings and integers') WHERE NEW."tags" IS NOT NULL AND CASE WHEN json_valid(NEW."tags") AND json_type(NEW."tags") = 'array' THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
END;
CREATE TRIGGER "_concord_lists_insert" AFTER INSERT ON "lists"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, NEW."id", 1, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_lists_update" AFTER UPDATE ON "lists"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, NEW."id", 2, julianday('now'), ((NEW."name" IS NOT OLD."name" COLLATE BINARY) << 0) | ((NEW."color" IS NOT OLD."color" COLLATE BINARY OR typeof(NEW."color") <> typeof(OLD."color")) << 1) | ((NEW."position" IS NOT OLD."position" COLLATE BINARY) << 2) | ((NEW."archived" IS NOT OLD."archived" COLLATE BINARY) << 3));
END;
CREATE TRIGGER "_concord_lists_delete" AFTER DELETE ON "lists"
WHEN 1
BEGIN
  INSERT OR REPLACE INTO "_concord_hidden_lists" (pk, "name", "color", "position", "archived") VALUES (OLD."id", OLD."name", OLD."color", OLD."position", OLD."archived");
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, OLD."id", 3, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_reminders_insert" AFTER INSERT ON "reminders"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, NEW."id", 1, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_reminders_update" AFTER UPDATE ON "reminders"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, NEW."id", 2, julianday('now'), ((NEW."list_id" IS NOT OLD."list_id" COLLATE BINARY) << 0) | ((NEW."title" IS NOT OLD."title" COLLATE BINARY) << 1) | ((NEW."done" IS NOT OLD."done" COLLATE BINARY) << 2) | ((NEW."due" IS NOT OLD."due" COLLATE BINARY) << 3) | ((NEW."notes" IS NOT OLD."notes" COLLATE BINARY) << 4));
END;
CREATE TRIGGER "_concord_reminders_delete" AFTER DELETE ON "reminders"
WHEN 1
BEGIN
  INSERT OR REPLACE INTO "_concord_hidden_reminders" (pk, "list_id", "title", "done", "due", "notes") VALUES (OLD."id", OLD."list_id", OLD."title", OLD."done", OLD."due", OLD."notes");
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, OLD."id", 3, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_comments_insert" AFTER INSERT ON "comments"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, NEW."id", 1, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_comments_update" AFTER UPDATE ON "comments"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, NEW."id", 2, julianday('now'), ((NEW."list_id" IS NOT OLD."list_id" COLLATE BINARY) << 0) | ((NEW."body" IS NOT OLD."body" COLLATE BINARY) << 1) | ((NEW."author" IS NOT OLD."author" COLLATE BINARY) << 2));
END;
CREATE TRIGGER "_concord_comments_delete" AFTER DELETE ON "comments"
WHEN 1
BEGIN
  INSERT OR REPLACE INTO "_concord_hidden_comments" (pk, "list_id", "body", "author") VALUES (OLD."id", OLD."list_id", OLD."body", OLD."author");
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, OLD."id", 3, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_settings_insert" AFTER INSERT ON "settings"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, NEW."key", 1, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_settings_update" AFTER UPDATE ON "settings"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, NEW."key", 2, julianday('now'), ((NEW."value" IS NOT OLD."value" COLLATE BINARY OR typeof(NEW."value") <> typeof(OLD."value")) << 0) | ((NEW."updated" IS NOT OLD."updated" COLLATE BINARY) << 1));
END;
CREATE TRIGGER "_concord_settings_delete" AFTER DELETE ON "settings"
WHEN 1
BEGIN
  INSERT OR REPLACE INTO "_concord_hidden_settings" (pk, "value", "updated") VALUES (OLD."key", OLD."value", OLD."updated");
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, OLD."key", 3, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_stats_insert" AFTER INSERT ON "stats"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, NEW."id", 1, julianday('now'), NULL);
  INSERT INTO "_concord_logvalues_stats" (seq, "n_views", "n_best", "n_first_seen", "n_tags") VALUES (last_insert_rowid(), NEW."views", NEW."best", NEW."first_seen", NEW."tags");
END;
CREATE TRIGGER "_concord_stats_update" AFTER UPDATE ON "stats"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, NEW."id", 2, julianday('now'), ((NEW."views" IS NOT OLD."views" COLLATE BINARY) << 0) | ((NEW."best" IS NOT OLD."best" COLLATE BINARY) << 1) | ((NEW."first_seen" IS NOT OLD."first_seen" COLLATE BINARY) << 2) | ((NEW."tags" IS NOT OLD."tags" COLLATE BINARY) << 3) | ((NEW."label" IS NOT OLD."label" COLLATE BINARY) << 4));
  INSERT INTO "_concord_logvalues_stats" (seq, "o_views", "n_views", "o_best", "n_best", "o_first_seen", "n_first_seen", "o_tags", "n_tags") VALUES (last_insert_rowid(), OLD."views", NEW."views", OLD."best", NEW."best", OLD."first_seen", NEW."first_seen", OLD."tags", NEW."tags");
END;
CREATE TRIGGER "_concord_stats_delete" AFTER DELETE ON "stats"
WHEN 1
BEGIN
  INSERT OR REPLACE INTO "_concord_hidden_stats" (pk, "views", "best", "first_seen", "tags", "label") VALUES (OLD."id", OLD."views", OLD."best", OLD."first_seen", OLD."tags", OLD."label");
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, OLD."id", 3, julianday('now'), NULL);
END;
