CREATE TABLE _concord_state (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    layout INTEGER NOT NULL,
    hlc INTEGER NOT NULL,
    version INTEGER NOT NULL,
    node INTEGER NOT NULL,
    file TEXT,
    own INTEGER NOT NULL DEFAULT 0,
    exported INTEGER NOT NULL DEFAULT 0,
    swept INTEGER
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
CREATE TABLE _concord_peers (node BLOB PRIMARY KEY, version INTEGER NOT NULL, at INTEGER) WITHOUT ROWID;
CREATE TABLE _concord_parked (
    tbl INTEGER NOT NULL, pk NOT NULL, kind INTEGER NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (tbl, pk)
) WITHOUT ROWID;
CREATE TABLE _concord_conflicts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, tbl INTEGER NOT NULL, pk NOT NULL, col INTEGER NOT NULL,
    kind INTEGER NOT NULL, value, hlc INTEGER NOT NULL, node INTEGER NOT NULL, whlc INTEGER NOT NULL,
    wnode INTEGER NOT NULL, wvalue, at INTEGER NOT NULL, UNIQUE (tbl, pk, col, hlc, node)
);
CREATE TABLE sqlite_sequence(name,seq);
CREATE TABLE _concord_readers (
    node BLOB PRIMARY KEY, version INTEGER NOT NULL, at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE _concord_revived (tbl INTEGER NOT NULL, pk NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
CREATE TABLE _concord_relayed (name TEXT PRIMARY KEY COLLATE NOCASE, declaration BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE _concord_relayed_rows (
    name TEXT NOT NULL COLLATE NOCASE, pk NOT NULL, ver INTEGER NOT NULL, registers BLOB NOT NULL,
    PRIMARY KEY (name, pk)
) WITHOUT ROWID;
CREATE INDEX _concord_relayed_rows_ver ON _concord_relayed_rows (name, ver);
CREATE TABLE _concord_log (
    seq INTEGER PRIMARY KEY,
    tbl INTEGER NOT NULL,
    pk NOT NULL,
    op INTEGER NOT NULL,
    at REAL NOT NULL,
    mask INTEGER
);
CREATE TABLE _concord_keys (seq INTEGER PRIMARY KEY, tbl INTEGER NOT NULL, pk NOT NULL);
CREATE TABLE _concord_retired (
    name TEXT NOT NULL, pk NOT NULL, cl INTEGER NOT NULL, hlc INTEGER NOT NULL, node INTEGER NOT NULL,
    clh INTEGER NOT NULL, cln INTEGER NOT NULL, shown INTEGER NOT NULL, PRIMARY KEY (name, pk)
) WITHOUT ROWID;
CREATE TABLE _concord_retired_values (
    name TEXT NOT NULL, pk NOT NULL, col TEXT NOT NULL, value, hlc INTEGER NOT NULL, node INTEGER NOT NULL,
    counter INTEGER NOT NULL, PRIMARY KEY (name, pk, col)
) WITHOUT ROWID;
CREATE TABLE _concord_retired_counts (
    name TEXT NOT NULL, pk NOT NULL, col TEXT NOT NULL, node INTEGER NOT NULL, amount INTEGER NOT NULL,
    hlc INTEGER NOT NULL, PRIMARY KEY (name, pk, col, node)
) WITHOUT ROWID;
CREATE TABLE _concord_credits (
    upto INTEGER PRIMARY KEY, node INTEGER NOT NULL, hlc INTEGER NOT NULL
);
CREATE TABLE _concord_positions (pos INTEGER PRIMARY KEY);
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
CREATE TABLE IF NOT EXISTS "_concord_1_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, h0 INTEGER, n0 INTEGER, h1 INTEGER, n1 INTEGER, h2 INTEGER, n2 INTEGER, h3 INTEGER, n3 INTEGER, seen BLOB
);
CREATE INDEX "_concord_1_rows_kh" ON "_concord_1_rows"(kh);
CREATE TABLE IF NOT EXISTS "_concord_1_hidden" (pk PRIMARY KEY NOT NULL, c0, c1, c2, c3) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "_concord_1_zeros" (seq INTEGER NOT NULL, col INTEGER NOT NULL, old, new, PRIMARY KEY (seq, col)) WITHOUT ROWID;
CREATE TRIGGER "_concord_1_insert" AFTER INSERT ON "lists"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "lists" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 1, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_1_update" AFTER UPDATE ON "lists"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "lists" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 2, julianday('now'), ((NEW."name" IS NOT OLD."name" COLLATE BINARY) << 0) | ((NEW."color" IS NOT OLD."color" COLLATE BINARY OR typeof(NEW."color") <> typeof(OLD."color") OR CASE WHEN NEW."color" = 0 THEN typeof(NEW."color") = 'real' ELSE 0 END) << 1) | ((NEW."position" IS NOT OLD."position" COLLATE BINARY) << 2) | ((NEW."archived" IS NOT OLD."archived" COLLATE BINARY OR CASE WHEN NEW."archived" = -9223372036854775808 THEN typeof(NEW."archived") <> typeof(OLD."archived") ELSE 0 END) << 3));
  INSERT INTO "_concord_1_zeros" (seq, col, old, new) SELECT last_insert_rowid(), 1, OLD."color", NEW."color" WHERE typeof(NEW."color") = 'real' AND NEW."color" = 0 AND typeof(OLD."color") = 'real' AND OLD."color" = 0;
END;
CREATE TRIGGER "_concord_1_delete" AFTER DELETE ON "lists"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 1 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END), 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_1_hidden" (pk, c0, c1, c2, c3) SELECT (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()), CASE WHEN OLD."name" = CAST(k.c0 AS TEXT) COLLATE BINARY THEN k.c0 ELSE OLD."name" END, OLD."color", CASE WHEN OLD."position" = k.c2 COLLATE BINARY THEN k.c2 ELSE OLD."position" END, CASE WHEN OLD."archived" = k.c3 COLLATE BINARY THEN k.c3 ELSE OLD."archived" END FROM (SELECT 1) LEFT JOIN "_concord_1_hidden" AS k ON k.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 1 AND pk = k.pk AND op IN (1, 2));
  DELETE FROM _concord_keys WHERE seq = (SELECT max(seq) FROM _concord_keys WHERE tbl = 1 AND pk = (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 1 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END));
END;
CREATE TRIGGER "_concord_1_predelete" BEFORE DELETE ON "lists"
WHEN (OLD."id" GLOB '*[0-9]*' AND OLD."id" NOT GLOB '*[^0-9.eE+ ' || char(9, 10, 11, 12, 13) || '-]*')
BEGIN
  INSERT INTO _concord_keys (tbl, pk) VALUES (1, OLD."id");
END;
CREATE TRIGGER "_concord_1_key" BEFORE UPDATE OF "id" ON "lists"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table lists cannot change; delete the row and insert it under the new key');
END;
CREATE INDEX "_concord_1_inplace_guard" ON "lists"("name", "color", "position", "archived") WHERE 0;
CREATE TABLE IF NOT EXISTS "_concord_2_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, h0 INTEGER, n0 INTEGER, h1 INTEGER, n1 INTEGER, h2 INTEGER, n2 INTEGER, h3 INTEGER, n3 INTEGER, h4 INTEGER, n4 INTEGER, seen BLOB
);
CREATE INDEX "_concord_2_rows_kh" ON "_concord_2_rows"(kh);
CREATE TABLE IF NOT EXISTS "_concord_2_hidden" (pk PRIMARY KEY NOT NULL, c0, c1, c2, c3, c4) WITHOUT ROWID;
CREATE TRIGGER "_concord_2_insert" AFTER INSERT ON "reminders"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "reminders" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 1, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_2_update" AFTER UPDATE ON "reminders"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "reminders" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 2, julianday('now'), ((NEW."list_id" IS NOT OLD."list_id" COLLATE BINARY) << 0) | ((NEW."title" IS NOT OLD."title" COLLATE BINARY) << 1) | ((NEW."done" IS NOT OLD."done" COLLATE BINARY OR CASE WHEN NEW."done" = -9223372036854775808 THEN typeof(NEW."done") <> typeof(OLD."done") ELSE 0 END) << 2) | ((NEW."due" IS NOT OLD."due" COLLATE BINARY) << 3) | ((NEW."notes" IS NOT OLD."notes" COLLATE BINARY) << 4));
END;
CREATE TRIGGER "_concord_2_delete" AFTER DELETE ON "reminders"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 2 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END), 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_2_hidden" (pk, c0, c1, c2, c3, c4) SELECT (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()), CASE WHEN OLD."list_id" = CAST(k.c0 AS TEXT) COLLATE BINARY THEN k.c0 ELSE OLD."list_id" END, CASE WHEN OLD."title" = CAST(k.c1 AS TEXT) COLLATE BINARY THEN k.c1 ELSE OLD."title" END, CASE WHEN OLD."done" = k.c2 COLLATE BINARY THEN k.c2 ELSE OLD."done" END, CASE WHEN OLD."due" = k.c3 COLLATE BINARY THEN k.c3 ELSE OLD."due" END, CASE WHEN OLD."notes" = CAST(k.c4 AS TEXT) COLLATE BINARY THEN k.c4 ELSE OLD."notes" END FROM (SELECT 1) LEFT JOIN "_concord_2_hidden" AS k ON k.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 2 AND pk = k.pk AND op IN (1, 2));
  DELETE FROM _concord_keys WHERE seq = (SELECT max(seq) FROM _concord_keys WHERE tbl = 2 AND pk = (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 2 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END));
END;
CREATE TRIGGER "_concord_2_predelete" BEFORE DELETE ON "reminders"
WHEN (OLD."id" GLOB '*[0-9]*' AND OLD."id" NOT GLOB '*[^0-9.eE+ ' || char(9, 10, 11, 12, 13) || '-]*')
BEGIN
  INSERT INTO _concord_keys (tbl, pk) VALUES (2, OLD."id");
END;
CREATE TRIGGER "_concord_2_key" BEFORE UPDATE OF "id" ON "reminders"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table reminders cannot change; delete the row and insert it under the new key');
END;
CREATE INDEX "_concord_2_inplace_guard" ON "reminders"("list_id", "title", "done", "due", "notes") WHERE 0;
CREATE INDEX "_concord_2_hidden_c0" ON "_concord_2_hidden"(c0);
CREATE INDEX "_concord_2_fk_c0" ON "reminders"("list_id");
CREATE TABLE IF NOT EXISTS "_concord_3_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, seen BLOB
);
CREATE INDEX "_concord_3_rows_kh" ON "_concord_3_rows"(kh);
CREATE TABLE IF NOT EXISTS "_concord_3_hidden" (pk PRIMARY KEY NOT NULL, c0, c1, c2) WITHOUT ROWID;
CREATE TRIGGER "_concord_3_insert" AFTER INSERT ON "comments"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "comments" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 1, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_3_update" AFTER UPDATE ON "comments"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "comments" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 2, julianday('now'), ((NEW."list_id" IS NOT OLD."list_id" COLLATE BINARY) << 0) | ((NEW."body" IS NOT OLD."body" COLLATE BINARY) << 1) | ((NEW."author" IS NOT OLD."author" COLLATE BINARY) << 2));
END;
CREATE TRIGGER "_concord_3_delete" AFTER DELETE ON "comments"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 3 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END), 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_3_hidden" (pk, c0, c1, c2) SELECT (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()), CASE WHEN OLD."list_id" = CAST(k.c0 AS TEXT) COLLATE BINARY THEN k.c0 ELSE OLD."list_id" END, CASE WHEN OLD."body" = CAST(k.c1 AS TEXT) COLLATE BINARY THEN k.c1 ELSE OLD."body" END, CASE WHEN OLD."author" = CAST(k.c2 AS TEXT) COLLATE BINARY THEN k.c2 ELSE OLD."author" END FROM (SELECT 1) LEFT JOIN "_concord_3_hidden" AS k ON k.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 3 AND pk = k.pk AND op IN (1, 2));
  DELETE FROM _concord_keys WHERE seq = (SELECT max(seq) FROM _concord_keys WHERE tbl = 3 AND pk = (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 3 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END));
END;
CREATE TRIGGER "_concord_3_predelete" BEFORE DELETE ON "comments"
WHEN (OLD."id" GLOB '*[0-9]*' AND OLD."id" NOT GLOB '*[^0-9.eE+ ' || char(9, 10, 11, 12, 13) || '-]*')
BEGIN
  INSERT INTO _concord_keys (tbl, pk) VALUES (3, OLD."id");
END;
CREATE TRIGGER "_concord_3_key" BEFORE UPDATE OF "id" ON "comments"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table comments cannot change; delete the row and insert it under the new key');
END;
CREATE INDEX "_concord_3_inplace_guard" ON "comments"("list_id", "body", "author") WHERE 0;
CREATE INDEX "_concord_3_hidden_c0" ON "_concord_3_hidden"(c0);
CREATE INDEX "_concord_3_fk_c0" ON "comments"("list_id");
CREATE TABLE IF NOT EXISTS "_concord_4_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, seen BLOB
);
CREATE INDEX "_concord_4_rows_kh" ON "_concord_4_rows"(kh);
CREATE TABLE IF NOT EXISTS "_concord_4_hidden" (pk PRIMARY KEY NOT NULL, c0, c1) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "_concord_4_zeros" (seq INTEGER NOT NULL, col INTEGER NOT NULL, old, new, PRIMARY KEY (seq, col)) WITHOUT ROWID;
CREATE TRIGGER "_concord_4_insert" AFTER INSERT ON "settings"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: the key column key of synced table settings takes TEXT or BLOB values, such as UUIDs; this row''s key is NULL or a number') WHERE typeof(NEW."key") NOT IN ('text', 'blob');
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, NEW."key", 1, julianday('now'), NULL);
END;
CREATE TRIGGER "_concord_4_update" AFTER UPDATE ON "settings"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, NEW."key", 2, julianday('now'), ((NEW."value" IS NOT OLD."value" COLLATE BINARY OR typeof(NEW."value") <> typeof(OLD."value") OR CASE WHEN NEW."value" = 0 THEN typeof(NEW."value") = 'real' ELSE 0 END) << 0) | ((NEW."updated" IS NOT OLD."updated" COLLATE BINARY OR CASE WHEN NEW."updated" = -9223372036854775808 THEN typeof(NEW."updated") <> typeof(OLD."updated") ELSE 0 END) << 1));
  INSERT INTO "_concord_4_zeros" (seq, col, old, new) SELECT last_insert_rowid(), 0, OLD."value", NEW."value" WHERE typeof(NEW."value") = 'real' AND NEW."value" = 0 AND typeof(OLD."value") = 'real' AND OLD."value" = 0;
END;
CREATE TRIGGER "_concord_4_delete" AFTER DELETE ON "settings"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, OLD."key", 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_4_hidden" (pk, c0, c1) SELECT OLD."key", OLD."value", CASE WHEN OLD."updated" = k.c1 COLLATE BINARY THEN k.c1 ELSE OLD."updated" END FROM (SELECT 1) LEFT JOIN "_concord_4_hidden" AS k ON k.pk = OLD."key" AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 4 AND pk = k.pk AND op IN (1, 2));
END;
CREATE TRIGGER "_concord_4_key" BEFORE UPDATE OF "key" ON "settings"
WHEN NEW."key" IS NOT OLD."key"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table settings cannot change; delete the row and insert it under the new key');
END;
CREATE INDEX "_concord_4_inplace_guard" ON "settings"("value", "updated") WHERE 0;
CREATE TABLE IF NOT EXISTS "_concord_5_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, h0 INTEGER, n0 INTEGER, h1 INTEGER, n1 INTEGER, h2 INTEGER, n2 INTEGER, h3 INTEGER, n3 INTEGER, h4 INTEGER, n4 INTEGER, seen BLOB
);
CREATE INDEX "_concord_5_rows_kh" ON "_concord_5_rows"(kh);
CREATE TABLE IF NOT EXISTS "_concord_5_hidden" (pk PRIMARY KEY NOT NULL, c0, c1, c2, c3, c4) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "_concord_5_counters" (
    pk NOT NULL, col INTEGER NOT NULL, node INTEGER NOT NULL, cl INTEGER NOT NULL,
    amount INTEGER NOT NULL, hlc INTEGER NOT NULL, PRIMARY KEY (pk, col, node)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "_concord_5_logvalues" (seq INTEGER PRIMARY KEY, o0, v0, o1, v1, o2, v2, o3, v3);
CREATE TRIGGER "_concord_5_insert" AFTER INSERT ON "stats"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "stats" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 1, julianday('now'), NULL);
  INSERT INTO "_concord_5_logvalues" (seq, o0, v0, o1, v1, o2, v2, o3, v3) VALUES (last_insert_rowid(), (SELECT o0 FROM "_concord_5_logvalues" WHERE seq = -1 AND v0 IS (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "stats" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END)), NEW."views", (SELECT o1 FROM "_concord_5_logvalues" WHERE seq = -1 AND v0 IS (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "stats" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END)), NEW."best", (SELECT o2 FROM "_concord_5_logvalues" WHERE seq = -1 AND v0 IS (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "stats" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END)), NEW."first_seen", (SELECT o3 FROM "_concord_5_logvalues" WHERE seq = -1 AND v0 IS (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "stats" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END)), NEW."tags");
END;
CREATE TRIGGER "_concord_5_update" AFTER UPDATE ON "stats"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "stats" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 2, julianday('now'), ((NEW."views" IS NOT OLD."views" COLLATE BINARY OR CASE WHEN NEW."views" = -9223372036854775808 THEN typeof(NEW."views") <> typeof(OLD."views") ELSE 0 END) << 0) | ((NEW."best" IS NOT OLD."best" COLLATE BINARY) << 1) | ((NEW."first_seen" IS NOT OLD."first_seen" COLLATE BINARY OR CASE WHEN NEW."first_seen" = -9223372036854775808 THEN typeof(NEW."first_seen") <> typeof(OLD."first_seen") ELSE 0 END) << 2) | ((NEW."tags" IS NOT OLD."tags" COLLATE BINARY) << 3) | ((NEW."label" IS NOT OLD."label" COLLATE BINARY) << 4));
  INSERT INTO "_concord_5_logvalues" (seq, o0, v0, o1, v1, o2, v2, o3, v3) VALUES (last_insert_rowid(), OLD."views", NEW."views", OLD."best", NEW."best", OLD."first_seen", NEW."first_seen", OLD."tags", NEW."tags");
END;
CREATE TRIGGER "_concord_5_delete" AFTER DELETE ON "stats"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 5 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END), 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_5_hidden" (pk, c0, c1, c2, c3, c4) SELECT (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()), CASE WHEN h.pk IS NULL THEN OLD."views" WHEN EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 5 AND pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND op = 1) THEN h.c0 ELSE OLD."views" END, CASE WHEN h.pk IS NULL THEN OLD."best" WHEN EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 5 AND pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND op = 1) THEN h.c1 ELSE OLD."best" END, CASE WHEN h.pk IS NULL THEN OLD."first_seen" WHEN EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 5 AND pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND op = 1) THEN h.c2 ELSE OLD."first_seen" END, CASE WHEN h.pk IS NULL THEN OLD."tags" WHEN EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 5 AND pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND op = 1) THEN h.c3 ELSE OLD."tags" END, CASE WHEN OLD."label" = CAST(k.c4 AS TEXT) COLLATE BINARY THEN k.c4 ELSE OLD."label" END FROM (SELECT 1) LEFT JOIN "_concord_5_hidden" AS h ON h.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) LEFT JOIN "_concord_5_hidden" AS k ON k.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 5 AND pk = k.pk AND op IN (1, 2));
  DELETE FROM "_concord_5_logvalues" WHERE seq = -1 AND v0 IS (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid());
  DELETE FROM _concord_keys WHERE seq = (SELECT max(seq) FROM _concord_keys WHERE tbl = 5 AND pk = (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 5 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END));
END;
CREATE TRIGGER "_concord_5_predelete" BEFORE DELETE ON "stats"
WHEN (OLD."id" GLOB '*[0-9]*' AND OLD."id" NOT GLOB '*[^0-9.eE+ ' || char(9, 10, 11, 12, 13) || '-]*')
BEGIN
  INSERT INTO _concord_keys (tbl, pk) VALUES (5, OLD."id");
END;
CREATE TRIGGER "_concord_5_prereplace" BEFORE INSERT ON "stats"
WHEN 1
BEGIN
  DELETE FROM "_concord_5_logvalues" WHERE seq = -1;
  INSERT INTO "_concord_5_logvalues" (seq, v0, o0, o1, o2, o3) SELECT -1, r."id", r."views", r."best", r."first_seen", r."tags" FROM "stats" AS r WHERE r."id" = NEW."id";
END;
CREATE TRIGGER "_concord_5_key" BEFORE UPDATE OF "id" ON "stats"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table stats cannot change; delete the row and insert it under the new key');
END;
CREATE TRIGGER "_concord_5_check_insert" BEFORE INSERT ON "stats"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: counter column stats.views holds integers (SQL makes a sum past the 64-bit range a REAL)') WHERE typeof(NEW."views") NOT IN ('integer', 'null');
  SELECT RAISE(ABORT, 'concord: union column stats.tags holds a JSON array of strings and integers, as TEXT') WHERE NEW."tags" IS NOT NULL AND CASE WHEN typeof(NEW."tags") <> 'text' OR instr(CAST(NEW."tags" AS BLOB), X'00') THEN 1 WHEN json_valid(NEW."tags") AND json_type(NEW."tags") = 'array' THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
END;
CREATE TRIGGER "_concord_5_check_update" BEFORE UPDATE ON "stats"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: counter column stats.views holds integers (SQL makes a sum past the 64-bit range a REAL)') WHERE typeof(NEW."views") NOT IN ('integer', 'null');
  SELECT RAISE(ABORT, 'concord: union column stats.tags holds a JSON array of strings and integers, as TEXT') WHERE NEW."tags" IS NOT NULL AND CASE WHEN typeof(NEW."tags") <> 'text' OR instr(CAST(NEW."tags" AS BLOB), X'00') THEN 1 WHEN json_valid(NEW."tags") AND json_type(NEW."tags") = 'array' THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
END;
CREATE INDEX "_concord_5_inplace_guard" ON "stats"("views", "best", "first_seen", "tags", "label") WHERE 0;
