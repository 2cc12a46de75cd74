-- The SQL Concord installs for the tables of Tests/ConcordTests/TriggerSnapshotTests.swift,
-- in name order. Generated: CONCORD_UPDATE_SNAPSHOTS=1 swift test --filter TriggerSnapshotTests

-- _concord_1_delete
CREATE TRIGGER "_concord_1_delete" AFTER DELETE ON "lists"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 1 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END), 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_1_hidden" (pk, c0) SELECT (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()), CASE WHEN OLD."title" = CAST(k.c0 AS TEXT) COLLATE BINARY THEN k.c0 ELSE OLD."title" END FROM (SELECT 1) LEFT JOIN "_concord_1_hidden" AS k ON k.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 1 AND pk = k.pk AND op IN (1, 2));
  DELETE FROM _concord_keys WHERE seq = (SELECT max(seq) FROM _concord_keys WHERE tbl = 1 AND pk = (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 1 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END));
END;

-- _concord_1_hidden
CREATE TABLE "_concord_1_hidden" (pk PRIMARY KEY NOT NULL, c0) WITHOUT ROWID;

-- _concord_1_inplace_guard
CREATE INDEX "_concord_1_inplace_guard" ON "lists"("title") WHERE 0;

-- _concord_1_insert
CREATE TRIGGER "_concord_1_insert" AFTER INSERT ON "lists"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "lists" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 1, julianday('now'), NULL);
END;

-- _concord_1_key
CREATE TRIGGER "_concord_1_key" BEFORE UPDATE OF "id" ON "lists"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table lists cannot change; delete the row and insert it under the new key');
END;

-- _concord_1_predelete
CREATE TRIGGER "_concord_1_predelete" BEFORE DELETE ON "lists"
WHEN (OLD."id" GLOB '*[0-9]*' AND OLD."id" NOT GLOB '*[^0-9.eE+ ' || char(9, 10, 11, 12, 13) || '-]*')
BEGIN
  INSERT INTO _concord_keys (tbl, pk) VALUES (1, OLD."id");
END;

-- _concord_1_rows
CREATE TABLE "_concord_1_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, h0 INTEGER, n0 INTEGER, seen BLOB
);

-- _concord_1_rows_kh
CREATE INDEX "_concord_1_rows_kh" ON "_concord_1_rows"(kh);

-- _concord_1_update
CREATE TRIGGER "_concord_1_update" AFTER UPDATE ON "lists"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (1, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "lists" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 2, julianday('now'), ((NEW."title" IS NOT OLD."title" COLLATE BINARY) << 0));
END;

-- _concord_2_check_insert
CREATE TRIGGER "_concord_2_check_insert" BEFORE INSERT ON "items"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: counter column items.likes holds integers (SQL makes a sum past the 64-bit range a REAL)') WHERE typeof(NEW."likes") NOT IN ('integer', 'null');
  SELECT RAISE(ABORT, 'concord: union column items.tags holds a JSON array of strings and integers, as TEXT') WHERE NEW."tags" IS NOT NULL AND CASE WHEN typeof(NEW."tags") <> 'text' OR instr(CAST(NEW."tags" AS BLOB), X'00') THEN 1 WHEN substr(ltrim(NEW."tags", ' ' || char(9, 10, 13)), 1, 1) = '[' THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
END;

-- _concord_2_check_update
CREATE TRIGGER "_concord_2_check_update" BEFORE UPDATE ON "items"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: counter column items.likes holds integers (SQL makes a sum past the 64-bit range a REAL)') WHERE typeof(NEW."likes") NOT IN ('integer', 'null');
  SELECT RAISE(ABORT, 'concord: union column items.tags holds a JSON array of strings and integers, as TEXT') WHERE NEW."tags" IS NOT NULL AND CASE WHEN typeof(NEW."tags") <> 'text' OR instr(CAST(NEW."tags" AS BLOB), X'00') THEN 1 WHEN substr(ltrim(NEW."tags", ' ' || char(9, 10, 13)), 1, 1) = '[' THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
END;

-- _concord_2_counters
CREATE TABLE "_concord_2_counters" (
    pk NOT NULL, col INTEGER NOT NULL, node INTEGER NOT NULL, cl INTEGER NOT NULL,
    amount INTEGER NOT NULL, hlc INTEGER NOT NULL, PRIMARY KEY (pk, col, node)
) WITHOUT ROWID;

-- _concord_2_delete
CREATE TRIGGER "_concord_2_delete" AFTER DELETE ON "items"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 2 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END), 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_2_hidden" (pk, c0, c1, c2, c3, c4) SELECT (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()), CASE WHEN OLD."list" = CAST(k.c0 AS TEXT) COLLATE BINARY THEN k.c0 ELSE OLD."list" END, CASE WHEN OLD."title" = CAST(k.c1 AS TEXT) COLLATE BINARY THEN k.c1 ELSE OLD."title" END, CASE WHEN OLD."done" = k.c2 COLLATE BINARY THEN k.c2 ELSE OLD."done" END, CASE WHEN h.pk IS NULL THEN OLD."likes" WHEN EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 2 AND pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND op = 1) THEN h.c3 ELSE OLD."likes" END, CASE WHEN h.pk IS NULL THEN OLD."tags" WHEN EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 2 AND pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND op = 1) THEN h.c4 ELSE OLD."tags" END FROM (SELECT 1) LEFT JOIN "_concord_2_hidden" AS h ON h.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) LEFT JOIN "_concord_2_hidden" AS k ON k.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 2 AND pk = k.pk AND op IN (1, 2));
  DELETE FROM "_concord_2_logvalues" WHERE seq = -1 AND v3 IS (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid());
  DELETE FROM _concord_keys WHERE seq = (SELECT max(seq) FROM _concord_keys WHERE tbl = 2 AND pk = (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 2 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END));
END;

-- _concord_2_fk_c0
CREATE INDEX "_concord_2_fk_c0" ON "items"("list");

-- _concord_2_hidden
CREATE TABLE "_concord_2_hidden" (pk PRIMARY KEY NOT NULL, c0, c1, c2, c3, c4) WITHOUT ROWID;

-- _concord_2_hidden_c0
CREATE INDEX "_concord_2_hidden_c0" ON "_concord_2_hidden"(c0);

-- _concord_2_inplace_guard
CREATE INDEX "_concord_2_inplace_guard" ON "items"("list", "title", "done", "likes", "tags") WHERE 0;

-- _concord_2_insert
CREATE TRIGGER "_concord_2_insert" AFTER INSERT ON "items"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "items" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 1, julianday('now'), NULL);
  INSERT INTO "_concord_2_logvalues" (seq, o3, v3, o4, v4) VALUES (last_insert_rowid(), (SELECT o3 FROM "_concord_2_logvalues" WHERE seq = -1 AND v3 IS (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "items" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END)), NEW."likes", (SELECT o4 FROM "_concord_2_logvalues" WHERE seq = -1 AND v3 IS (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "items" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END)), NEW."tags");
END;

-- _concord_2_key
CREATE TRIGGER "_concord_2_key" BEFORE UPDATE OF "id" ON "items"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table items cannot change; delete the row and insert it under the new key');
END;

-- _concord_2_logvalues
CREATE TABLE "_concord_2_logvalues" (seq INTEGER PRIMARY KEY, o3, v3, o4, v4);

-- _concord_2_predelete
CREATE TRIGGER "_concord_2_predelete" BEFORE DELETE ON "items"
WHEN (OLD."id" GLOB '*[0-9]*' AND OLD."id" NOT GLOB '*[^0-9.eE+ ' || char(9, 10, 11, 12, 13) || '-]*')
BEGIN
  INSERT INTO _concord_keys (tbl, pk) VALUES (2, OLD."id");
END;

-- _concord_2_prereplace
CREATE TRIGGER "_concord_2_prereplace" BEFORE INSERT ON "items"
WHEN 1
BEGIN
  DELETE FROM "_concord_2_logvalues" WHERE seq = -1;
  INSERT INTO "_concord_2_logvalues" (seq, v3, o3, o4) SELECT -1, r."id", r."likes", r."tags" FROM "items" AS r WHERE r."id" = NEW."id";
END;

-- _concord_2_rows
CREATE TABLE "_concord_2_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, h0 INTEGER, n0 INTEGER, h1 INTEGER, n1 INTEGER, h2 INTEGER, n2 INTEGER, h3 INTEGER, n3 INTEGER, h4 INTEGER, n4 INTEGER, seen BLOB
);

-- _concord_2_rows_kh
CREATE INDEX "_concord_2_rows_kh" ON "_concord_2_rows"(kh);

-- _concord_2_update
CREATE TRIGGER "_concord_2_update" AFTER UPDATE ON "items"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (2, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "items" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 2, julianday('now'), ((NEW."list" IS NOT OLD."list" COLLATE BINARY) << 0) | ((NEW."title" IS NOT OLD."title" COLLATE BINARY) << 1) | ((NEW."done" IS NOT OLD."done" COLLATE BINARY OR CASE WHEN NEW."done" = -9223372036854775808 THEN typeof(NEW."done") <> typeof(OLD."done") ELSE 0 END) << 2) | ((NEW."likes" IS NOT OLD."likes" COLLATE BINARY OR CASE WHEN NEW."likes" = -9223372036854775808 THEN typeof(NEW."likes") <> typeof(OLD."likes") ELSE 0 END) << 3) | ((NEW."tags" IS NOT OLD."tags" COLLATE BINARY) << 4));
  INSERT INTO "_concord_2_logvalues" (seq, o3, v3, o4, v4) VALUES (last_insert_rowid(), OLD."likes", NEW."likes", OLD."tags", NEW."tags");
END;

-- _concord_3_delete
CREATE TRIGGER "_concord_3_delete" AFTER DELETE ON "settings"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 3 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END), 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_3_hidden" (pk, c0, c1, c2) SELECT (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()), CASE WHEN OLD."theme" = CAST(k.c0 AS TEXT) COLLATE BINARY THEN k.c0 ELSE OLD."theme" END, CASE WHEN OLD."size" = k.c1 COLLATE BINARY THEN k.c1 ELSE OLD."size" END, CASE WHEN OLD."ratio" = k.c2 COLLATE BINARY THEN k.c2 ELSE OLD."ratio" END FROM (SELECT 1) LEFT JOIN "_concord_3_hidden" AS k ON k.pk = (SELECT pk FROM _concord_log WHERE seq = last_insert_rowid()) AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 3 AND pk = k.pk AND op IN (1, 2));
  DELETE FROM _concord_keys WHERE seq = (SELECT max(seq) FROM _concord_keys WHERE tbl = 3 AND pk = (CASE WHEN typeof(OLD."id") IN ('integer', 'real') THEN COALESCE((SELECT pk FROM _concord_keys WHERE tbl = 3 AND CAST(pk AS NUMERIC) = OLD."id" ORDER BY seq DESC LIMIT 1), OLD."id") ELSE OLD."id" END));
END;

-- _concord_3_hidden
CREATE TABLE "_concord_3_hidden" (pk PRIMARY KEY NOT NULL, c0, c1, c2) WITHOUT ROWID;

-- _concord_3_inplace_guard
CREATE INDEX "_concord_3_inplace_guard" ON "settings"("theme", "size", "ratio") WHERE 0;

-- _concord_3_insert
CREATE TRIGGER "_concord_3_insert" AFTER INSERT ON "settings"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "settings" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 1, julianday('now'), NULL);
END;

-- _concord_3_key
CREATE TRIGGER "_concord_3_key" BEFORE UPDATE OF "id" ON "settings"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table settings cannot change; delete the row and insert it under the new key');
END;

-- _concord_3_predelete
CREATE TRIGGER "_concord_3_predelete" BEFORE DELETE ON "settings"
WHEN (OLD."id" GLOB '*[0-9]*' AND OLD."id" NOT GLOB '*[^0-9.eE+ ' || char(9, 10, 11, 12, 13) || '-]*')
BEGIN
  INSERT INTO _concord_keys (tbl, pk) VALUES (3, OLD."id");
END;

-- _concord_3_rows
CREATE TABLE "_concord_3_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, seen BLOB
);

-- _concord_3_rows_kh
CREATE INDEX "_concord_3_rows_kh" ON "_concord_3_rows"(kh);

-- _concord_3_update
CREATE TRIGGER "_concord_3_update" AFTER UPDATE ON "settings"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (3, (CASE WHEN typeof(NEW."id") IN ('integer', 'real') THEN COALESCE((SELECT t."id" FROM "settings" AS t WHERE t.rowid = NEW.rowid), NEW."id") ELSE NEW."id" END), 2, julianday('now'), ((NEW."theme" IS NOT OLD."theme" COLLATE BINARY) << 0) | ((NEW."size" IS NOT OLD."size" COLLATE BINARY OR CASE WHEN NEW."size" = -9223372036854775808 THEN typeof(NEW."size") <> typeof(OLD."size") ELSE 0 END) << 1) | ((NEW."ratio" IS NOT OLD."ratio" COLLATE BINARY) << 2));
END;

-- _concord_4_delete
CREATE TRIGGER "_concord_4_delete" AFTER DELETE ON "attachments"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, OLD."id", 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_4_hidden" (pk, c0, c1) SELECT OLD."id", OLD."payload", CASE WHEN OLD."size" = k.c1 COLLATE BINARY THEN k.c1 ELSE OLD."size" END FROM (SELECT 1) LEFT JOIN "_concord_4_hidden" AS k ON k.pk = OLD."id" AND NOT EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 4 AND pk = k.pk AND op IN (1, 2));
END;

-- _concord_4_hidden
CREATE TABLE "_concord_4_hidden" (pk PRIMARY KEY NOT NULL, c0, c1) WITHOUT ROWID;

-- _concord_4_inplace_guard
CREATE INDEX "_concord_4_inplace_guard" ON "attachments"("payload", "size") WHERE 0;

-- _concord_4_insert
CREATE TRIGGER "_concord_4_insert" AFTER INSERT ON "attachments"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: the key column id of synced table attachments takes TEXT or BLOB values, such as UUIDs; this row''s key is NULL or a number') WHERE typeof(NEW."id") NOT IN ('text', 'blob');
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, NEW."id", 1, julianday('now'), NULL);
END;

-- _concord_4_key
CREATE TRIGGER "_concord_4_key" BEFORE UPDATE OF "id" ON "attachments"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table attachments cannot change; delete the row and insert it under the new key');
END;

-- _concord_4_rows
CREATE TABLE "_concord_4_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, h0 INTEGER, n0 INTEGER, h1 INTEGER, n1 INTEGER, seen BLOB
);

-- _concord_4_rows_kh
CREATE INDEX "_concord_4_rows_kh" ON "_concord_4_rows"(kh);

-- _concord_4_update
CREATE TRIGGER "_concord_4_update" AFTER UPDATE ON "attachments"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (4, NEW."id", 2, julianday('now'), ((NEW."payload" IS NOT OLD."payload" COLLATE BINARY OR typeof(NEW."payload") <> typeof(OLD."payload") OR CASE WHEN NEW."payload" = 0 THEN typeof(NEW."payload") = 'real' ELSE 0 END) << 0) | ((NEW."size" IS NOT OLD."size" COLLATE BINARY OR CASE WHEN NEW."size" = -9223372036854775808 THEN typeof(NEW."size") <> typeof(OLD."size") ELSE 0 END) << 1));
  INSERT INTO "_concord_4_zeros" (seq, col, old, new) SELECT last_insert_rowid(), col, old_value, new_value FROM (SELECT 0 AS col, OLD."payload" AS old_value, NEW."payload" AS new_value) WHERE typeof(new_value) = 'real' AND typeof(old_value) = 'real' AND NOT new_value AND NOT old_value;
END;

-- _concord_4_zeros
CREATE TABLE "_concord_4_zeros" (seq INTEGER NOT NULL, col INTEGER NOT NULL, old, new, PRIMARY KEY (seq, col)) WITHOUT ROWID;

-- _concord_5_delete
CREATE TRIGGER "_concord_5_delete" AFTER DELETE ON "scores"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, OLD."id", 3, julianday('now'), NULL);
  INSERT OR REPLACE INTO "_concord_5_hidden" (pk, c0) SELECT OLD."id", CASE WHEN h.pk IS NULL THEN OLD."best" WHEN EXISTS (SELECT 1 FROM _concord_log WHERE tbl = 5 AND pk = OLD."id" AND op = 1) THEN h.c0 ELSE OLD."best" END FROM (SELECT 1) LEFT JOIN "_concord_5_hidden" AS h ON h.pk = OLD."id" ;
  DELETE FROM "_concord_5_logvalues" WHERE seq = -1 AND v0 IS OLD."id";
END;

-- _concord_5_hidden
CREATE TABLE "_concord_5_hidden" (pk PRIMARY KEY NOT NULL, c0) WITHOUT ROWID;

-- _concord_5_inplace_guard
CREATE INDEX "_concord_5_inplace_guard" ON "scores"("best") WHERE 0;

-- _concord_5_insert
CREATE TRIGGER "_concord_5_insert" AFTER INSERT ON "scores"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: the key column id of synced table scores takes TEXT or BLOB values, such as UUIDs; this row''s key is NULL or a number') WHERE typeof(NEW."id") NOT IN ('text', 'blob');
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, NEW."id", 1, julianday('now'), NULL);
  INSERT INTO "_concord_5_logvalues" (seq, o0, v0) VALUES (last_insert_rowid(), (SELECT o0 FROM "_concord_5_logvalues" WHERE seq = -1 AND v0 IS NEW."id"), NEW."best");
END;

-- _concord_5_key
CREATE TRIGGER "_concord_5_key" BEFORE UPDATE OF "id" ON "scores"
WHEN NEW."id" IS NOT OLD."id"
BEGIN
  SELECT RAISE(ABORT, 'concord: the primary key of synced table scores cannot change; delete the row and insert it under the new key');
END;

-- _concord_5_logvalues
CREATE TABLE "_concord_5_logvalues" (seq INTEGER PRIMARY KEY, o0, v0);

-- _concord_5_prereplace
CREATE TRIGGER "_concord_5_prereplace" BEFORE INSERT ON "scores"
WHEN 1
BEGIN
  DELETE FROM "_concord_5_logvalues" WHERE seq = -1;
  INSERT INTO "_concord_5_logvalues" (seq, v0, o0) SELECT -1, r."id", r."best" FROM "scores" AS r WHERE r."id" = NEW."id";
END;

-- _concord_5_rows
CREATE TABLE "_concord_5_rows" (
    ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
    hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER, h0 INTEGER, n0 INTEGER, seen BLOB
);

-- _concord_5_rows_kh
CREATE INDEX "_concord_5_rows_kh" ON "_concord_5_rows"(kh);

-- _concord_5_update
CREATE TRIGGER "_concord_5_update" AFTER UPDATE ON "scores"
WHEN 1
BEGIN
  INSERT INTO _concord_log (tbl, pk, op, at, mask) VALUES (5, NEW."id", 2, julianday('now'), ((NEW."best" IS NOT OLD."best" COLLATE BINARY OR CASE WHEN NEW."best" = -9223372036854775808 THEN typeof(NEW."best") <> typeof(OLD."best") ELSE 0 END) << 0));
  INSERT INTO "_concord_5_logvalues" (seq, o0, v0) VALUES (last_insert_rowid(), OLD."best", NEW."best");
END;

-- _concord_conflicts
CREATE TABLE _concord_conflicts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, tbl INTEGER NOT NULL, pk NOT NULL, col INTEGER NOT NULL,
    kind INTEGER NOT NULL, value, hlc INTEGER NOT NULL, node INTEGER NOT NULL, whlc INTEGER NOT NULL,
    wnode INTEGER NOT NULL, wvalue, at INTEGER NOT NULL, UNIQUE (tbl, pk, col, hlc, node)
);

-- _concord_credits
CREATE TABLE _concord_credits (
    upto INTEGER PRIMARY KEY, node INTEGER NOT NULL, hlc INTEGER NOT NULL
);

-- _concord_keys
CREATE TABLE _concord_keys (seq INTEGER PRIMARY KEY, tbl INTEGER NOT NULL, pk NOT NULL);

-- _concord_log
CREATE TABLE _concord_log (
    seq INTEGER PRIMARY KEY,
    tbl INTEGER NOT NULL,
    pk NOT NULL,
    op INTEGER NOT NULL,
    at REAL NOT NULL,
    mask INTEGER
);

-- _concord_nodes
CREATE TABLE _concord_nodes (idx INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE);

-- _concord_parked
CREATE TABLE _concord_parked (
    tbl INTEGER NOT NULL, pk NOT NULL, kind INTEGER NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (tbl, pk)
) WITHOUT ROWID;

-- _concord_peers
CREATE TABLE _concord_peers (node BLOB PRIMARY KEY, version INTEGER NOT NULL, at INTEGER) WITHOUT ROWID;

-- _concord_positions
CREATE TABLE _concord_positions (pos INTEGER PRIMARY KEY);

-- _concord_readers
CREATE TABLE _concord_readers (
    node BLOB PRIMARY KEY, version INTEGER NOT NULL, at INTEGER NOT NULL
) WITHOUT ROWID;

-- _concord_relayed
CREATE TABLE _concord_relayed (name TEXT PRIMARY KEY COLLATE NOCASE, declaration BLOB NOT NULL) WITHOUT ROWID;

-- _concord_relayed_rows
CREATE TABLE _concord_relayed_rows (
    name TEXT NOT NULL COLLATE NOCASE, pk NOT NULL, ver INTEGER NOT NULL, registers BLOB NOT NULL,
    PRIMARY KEY (name, pk)
) WITHOUT ROWID;

-- _concord_relayed_rows_ver
CREATE INDEX _concord_relayed_rows_ver ON _concord_relayed_rows (name, ver);

-- _concord_retired
CREATE TABLE _concord_retired (
    name TEXT NOT NULL, pk NOT NULL, cl INTEGER NOT NULL, hlc INTEGER NOT NULL, node INTEGER NOT NULL,
    clh INTEGER NOT NULL, cln INTEGER NOT NULL, shown INTEGER NOT NULL, PRIMARY KEY (name, pk)
) WITHOUT ROWID;

-- _concord_retired_counts
CREATE TABLE _concord_retired_counts (
    name TEXT NOT NULL, pk NOT NULL, col TEXT NOT NULL, node INTEGER NOT NULL, amount INTEGER NOT NULL,
    hlc INTEGER NOT NULL, PRIMARY KEY (name, pk, col, node)
) WITHOUT ROWID;

-- _concord_retired_values
CREATE TABLE _concord_retired_values (
    name TEXT NOT NULL, pk NOT NULL, col TEXT NOT NULL, value, hlc INTEGER NOT NULL, node INTEGER NOT NULL,
    counter INTEGER NOT NULL, PRIMARY KEY (name, pk, col)
) WITHOUT ROWID;

-- _concord_revived
CREATE TABLE _concord_revived (tbl INTEGER NOT NULL, pk NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;

-- _concord_state
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

-- _concord_tables
CREATE TABLE _concord_tables (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    columns TEXT NOT NULL,
    policy TEXT NOT NULL,
    merges TEXT NOT NULL DEFAULT '{}'
);

-- The union guards of items.tags where SQLite is 3.41 or later

CREATE TRIGGER "_concord_2_check_insert" BEFORE INSERT ON "items"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: counter column items.likes holds integers (SQL makes a sum past the 64-bit range a REAL)') WHERE typeof(NEW."likes") NOT IN ('integer', 'null');
  SELECT RAISE(ABORT, 'concord: union column items.tags holds a JSON array of strings and integers, as TEXT') WHERE NEW."tags" IS NOT NULL AND CASE WHEN typeof(NEW."tags") <> 'text' OR instr(CAST(NEW."tags" AS BLOB), X'00') THEN 1 WHEN json_valid(NEW."tags") AND json_type(NEW."tags") = 'array' THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
END;

CREATE TRIGGER "_concord_2_check_update" BEFORE UPDATE ON "items"
WHEN 1
BEGIN
  SELECT RAISE(ABORT, 'concord: counter column items.likes holds integers (SQL makes a sum past the 64-bit range a REAL)') WHERE typeof(NEW."likes") NOT IN ('integer', 'null');
  SELECT RAISE(ABORT, 'concord: union column items.tags holds a JSON array of strings and integers, as TEXT') WHERE NEW."tags" IS NOT NULL AND CASE WHEN typeof(NEW."tags") <> 'text' OR instr(CAST(NEW."tags" AS BLOB), X'00') THEN 1 WHEN json_valid(NEW."tags") AND json_type(NEW."tags") = 'array' THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
END;
