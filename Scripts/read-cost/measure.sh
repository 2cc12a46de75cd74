#!/usr/bin/env bash
# Instructions per point read on a file Concord syncs, against the same rows in a plain file: what any
# client (the app's own connection, the sqlite3 shell) pays to read once Concord's metadata shares
# its file. Both files hold the benchmark's table and rows; the Concord file had sync enabled before
# the rows were inserted (so capture and the fold made its registers), then was folded and
# checkpointed. reads.c reads every row once by key, after a warm-up pass, with only the second
# pass under callgrind. Prints a Markdown table.
#
#   bash Scripts/read-cost/measure.sh [rows, default 100000]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rows=${1:-100000}
source "$root/Scripts/require-packages.sh"
require_packages header:sqlite3.h:libsqlite3-dev command:sqlite3:sqlite3 header:valgrind/callgrind.h:valgrind
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall -o "$work/reads" "$root/Scripts/read-cost/reads.c" -lsqlite3
(cd "$root" && swift build -c release --product concord >/dev/null)
concord="$root/.build/release/concord"

schema="CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT, qty INTEGER, price REAL, note TEXT);"
# The benchmark's row shape: a text key shaped like a version-4 UUID, scattered as UUIDs are (its last
# field is the row number times an odd number modulo 2^48, so keys never repeat), and four columns.
insert="WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $rows - 1)
        INSERT INTO items SELECT
          printf('%08x-%04x-4%03x-%04x-%012x', (i * 2654435761) & 4294967295, (i * 40503) & 65535,
                 (i * 2246822519) & 4095, 32768 | ((i * 3266489917) & 16383), (i * 1099511627791) & 281474976710655),
          'title number ' || i, i, i * 1.5, 'a note about item ' || i FROM n;"
sqlite3 "$work/plain.sqlite" "$schema $insert"
sqlite3 "$work/concord.sqlite" "$schema"
"$concord" enable "$work/concord.sqlite" --table items >/dev/null
sqlite3 "$work/concord.sqlite" "$insert"
"$concord" export "$work/concord.sqlite" --quiet --output "$work/changes.bin"
sqlite3 "$work/concord.sqlite" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null

count() { # file -> instructions per read
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$work/cg.out" \
        "$work/reads" "$1" >"$work/read.out" 2>"$work/cg.err"
    local total n
    total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/cg.err")
    n=$(cat "$work/read.out")
    awk -v t="$total" -v n="$n" 'BEGIN { printf "%.0f", t / n }'
}
plain=$(count "$work/plain.sqlite")
synced=$(count "$work/concord.sqlite")
size() { stat -c %s "$1"; }
echo "| $rows rows | plain SQLite | Concord | ratio |"
echo "|---|---:|---:|---:|"
echo "| instructions per point read | $plain | $synced | $(awk -v a="$synced" -v b="$plain" 'BEGIN { printf "%.3fx", a / b }') |"
echo "| file size | $(size "$work/plain.sqlite") | $(size "$work/concord.sqlite") | $(awk -v a="$(size "$work/concord.sqlite")" -v b="$(size "$work/plain.sqlite")" 'BEGIN { printf "%.2fx", a / b }') |"
