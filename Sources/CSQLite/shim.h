#include <sqlite3.h>

/// Turns off SQLite's memory statistics for the whole process (sqlite3_config is variadic, so Swift
/// cannot call it directly). Only before the first connection opens; afterwards SQLite refuses it.
static inline int concord_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
