/*
 * Instruction counts of candidate register layouts and fold strategies, for Papers/results.md
 * ("Designs for the whole cost of a write"). Not part of the package: a measuring harness that
 * reaches SQLite's C API directly, so each design is compared without Swift's costs around it.
 *
 * Usage: folds <design> <phase> <rows> <file>
 *   design: version-rowid | key-rowless | hash-rowid | key-rowless-packed | set-based | trigger-stamped,
 *           hash-rowid-blind (an update's registers written by one UPDATE, without reading them first:
 *           a local write of last-writer-wins columns wins whatever they hold), version-rowid-blind (the same
 *           on today's layout: the UPDATE moves the row to its new rowid),
 *           or log-only (the fold's floor: it reads, stamps and trims the log, and writes no register)
 *   phase:  insert | insert-fold | update | update-fold | ten-updates (nothing counted; for the size)
 * The phase named is the only part counted (run under valgrind --tool=callgrind --collect-atstart=no);
 * everything before it runs uncounted. Prints the file's size after a checkpoint once the phase ends.
 *
 * The table and statements are the benchmark's (Sources/ConcordBenchmark/BenchmarkWorkload.swift):
 * a UUID text key and four columns; the update sets qty = qty + 1 on every row, row by row.
 * Every design captures writes the same way (a log row per write with its time and change mask),
 * except trigger-stamped, which writes the registers from the trigger itself.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

static sqlite3 *db;
static const char *design;

static void fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void exec(const char *sql) {
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
        fprintf(stderr, "%s\n-- in: %s\n", error, sql);
        exit(1);
    }
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) fail(sql);
    return statement;
}

static void done(sqlite3_stmt *statement) {
    if (sqlite3_step(statement) != SQLITE_DONE) fail(sqlite3_sql(statement));
    sqlite3_reset(statement);
}

static int is(const char *name) { return strcmp(design, name) == 0; }

/* FNV-1a of the key's bytes: the key hash the version-rowid layout indexes (Concord's `kh`). */
static int64_t key_hash(const unsigned char *bytes, int count) {
    uint64_t value = 0xcbf29ce484222325ULL;
    for (int i = 0; i < count; i++) value = (value ^ bytes[i]) * 0x100000001b3ULL;
    return (int64_t)value;
}

static void uuid(unsigned index, char out[37]) {
    uint64_t state = 0x9E3779B97F4A7C15ULL * (index + 1);
    static const char digits[] = "0123456789abcdef";
    int at = 0;
    for (int i = 0; i < 16; i++) {
        state ^= state >> 31;
        state *= 0xBF58476D1CE4E5B9ULL;
        unsigned byte = (unsigned)(state >> 56);
        if (i == 4 || i == 6 || i == 8 || i == 10) out[at++] = '-';
        out[at++] = digits[byte >> 4];
        out[at++] = digits[byte & 15];
    }
    out[at] = 0;
}

static const char *user_schema =
    "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT, qty INTEGER, price REAL, note TEXT);";

/* Capture as Concord does it: a log row per write, its time read by julianday('now'). */
static const char *log_capture =
    "CREATE TABLE log (seq INTEGER PRIMARY KEY, pk NOT NULL, op INTEGER NOT NULL, at REAL NOT NULL, mask INTEGER);"
    "CREATE TRIGGER items_insert AFTER INSERT ON items BEGIN "
    "  INSERT INTO log (pk, op, at, mask) VALUES (NEW.id, 1, julianday('now'), NULL); END;"
    "CREATE TRIGGER items_update AFTER UPDATE ON items BEGIN "
    "  INSERT INTO log (pk, op, at, mask) VALUES (NEW.id, 2, julianday('now'), "
    "    ((NEW.title IS NOT OLD.title) << 0) | ((NEW.qty IS NOT OLD.qty) << 1) | "
    "    ((NEW.price IS NOT OLD.price) << 2) | ((NEW.note IS NOT OLD.note) << 3)); END;";

static const char *stamps = "cl INTEGER NOT NULL, hlc INTEGER NOT NULL, node INTEGER NOT NULL, "
                            "h0 INTEGER, n0 INTEGER, h1 INTEGER, n1 INTEGER, h2 INTEGER, n2 INTEGER, "
                            "h3 INTEGER, n3 INTEGER";

static void create_metadata(void) {
    char sql[2048];
    exec("CREATE TABLE state (id INTEGER PRIMARY KEY, hlc INTEGER NOT NULL, version INTEGER NOT NULL);"
         "INSERT INTO state VALUES (0, 0, 0);");
    if (is("version-rowid") || is("version-rowid-blind")) {
        snprintf(sql, sizeof sql,
                 "CREATE TABLE reg (ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, %s);"
                 "CREATE INDEX reg_kh ON reg(kh);",
                 stamps);
    } else if (is("hash-rowid") || is("hash-rowid-blind")) {
        snprintf(sql, sizeof sql,
                 "CREATE TABLE reg (kh INTEGER PRIMARY KEY, pk NOT NULL, ver INTEGER NOT NULL, %s);"
                 "CREATE INDEX reg_ver ON reg(ver);",
                 stamps);
    } else {
        snprintf(sql, sizeof sql,
                 "CREATE TABLE reg (pk PRIMARY KEY NOT NULL, ver INTEGER NOT NULL, %s) WITHOUT ROWID;"
                 "CREATE INDEX reg_ver ON reg(ver);",
                 stamps);
    }
    exec(sql);
    if (is("trigger-stamped")) {
        /* The clock kept in SQL: each write takes max(last + 1, now << 16); the register written at once. */
        exec("CREATE TRIGGER items_insert AFTER INSERT ON items BEGIN "
             "  UPDATE state SET hlc = max(hlc + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) << 16), "
             "    version = version + 1; "
             "  INSERT INTO reg (pk, ver, cl, hlc, node, h0, n0, h1, n1, h2, n2, h3, n3) "
             "    SELECT NEW.id, version, 1, hlc, 0, hlc, 0, hlc, 0, hlc, 0, hlc, 0 FROM state WHERE true "
             "  ON CONFLICT (pk) DO UPDATE SET ver = excluded.ver, cl = cl + (cl % 2 = 0), hlc = excluded.hlc, "
             "    h0 = excluded.h0, n0 = 0, h1 = excluded.h1, n1 = 0, h2 = excluded.h2, n2 = 0, h3 = excluded.h3, n3 = 0; "
             "END;"
             "CREATE TRIGGER items_update AFTER UPDATE ON items BEGIN "
             "  UPDATE state SET hlc = max(hlc + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) << 16), "
             "    version = version + 1; "
             "  UPDATE reg SET (ver, hlc, h0, n0, h1, n1, h2, n2, h3, n3) = (SELECT s.version, s.hlc, "
             "    CASE WHEN NEW.title IS NOT OLD.title THEN s.hlc ELSE h0 END, CASE WHEN NEW.title IS NOT OLD.title THEN 0 ELSE n0 END, "
             "    CASE WHEN NEW.qty IS NOT OLD.qty THEN s.hlc ELSE h1 END, CASE WHEN NEW.qty IS NOT OLD.qty THEN 0 ELSE n1 END, "
             "    CASE WHEN NEW.price IS NOT OLD.price THEN s.hlc ELSE h2 END, CASE WHEN NEW.price IS NOT OLD.price THEN 0 ELSE n2 END, "
             "    CASE WHEN NEW.note IS NOT OLD.note THEN s.hlc ELSE h3 END, CASE WHEN NEW.note IS NOT OLD.note THEN 0 ELSE n3 END "
             "    FROM state AS s) WHERE pk = NEW.id; "
             "END;");
    } else {
        exec(log_capture);
    }
}

/* The clock: a stamp is max(last + 1, physical << 16), physical in Unix milliseconds. */
static int64_t tick(int64_t last, double julian) {
    int64_t physical = (int64_t)((julian - 2440587.5) * 86400000.0) << 16;
    return physical > last ? physical : last + 1;
}

/* Row by row, as Concord's fold does today: read the log in order, read the row's registers, write
 * them back at a new version, trim the log. Column stamps equal to the row's stamp are stored as NULL
 * by key-rowless-packed (the row stamp stands in for them). */
static void fold_row_by_row(void) {
    int packed = is("key-rowless-packed");
    sqlite3_stmt *state = prepare("SELECT hlc, version FROM state");
    if (sqlite3_step(state) != SQLITE_ROW) fail("state");
    int64_t hlc = sqlite3_column_int64(state, 0), version = sqlite3_column_int64(state, 1);
    sqlite3_finalize(state);
    sqlite3_stmt *logged = prepare("SELECT seq, pk, op, at, mask FROM log WHERE seq > ? ORDER BY seq LIMIT 1000");
    sqlite3_stmt *trim = prepare("DELETE FROM log WHERE seq <= ?");
    sqlite3_stmt *load, *remove = NULL, *store, *update = NULL;
    const char *columns = "cl, hlc, node, h0, n0, h1, n1, h2, n2, h3, n3";
    char sql[512];
    sqlite3_stmt *blind = NULL;
    if (is("hash-rowid-blind") || is("version-rowid-blind"))
        blind = prepare("UPDATE reg SET ver = ?1, hlc = ?2, "
                        "h0 = CASE WHEN ?3 & 1 THEN ?2 ELSE h0 END, n0 = CASE WHEN ?3 & 1 THEN 0 ELSE n0 END, "
                        "h1 = CASE WHEN ?3 & 2 THEN ?2 ELSE h1 END, n1 = CASE WHEN ?3 & 2 THEN 0 ELSE n1 END, "
                        "h2 = CASE WHEN ?3 & 4 THEN ?2 ELSE h2 END, n2 = CASE WHEN ?3 & 4 THEN 0 ELSE n2 END, "
                        "h3 = CASE WHEN ?3 & 8 THEN ?2 ELSE h3 END, n3 = CASE WHEN ?3 & 8 THEN 0 ELSE n3 END "
                        "WHERE kh = ?4 AND pk = ?5");
    /* The rowid layouts find a row by its key's hash, the others by the key itself. */
    int hashed = is("version-rowid") || is("version-rowid-blind") || is("hash-rowid") || is("hash-rowid-blind");
    const char *by = hashed ? "kh" : "pk";
    snprintf(sql, sizeof sql, "SELECT ver, pk, %s FROM reg WHERE %s = ?", columns, by);
    load = prepare(sql);
    store = prepare(hashed ? "INSERT INTO reg (ver, kh, pk, cl, hlc, node, h0, n0, h1, n1, h2, n2, h3, n3) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                           : "INSERT INTO reg (ver, pk, cl, hlc, node, h0, n0, h1, n1, h2, n2, h3, n3) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (is("version-rowid") || is("version-rowid-blind")) {
        remove = prepare("DELETE FROM reg WHERE ver = ?");
    } else {
        snprintf(sql, sizeof sql,
                 "UPDATE reg SET ver = ?, cl = ?, hlc = ?, node = ?, h0 = ?, n0 = ?, h1 = ?, n1 = ?, "
                 "h2 = ?, n2 = ?, h3 = ?, n3 = ? WHERE %s = ?",
                 by);
        update = prepare(sql);
    }
    int64_t last = 0;
    for (;;) {
        sqlite3_bind_int64(logged, 1, last);
        int batch = 0;
        while (sqlite3_step(logged) == SQLITE_ROW) {
            batch++;
            last = sqlite3_column_int64(logged, 0);
            const unsigned char *key = sqlite3_column_text(logged, 1);
            int key_length = sqlite3_column_bytes(logged, 1);
            int op = sqlite3_column_int(logged, 2);
            int64_t mask = sqlite3_column_type(logged, 4) == SQLITE_NULL ? 15 : sqlite3_column_int64(logged, 4);
            hlc = tick(hlc, sqlite3_column_double(logged, 3));
            version++;
            int64_t hash = key_hash(key, key_length);
            if (is("log-only")) continue;
            if (blind && op == 2) {
                sqlite3_bind_int64(blind, 1, version);
                sqlite3_bind_int64(blind, 2, hlc);
                sqlite3_bind_int64(blind, 3, mask);
                sqlite3_bind_int64(blind, 4, hash);
                sqlite3_bind_text(blind, 5, (const char *)key, key_length, SQLITE_STATIC);
                done(blind);
                if (sqlite3_changes(db) == 1) continue;
            }
            /* Registers: cl, hlc, node, then (h, n) per column; NULL h means "the row's stamp". */
            int64_t cl = 1, row_hlc = hlc, h[4], n[4];
            int has_h[4] = {0, 0, 0, 0};
            int found = 0;
            int64_t old_version = 0;
            if (is("version-rowid") || is("hash-rowid") || blind) sqlite3_bind_int64(load, 1, hash);
            else sqlite3_bind_text(load, 1, (const char *)key, key_length, SQLITE_STATIC);
            while (sqlite3_step(load) == SQLITE_ROW) {
                const unsigned char *stored = sqlite3_column_text(load, 1);
                if (sqlite3_column_bytes(load, 1) != key_length || memcmp(stored, key, key_length) != 0) continue;
                found = 1;
                old_version = sqlite3_column_int64(load, 0);
                cl = sqlite3_column_int64(load, 2);
                int64_t old_row = sqlite3_column_int64(load, 3);
                for (int c = 0; c < 4; c++) {
                    has_h[c] = sqlite3_column_type(load, 5 + 2 * c) != SQLITE_NULL;
                    h[c] = has_h[c] ? sqlite3_column_int64(load, 5 + 2 * c) : old_row;
                    n[c] = sqlite3_column_int64(load, 6 + 2 * c);
                    has_h[c] = 1;
                }
                break;
            }
            sqlite3_reset(load);
            if (op == 1 && cl % 2 == 0) cl++;
            for (int c = 0; c < 4; c++) {
                if (!found || (mask >> c) & 1) {
                    h[c] = hlc;
                    n[c] = 0;
                    has_h[c] = 1;
                }
            }
            /* Bind the registers to `s` from parameter `at` on; packed leaves stamps equal to the row's NULL. */
#define BIND_REGISTERS(s, at)                                                                   \
    do {                                                                                        \
        sqlite3_bind_int64(s, (at), cl);                                                        \
        sqlite3_bind_int64(s, (at) + 1, row_hlc);                                               \
        sqlite3_bind_int64(s, (at) + 2, 0);                                                     \
        for (int c = 0; c < 4; c++) {                                                           \
            if (packed && h[c] == row_hlc) sqlite3_bind_null(s, (at) + 3 + 2 * c);              \
            else sqlite3_bind_int64(s, (at) + 3 + 2 * c, h[c]);                                 \
            if (packed && n[c] == 0) sqlite3_bind_null(s, (at) + 4 + 2 * c);                   \
            else sqlite3_bind_int64(s, (at) + 4 + 2 * c, n[c]);                                 \
        }                                                                                       \
    } while (0)
            if (is("version-rowid") || is("version-rowid-blind")) {
                if (found) {
                    sqlite3_bind_int64(remove, 1, old_version);
                    done(remove);
                }
                sqlite3_bind_int64(store, 1, version);
                sqlite3_bind_int64(store, 2, hash);
                sqlite3_bind_text(store, 3, (const char *)key, key_length, SQLITE_STATIC);
                BIND_REGISTERS(store, 4);
                done(store);
            } else if (found) {
                sqlite3_bind_int64(update, 1, version);
                BIND_REGISTERS(update, 2);
                if (is("hash-rowid") || is("hash-rowid-blind")) sqlite3_bind_int64(update, 13, hash);
                else sqlite3_bind_text(update, 13, (const char *)key, key_length, SQLITE_STATIC);
                done(update);
            } else if (is("hash-rowid") || is("hash-rowid-blind")) {
                sqlite3_bind_int64(store, 1, version);
                sqlite3_bind_int64(store, 2, hash);
                sqlite3_bind_text(store, 3, (const char *)key, key_length, SQLITE_STATIC);
                BIND_REGISTERS(store, 4);
                done(store);
            } else {
                sqlite3_bind_int64(store, 1, version);
                sqlite3_bind_text(store, 2, (const char *)key, key_length, SQLITE_STATIC);
                BIND_REGISTERS(store, 3);
                done(store);
            }
        }
        sqlite3_reset(logged);
        if (batch == 0) break;
        sqlite3_bind_int64(trim, 1, last);
        done(trim);
    }
    sqlite3_stmt *save = prepare("UPDATE state SET hlc = ?, version = ?");
    sqlite3_bind_int64(save, 1, hlc);
    sqlite3_bind_int64(save, 2, version);
    done(save);
    sqlite3_finalize(save);
    sqlite3_finalize(logged);
    sqlite3_finalize(trim);
    sqlite3_finalize(load);
    sqlite3_finalize(store);
    if (remove) sqlite3_finalize(remove);
    if (update) sqlite3_finalize(update);
    if (blind) sqlite3_finalize(blind);
}

/* One statement folds the whole log. Stamps come from the closed form of the clock over the log in
 * order: stamp_i = i + max(last, max over j <= i of (physical_j - j)); versions follow the log order.
 * Rows written twice in one fold take their newest write per column (the GROUP BY). */
static void fold_set_based(void) {
    exec("WITH s AS (SELECT hlc AS last, version AS base FROM state), "
         "o AS (SELECT seq, pk, op, mask, row_number() OVER (ORDER BY seq) AS i, "
         "  (CAST((at - 2440587.5) * 86400000 AS INTEGER) << 16) - row_number() OVER (ORDER BY seq) AS p FROM log), "
         "t AS (SELECT seq, pk, op, ifnull(mask, 15) AS mask, i, i + max((SELECT last FROM s), "
         "  max(p) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING)) AS stamp FROM o), "
         "g AS (SELECT pk, max(i) AS i, max(stamp) AS stamp, max(op = 1) AS inserted, "
         "  max(CASE WHEN mask & 1 THEN stamp END) AS s0, max(CASE WHEN mask & 2 THEN stamp END) AS s1, "
         "  max(CASE WHEN mask & 4 THEN stamp END) AS s2, max(CASE WHEN mask & 8 THEN stamp END) AS s3 "
         "  FROM t GROUP BY pk) "
         "INSERT INTO reg (pk, ver, cl, hlc, node, h0, n0, h1, n1, h2, n2, h3, n3) "
         "SELECT pk, (SELECT base FROM s) + i, 1, stamp, 0, s0, 0, s1, 0, s2, 0, s3, 0 FROM g WHERE true "
         "ON CONFLICT (pk) DO UPDATE SET ver = excluded.ver, hlc = excluded.hlc, "
         "  h0 = ifnull(excluded.h0, h0), h1 = ifnull(excluded.h1, h1), "
         "  h2 = ifnull(excluded.h2, h2), h3 = ifnull(excluded.h3, h3);"
         "UPDATE state SET hlc = (SELECT max(hlc) FROM reg), version = (SELECT max(ver) FROM reg);"
         "DELETE FROM log;");
}

static void fold(void) {
    if (is("trigger-stamped")) return;
    if (is("set-based")) fold_set_based();
    else fold_row_by_row();
}

static const char *phase;
static unsigned rows;
static int plain;
static sqlite3_stmt *insert, *update;

static void insert_rows(void) {
    exec("BEGIN");
    for (unsigned index = 0; index < rows; index++) {
        char key[37], title[64], note[64];
        uuid(index, key);
        snprintf(title, sizeof title, "title number %u", index);
        snprintf(note, sizeof note, "a note about item %u", index);
        sqlite3_bind_text(insert, 1, key, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, title, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 3, index);
        sqlite3_bind_double(insert, 4, index * 1.5);
        sqlite3_bind_text(insert, 5, note, -1, SQLITE_TRANSIENT);
        done(insert);
    }
    exec("COMMIT");
}

static void update_rows(void) {
    exec("BEGIN");
    for (unsigned index = 0; index < rows; index++) {
        char key[37];
        uuid(index, key);
        sqlite3_bind_text(update, 1, key, -1, SQLITE_TRANSIENT);
        done(update);
    }
    exec("COMMIT");
}

static void fold_in_transaction(void) {
    if (plain) return;
    exec("BEGIN IMMEDIATE");
    fold();
    exec("COMMIT");
}

/* Runs `body`, counting its instructions when it is the phase measured. */
static void run_phase(const char *name, void (*body)(void)) {
    int counting = strcmp(phase, name) == 0;
    if (counting) CALLGRIND_TOGGLE_COLLECT;
    body();
    if (counting) CALLGRIND_TOGGLE_COLLECT;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: folds <design> <phase> <rows> <file>\n");
        return 64;
    }
    design = argv[1];
    phase = argv[2];
    rows = (unsigned)atoi(argv[3]);
    remove(argv[4]);
    char wal[1024];
    snprintf(wal, sizeof wal, "%s-wal", argv[4]);
    remove(wal);
    if (sqlite3_open(argv[4], &db) != SQLITE_OK) fail("open");
    exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;");
    exec(user_schema);
    plain = strcmp(design, "plain") == 0;
    if (!plain) create_metadata();
    insert = prepare("INSERT INTO items (id, title, qty, price, note) VALUES (?, ?, ?, ?, ?)");
    update = prepare("UPDATE items SET qty = qty + 1 WHERE id = ?");
    run_phase("insert", insert_rows);
    run_phase("insert-fold", fold_in_transaction);
    int rounds = strcmp(phase, "ten-updates") == 0 ? 10 : strncmp(phase, "update", 6) == 0 ? 1 : 0;
    for (int round = 0; round < rounds; round++) {
        run_phase("update", update_rows);
        run_phase("update-fold", fold_in_transaction);
    }
    sqlite3_finalize(insert);
    sqlite3_finalize(update);
    exec("PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite3_stmt *size = prepare("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size");
    if (sqlite3_step(size) != SQLITE_ROW) fail("size");
    printf("%lld\n", (long long)sqlite3_column_int64(size, 0));
    sqlite3_finalize(size);
    sqlite3_close(db);
    return 0;
}
