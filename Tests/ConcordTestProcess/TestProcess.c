// The test process's SQLite set-up, made when the test bundle loads, before Swift Testing runs any test.
//
// Why: with memory statistics on (SQLite's default), every allocation SQLite makes locks one process-wide
// mutex to count it. Tests run two at a time, each opening its own databases, and the two threads then
// take turns on that lock: the injected-bug suite ran 71 s on two cores with it (128 s of CPU, a fifth in the
// kernel waking waiters) and 24 s without it (46 s of CPU). The `concord` tool turns the statistics off
// first thing in main (`Database.disableMemoryStatistics()`); a test bundle has no main of its own, and
// sqlite3_config only takes effect before the first connection opens, so it is done here. Nothing in the
// tests reads SQLite's memory statistics.
//
// SIGPIPE is ignored for the same reason of having no main: a child a test writes to (the `sqlite3`
// shell, the `concord` tool) that exits before reading its input would otherwise kill the whole test
// process, ending every test without a report (a shell refusing to start beside another SQLite library
// did). Ignored, the write fails, and the test that made it fails saying so.
#include "ConcordTestProcess.h"
#include <signal.h>
#include <sqlite3.h>

static int memory_statistics_off = 0;

__attribute__((constructor, used)) static void concord_test_process_set_up_sqlite(void) {
    memory_statistics_off = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
    signal(SIGPIPE, SIG_IGN);
}

int concord_test_process_sqlite_memory_statistics_off(void) { return memory_statistics_off; }
