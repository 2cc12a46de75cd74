#ifndef CONCORD_TEST_PROCESS_H
#define CONCORD_TEST_PROCESS_H

/// Whether SQLite keeps no memory statistics in this test process: set when the test bundle loads, before any
/// test opens a connection (see TestProcess.c).
int concord_test_process_sqlite_memory_statistics_off(void);

#endif
