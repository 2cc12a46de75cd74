#!/usr/bin/env bash
# A longer local run of the crash and concurrency harnesses than CI's test run makes.
#
#   Scripts/crash-and-concurrency.sh             # 1000 kills, 8 writers x 600 transactions, 1 round
#   ROUNDS=5 Scripts/crash-and-concurrency.sh    # five rounds, each with fresh seeds
#   CONCORD_CRASH_SEED=20260101 CONCORD_CRASH_TRIALS=102 Scripts/crash-and-concurrency.sh   # CI's crash run
#
# The tests read these (CI's values in brackets):
#   CONCORD_CRASH_TRIALS         kill -9 trials over concord import, sync and fold   [102]
#   CONCORD_CRASH_SEED           seed of the crash data and kill moments             [20260101]
#   CONCORD_CRASH_LANES          crash trials running at once                        [3]
#   CONCORD_WRITERS              sqlite3 writer processes on one file (at least 4)   [4]
#   CONCORD_WRITER_TRANSACTIONS  transactions per writer                             [80]
#   CONCORD_WRITER_TIMEOUT_MS    how long a writer waits for the lock (.timeout)     [5000]
#                                (SQLite's rollback-journal locks are not fair: eight writers and a
#                                reader that never stops starve some writer past 5 s even without
#                                Concord, so this run gives them 30 s)
#   CONCORD_CONCURRENCY_SEED     seed of the writers' scripts                        [20260202]
#   CONCORD_HARNESS_KEEP         folder that receives the files of a failed crash trial [unset]
# Every failure message names its seed and trial; run again with that seed to see it again
# (the data and the kill moments repeat; the timing of processes does not).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"

rounds=${ROUNDS:-1}
export CONCORD_CRASH_TRIALS=${CONCORD_CRASH_TRIALS:-1000}
export CONCORD_WRITERS=${CONCORD_WRITERS:-8}
export CONCORD_WRITER_TRANSACTIONS=${CONCORD_WRITER_TRANSACTIONS:-600}
export CONCORD_WRITER_TIMEOUT_MS=${CONCORD_WRITER_TIMEOUT_MS:-30000}
export CONCORD_HARNESS_KEEP=${CONCORD_HARNESS_KEEP:-$PWD/.build/harness-failures}
fixed_crash_seed=${CONCORD_CRASH_SEED:-}
fixed_concurrency_seed=${CONCORD_CONCURRENCY_SEED:-}

swift build --build-tests
status=0
for round in $(seq 1 "$rounds"); do
    export CONCORD_CRASH_SEED=${fixed_crash_seed:-$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM ))}
    export CONCORD_CONCURRENCY_SEED=${fixed_concurrency_seed:-$(( (RANDOM << 30) ^ (RANDOM << 15) ^ RANDOM ))}
    echo "== round $round of $rounds: CONCORD_CRASH_SEED=$CONCORD_CRASH_SEED CONCORD_CRASH_TRIALS=$CONCORD_CRASH_TRIALS" \
         "CONCORD_CONCURRENCY_SEED=$CONCORD_CONCURRENCY_SEED CONCORD_WRITERS=$CONCORD_WRITERS" \
         "CONCORD_WRITER_TRANSACTIONS=$CONCORD_WRITER_TRANSACTIONS CONCORD_WRITER_TIMEOUT_MS=$CONCORD_WRITER_TIMEOUT_MS"
    swift test --skip-build --filter 'CrashTests|ConcurrentWriterTests|LockTimeoutTests' || status=1
done
if [ "$status" -ne 0 ]; then
    echo "failed; files of failed crash trials, if any, are in $CONCORD_HARNESS_KEEP"
fi
exit "$status"
