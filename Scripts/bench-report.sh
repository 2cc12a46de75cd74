#!/bin/sh
# Regenerates the measured sections of Papers/results.md, draws the figures, and prints a README table.
#
# Why: issue 6 asks for published figures that anyone can reproduce with one
# command on their own machine. This builds the release CLI, runs
# `concord bench` once, writes its Markdown between the GENERATED markers of
# Papers/results.md (and the raw JSON to Papers/results.json), and prints a
# table to paste into the README. Then (issue 16) it runs every scenario
# family of Simulations/ over CI's seeds for the simulator's coverage (Papers/coverage.json)
# and draws Papers/figure-*.svg with Scripts/plot-figures.py, using matplotlib
# from PyPI installed into a virtual environment under the scratch path, at the
# versions Scripts/plot-requirements.txt pins. Nothing outside Papers/ and the
# scratch path is written.
#
# Usage:
#   Scripts/bench-report.sh                       # --scaling: 10k and 100k x5 runs, 1M x1 (about 8 min on 2 cores)
#   Scripts/bench-report.sh --rows 100000 --runs 3   # any `concord bench` options instead of --scaling
#   Scripts/bench-report.sh --coverage            # no benchmark: rerun the simulations for coverage, redraw
#   Scripts/bench-report.sh --redraw              # no build, no measuring: redraw the figures from Papers/*.json
#   SCRATCH_PATH=/tmp/build Scripts/bench-report.sh  # build somewhere other than .build
#
# The README table is the 100,000-row section (the size the targets are set at),
# or the first size when 100,000 was not run.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH_PATH:-$root/.build}
results="$root/Papers/results.md"

# Draws Papers/figure-*.svg; with an argument, first summarises that `concord simulate --json` output
# into Papers/coverage.json.
draw_figures() {
    venv="$scratch/plot-venv"
    if ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null \
        || ! "$venv/bin/pip" freeze 2>/dev/null | grep -qx 'matplotlib==3.11.2'; then
        echo "Installing matplotlib into $venv..." >&2
        python3 -m venv "$venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$root/Scripts/plot-requirements.txt" >&2
    fi
    if [ "$#" -gt 0 ]; then
        "$venv/bin/python" "$root/Scripts/plot-figures.py" --papers "$root/Papers" \
            --simulation "$1" --simulation-command "$2"
    else
        "$venv/bin/python" "$root/Scripts/plot-figures.py" --papers "$root/Papers"
    fi
}

# Runs every scenario family of Simulations/ over seeds 1..64, the sweep .ci/run makes (the counts depend on the
# seeds alone, not on the machine or --jobs), in the scratch directory so a failure's reproducer lands there, then
# summarises their coverage and draws every figure.
simulate_and_draw() {
    jobs=$(getconf _NPROCESSORS_ONLN)
    echo "Running: concord simulate Simulations/*.json --seeds 1..64 --jobs $jobs --json" >&2
    (cd "$work" && "$concord" simulate "$root"/Simulations/*.json --seeds 1..64 --jobs "$jobs" --json --quiet \
        > "$work/simulation.json")
    draw_figures "$work/simulation.json" \
        "concord simulate Simulations/*.json --seeds 1..64 --json (release build, commit $commit)"
}

if [ "${1:-}" = "--redraw" ]; then
    draw_figures
    exit 0
fi
[ "$#" -gt 0 ] || set -- --scaling --runs 5

echo "Building release (scratch path $scratch)..." >&2
swift build -c release --package-path "$root" --scratch-path "$scratch" >&2
concord="$scratch/release/concord"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]; then commit="$commit (with uncommitted changes)"; fi

if [ "$1" = "--coverage" ]; then
    simulate_and_draw
    exit 0
fi

echo "Running: concord bench $* --markdown" >&2
"$concord" bench "$@" --markdown --json-file "$work/results.json" > "$work/results.md"

# The machine and build the figures come from.
sqlite=$(sed -n 's/.*"sqlite" : "\([^"]*\)".*/\1/p' "$work/results.json" | head -n 1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
memory=$(awk '/^MemTotal:/ { printf "%.1f GB", $2 / 1000000 }' /proc/meminfo 2>/dev/null || true)
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
simulate_and_draw

# The README snippet: the headline size's phase table and notes.
headline=$(grep -m 1 '^#### 100,000 rows' "$work/results.md" || grep -m 1 '^#### ' "$work/results.md")
echo "Concord against plain SQLite on $cpu ($(getconf _NPROCESSORS_ONLN) cores), SQLite $sqlite, ${headline#'#### '}."
echo "Regenerate with \`Scripts/bench-report.sh\`; methods and scaling in [\`Papers/results.md\`](Papers/results.md)."
awk -v heading="$headline" '$0 == heading { on = 1; next } on && /^#### / { exit } on { print }' "$work/results.md"
