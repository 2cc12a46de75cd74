#!/bin/sh
# Regenerates the measured sections of Papers/results.md and prints a README table.
#
# Why: issue 6 asks for published figures that anyone can reproduce with one
# command on their own machine. This builds the release CLI, runs
# `concord bench` once, writes its Markdown between the GENERATED markers of
# Papers/results.md (and the raw JSON to Papers/results.json), and prints a
# table to paste into the README. Nothing outside Papers/ is written.
#
# Usage:
#   Scripts/bench-report.sh                       # --scaling: 10k and 100k x5 runs, 1M x1 (about 8 min on 2 cores)
#   Scripts/bench-report.sh --rows 100000 --runs 3   # any `concord bench` options instead of --scaling
#   SCRATCH_PATH=/tmp/build Scripts/bench-report.sh  # build somewhere other than .build
#
# The README table is the 100,000-row section (the size the targets are set at),
# or the first size when 100,000 was not run.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH_PATH:-$root/.build}
results="$root/Papers/results.md"
[ "$#" -gt 0 ] || set -- --scaling --runs 5

echo "Building release (scratch path $scratch)..." >&2
swift build -c release --package-path "$root" --scratch-path "$scratch" >&2
concord="$scratch/release/concord"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "Running: concord bench $* --markdown" >&2
"$concord" bench "$@" --markdown --json-file "$work/results.json" > "$work/results.md"

# The machine and build the figures come from.
sqlite=$(sed -n 's/.*"sqlite" : "\([^"]*\)".*/\1/p' "$work/results.json" | head -n 1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
memory=$(awk '/^MemTotal:/ { printf "%.1f GB", $2 / 1000000 }' /proc/meminfo 2>/dev/null || true)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]; then commit="$commit (with uncommitted changes)"; fi
{
    echo "- Measured: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit"
    echo "- Command: \`Scripts/bench-report.sh $*\` (runs \`concord bench $* --markdown\`, release build)"
    echo "- Machine: ${cpu:-unknown CPU}, $(getconf _NPROCESSORS_ONLN) cores, ${memory:-unknown memory} RAM, $(uname -srm)"
    echo "- Toolchain: $(swift --version 2>/dev/null | head -n 1)"
    echo "- SQLite: $sqlite (the system library Concord links, as the plain side uses)"
} > "$work/machine.md"

# Replaces the lines between <!-- BEGIN GENERATED: name --> and <!-- END GENERATED: name --> with a file.
replace_section() {
    name=$1 file=$2
    grep -q "<!-- BEGIN GENERATED: $name -->" "$results" || { echo "no '$name' markers in $results" >&2; exit 1; }
    awk -v name="$name" -v file="$file" '
        $0 == "<!-- BEGIN GENERATED: " name " -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
        $0 == "<!-- END GENERATED: " name " -->" { skip = 0 }
        !skip { print }
    ' "$results" > "$work/next.md"
    mv "$work/next.md" "$results"
}
replace_section machine "$work/machine.md"
replace_section results "$work/results.md"
cp "$work/results.json" "$root/Papers/results.json"
echo "Updated $results and Papers/results.json" >&2

# The README snippet: the headline size's phase table and notes.
headline=$(grep -m 1 '^#### 100,000 rows' "$work/results.md" || grep -m 1 '^#### ' "$work/results.md")
echo "Concord against plain SQLite on $cpu ($(getconf _NPROCESSORS_ONLN) cores), SQLite $sqlite, ${headline#'#### '}."
echo "Regenerate with \`Scripts/bench-report.sh\`; methods and scaling in [\`Papers/results.md\`](Papers/results.md)."
awk -v heading="$headline" '$0 == heading { on = 1; next } on && /^#### / { exit } on { print }' "$work/results.md"
