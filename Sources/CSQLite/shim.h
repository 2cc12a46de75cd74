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

// SQLite's preupdate hook, looked up when first asked for: the system library declares and exports it only
// when built with SQLITE_ENABLE_PREUPDATE_HOOK (Debian's is; not every platform's). Where it is missing,
// these report so and do nothing, and Concord does without what it keeps (see DeletedRowCatcher).
#include <dlfcn.h>

typedef void (*concord_preupdate_callback)(
    void *context, sqlite3 *db, int operation, const char *database, const char *table, sqlite3_int64 key,
    sqlite3_int64 newKey);

struct concord_preupdate_functions {
    void *(*hook)(sqlite3 *, concord_preupdate_callback, void *);
    int (*old)(sqlite3 *, int, sqlite3_value **);
    int (*count)(sqlite3 *);
    int (*depth)(sqlite3 *);
};

/// The preupdate functions, or NULLs where the library lacks them; looked up once (a race between two first
/// calls writes the same pointers).
static inline const struct concord_preupdate_functions *concord_sqlite3_preupdate_functions(void) {
    static struct concord_preupdate_functions functions;
    static int looked = 0;
    if (!looked) {
        void *library = dlopen(0, RTLD_LAZY);
        if (library) {
            struct concord_preupdate_functions found;
            found.hook = (void *(*)(sqlite3 *, concord_preupdate_callback, void *))dlsym(library, "sqlite3_preupdate_hook");
            found.old = (int (*)(sqlite3 *, int, sqlite3_value **))dlsym(library, "sqlite3_preupdate_old");
            found.count = (int (*)(sqlite3 *))dlsym(library, "sqlite3_preupdate_count");
            found.depth = (int (*)(sqlite3 *))dlsym(library, "sqlite3_preupdate_depth");
            if (found.hook && found.old && found.count && found.depth) functions = found;
        }
        looked = 1;
    }
    return &functions;
}

/// Whether the library has the preupdate hook.
static inline int concord_sqlite3_preupdate_available(void) {
    return concord_sqlite3_preupdate_functions()->hook != 0;
}

/// Installs `callback` (NULL: removes it) as the connection's preupdate hook; 0 where there is none.
static inline int concord_sqlite3_preupdate_hook(sqlite3 *db, concord_preupdate_callback callback, void *context) {
    const struct concord_preupdate_functions *functions = concord_sqlite3_preupdate_functions();
    if (!functions->hook) return 0;
    functions->hook(db, callback, context);
    return 1;
}

/// Inside a preupdate callback: how many columns the changed row has, and how deep in triggers the change
/// is (0: the statement itself).
static inline int concord_sqlite3_preupdate_count(sqlite3 *db) { return concord_sqlite3_preupdate_functions()->count(db); }
static inline int concord_sqlite3_preupdate_depth(sqlite3 *db) { return concord_sqlite3_preupdate_functions()->depth(db); }

/// Inside a preupdate callback of a delete or update: column `index`'s value before the change.
static inline sqlite3_value *concord_sqlite3_preupdate_old(sqlite3 *db, int index) {
    sqlite3_value *value = 0;
    if (concord_sqlite3_preupdate_functions()->old(db, index, &value) != SQLITE_OK) return 0;
    return value;
}
