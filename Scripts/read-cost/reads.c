/* Instructions per point read, as any client reads: SQLite's default VFS, one prepared
 * `SELECT ... WHERE id = ?` run in autocommit mode (each read its own transaction, as Concord's
 * benchmark reads), every key once in a scattered order, after an untimed warm-up pass.
 * Only the timed pass is counted: run under callgrind with --collect-atstart=no.
 *
 *   reads <database file>      prints the number of rows read
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

/* Every key once, in the same scattered order on every file: a fixed-seed Fisher-Yates shuffle. */
static void shuffle(char **keys, int n) {
    unsigned long long state = 20261201ULL;
    for (int i = n - 1; i > 0; i--) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int)((state >> 33) % (unsigned long long)(i + 1));
        char *t = keys[i];
        keys[i] = keys[j];
        keys[j] = t;
    }
}

static long pass(sqlite3 *db, sqlite3_stmt *read, char **keys, int n) {
    long found = 0;
    for (int i = 0; i < n; i++) {
        sqlite3_bind_text(read, 1, keys[i], -1, SQLITE_STATIC);
        while (sqlite3_step(read) == SQLITE_ROW) found++;
        if (sqlite3_reset(read) != SQLITE_OK) fail(db, "read");
    }
    return found;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: reads <database file>\n");
        return 64;
    }
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(db, "open");
    sqlite3_stmt *list;
    if (sqlite3_prepare_v2(db, "SELECT id FROM items ORDER BY id", -1, &list, NULL) != SQLITE_OK) fail(db, "keys");
    int n = 0, capacity = 1024;
    char **keys = malloc(sizeof(char *) * capacity);
    while (sqlite3_step(list) == SQLITE_ROW) {
        if (n == capacity) keys = realloc(keys, sizeof(char *) * (capacity *= 2));
        keys[n++] = strdup((const char *)sqlite3_column_text(list, 0));
    }
    sqlite3_finalize(list);
    shuffle(keys, n);
    sqlite3_stmt *read;
    const char *sql = "SELECT id, title, qty, price, note FROM items WHERE id = ?";
    if (sqlite3_prepare_v2(db, sql, -1, &read, NULL) != SQLITE_OK) fail(db, "prepare");
    long warm = pass(db, read, keys, n);
    CALLGRIND_TOGGLE_COLLECT;
    long found = pass(db, read, keys, n);
    CALLGRIND_TOGGLE_COLLECT;
    if (found != n || warm != n) {
        fprintf(stderr, "read %ld of %d rows\n", found, n);
        return 1;
    }
    printf("%d\n", n);
    sqlite3_finalize(read);
    sqlite3_close(db);
    return 0;
}
