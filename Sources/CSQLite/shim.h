#include <sqlite3.h>

/// Turns off SQLite's memory statistics for the whole process (sqlite3_config is variadic, so Swift
/// cannot call it directly). Only before the first connection opens; afterwards SQLite refuses it.
static inline int concord_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// Whether the connection enforces foreign keys: what `PRAGMA foreign_keys` reads, without a statement
/// (sqlite3_db_config is variadic, so Swift cannot call it directly). SQLite compiles a PRAGMA to run
/// once, so a cached `PRAGMA foreign_keys` is compiled again on every use. Returns -1 on error.
static inline int concord_sqlite3_foreign_keys_enabled(sqlite3 *db) {
    int enabled = -1;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FKEY, -1, &enabled) != SQLITE_OK) return -1;
    return enabled;
}

/// Switches every trigger of the connection on (1) or off (0) and returns the setting now in force, or
/// -1 on error (sqlite3_db_config is variadic, so Swift cannot call it directly). A change expires every
/// prepared statement of the connection: they compile again on their next step.
static inline int concord_sqlite3_enable_triggers(sqlite3 *db, int enable) {
    int now = -1;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enable, &now) != SQLITE_OK) return -1;
    return now;
}
