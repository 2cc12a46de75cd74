#!/usr/bin/env bash
# Measures each candidate register layout and fold strategy of folds.c: instructions per row of each
# phase under callgrind (only the phase is counted), and the file's size next to plain SQLite's after
# the insert, one update round and ten, each folded and checkpointed. Prints a Markdown table.
#
#   bash Scripts/fold-designs/measure.sh [rows for instruction counts, default 20000] [rows for sizes, default 100000]
set -euo pipefail
cd "$(dirname "$0")"
rows=${1:-20000}
size_rows=${2:-100000}
source ../require-packages.sh
require_packages header:sqlite3.h:libsqlite3-dev header:valgrind/callgrind.h:valgrind
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall -o "$work/folds" folds.c -lsqlite3

count() { # design phase -> instructions per row
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$work/cg.out" \
        "$work/folds" "$1" "$2" "$rows" "$work/db" >/dev/null 2>"$work/cg.err"
    local total
    total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/cg.err")
    # A design with no such phase (trigger-stamped has no fold) counts nothing.
    awk -v t="$total" -v n="$rows" 'BEGIN { if (t == 0) printf "-"; else printf "%.1fk", t / n / 1000 }'
}
size() { "$work/folds" "$1" "$2" "$size_rows" "$work/db"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }

plain_insert=$(size plain insert-fold)
plain_update=$(size plain update-fold)
plain_ten=$(size plain ten-updates)
echo "| design | insert | fold of inserts | update | fold of updates | size after insert | after one update | after ten |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
echo "| plain SQLite | $(count plain insert) | - | $(count plain update) | - | 1.00x | 1.00x | 1.00x |"
echo "| log-only | - | $(count log-only insert-fold) | - | $(count log-only update-fold) | - | - | - |"
for design in version-rowid version-rowid-blind key-rowless hash-rowid hash-rowid-blind key-rowless-packed set-based trigger-stamped; do
    echo "| $design | $(count "$design" insert) | $(count "$design" insert-fold) | $(count "$design" update)" \
        "| $(count "$design" update-fold) | $(ratio "$(size "$design" insert-fold)" "$plain_insert")" \
        "| $(ratio "$(size "$design" update-fold)" "$plain_update") | $(ratio "$(size "$design" ten-updates)" "$plain_ten") |"
done
