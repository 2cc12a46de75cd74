#!/usr/bin/env bash
# Measures line coverage with the toolchain's llvm-cov, and fails when ConcordCore's is too low.
#
#   Scripts/coverage.sh          # the whole test suite
#   Scripts/coverage.sh core     # ConcordCoreTests alone: how far the core's own tests cover it
#
# It runs
#
#   swift test --enable-code-coverage --scratch-path .build/coverage [--filter '^ConcordCoreTests\.']
#   llvm-cov report <test binary> [-object <concord binary>] -instr-profile <profdata> Sources/<Target>
#
# and prints line coverage per library target, then per file of ConcordCore, least covered first.
# The profile data and the test binary are found from `swift test --show-codecov-path`: the
# profile is `default.profdata` beside the exported JSON, the test binary the `*PackageTests.xctest`
# in the same build folder. Code the CLI tests run inside `concord` child processes counts too:
# the coverage build's `concord` writes its profiles into the same folder, `swift test` merges them
# with the test binary's (counters are matched by function, so library code counts whichever
# binary ran it), and the `concord` binary is given to llvm-cov as a second object so that the
# CLI's own sources are reported.
#
# The build is instrumented, so it lives in its own scratch folder (.build/coverage) and does not
# make the next plain `swift build` or `swift test` rebuild everything; the first run builds from
# scratch (2 min 10 s on this 2-core machine), later runs only what changed. Then `core` takes
# about 15 s, the whole suite about 8 and a half minutes (the crash and lock-timeout tests).
#
# Exits 1 if ConcordCore's line coverage is below CONCORD_COVERAGE_MIN percent (default 90), and
# with the failing status of `swift test` if a test fails (the report is printed either way).
# Arguments after the scope go to `swift test`, e.g. `Scripts/coverage.sh all --skip /property`;
# COVERAGE_SCRATCH changes the scratch folder.
set -uo pipefail

cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"

scope=all
if [[ $# -gt 0 ]]; then
    case "$1" in
        core) scope=core; shift ;;
        all) shift ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) ;;
        *) echo "error: unknown scope '$1'; use 'core', 'all' or nothing (try --help)" >&2; exit 64 ;;
    esac
fi
minimum="${CONCORD_COVERAGE_MIN:-90}"
scratch="${COVERAGE_SCRATCH:-.build/coverage}"
# Targets and their source folders (the CLI's sources are in Sources/concord).
targets=(ConcordCore:ConcordCore Concord:Concord ConcordTesting:ConcordTesting ConcordSimulator:ConcordSimulator
         ConcordCLI:concord)

filter=()
[[ "$scope" == core ]] && filter=(--filter '^ConcordCoreTests\.')

echo "== swift test --enable-code-coverage --scratch-path $scratch ${filter[*]} $*" >&2
# Profiles of an earlier run would be merged into this one's; start from none.
codecov_json="$(swift test --enable-code-coverage --scratch-path "$scratch" --show-codecov-path)"
codecov_dir="$(dirname "$codecov_json")"
rm -f "$codecov_dir"/*.profraw "$codecov_dir"/default.profdata
swift test --enable-code-coverage --scratch-path "$scratch" "${filter[@]}" "$@" >&2
test_status=$?

profdata="$codecov_dir/default.profdata"
build_dir="$(dirname "$codecov_dir")"
binary="$(find "$build_dir" -maxdepth 1 -name '*PackageTests.xctest' | head -n 1)"
if [[ -d "$binary" ]]; then   # a bundle on macOS
    binary="$binary/Contents/MacOS/$(basename "$binary" .xctest)"
fi
if [[ ! -f "$profdata" || ! -f "$binary" ]]; then
    echo "error: no coverage data (looked for $profdata and the test binary in $build_dir)" >&2
    exit 1
fi
objects=("$binary")
[[ -x "$build_dir/concord" ]] && objects+=(-object "$build_dir/concord")

# The TOTAL row of `llvm-cov report` restricted to some sources: regions, missed, cover, functions,
# missed, executed, lines, missed, cover, branches, missed, cover.
total_row() { llvm-cov report "${objects[@]}" -instr-profile "$profdata" "$@" | awk '$1 == "TOTAL"'; }

echo
echo "Line coverage by target ($scope tests):"
printf '  %-18s %8s %8s %8s\n' target lines missed cover
core_cover=""
for entry in "${targets[@]}"; do
    target="${entry%%:*}"
    row="$(total_row "$PWD/Sources/${entry#*:}")"
    read -r _ _ _ _ _ _ _ lines missed cover _ <<<"$row"
    printf '  %-18s %8s %8s %8s\n' "$target" "$lines" "$missed" "$cover"
    [[ "$target" == ConcordCore ]] && core_cover="${cover%\%}"
done

echo
echo "ConcordCore by file, least covered first (lines, missed, cover):"
llvm-cov report "${objects[@]}" -instr-profile "$profdata" "$PWD/Sources/ConcordCore" \
    | awk -v root="$PWD/" 'NR > 2 && $1 != "TOTAL" && $1 !~ /^-+$/ && NF >= 13 {
          file = $1; sub(root, "", file); sub(/^Sources\/ConcordCore\//, "", file)
          printf "  %-44s %6s %6s %8s\n", file, $8, $9, $10 }' \
    | sort -k4,4n -k1,1

echo
if [[ -z "$core_cover" ]]; then
    echo "error: could not read ConcordCore's coverage" >&2
    exit 1
fi
if awk -v c="$core_cover" -v m="$minimum" 'BEGIN { exit !(c + 0 < m + 0) }'; then
    echo "error: ConcordCore's line coverage is ${core_cover}%, below the minimum of ${minimum}% (CONCORD_COVERAGE_MIN)" >&2
    exit 1
fi
echo "ConcordCore's line coverage is ${core_cover}% (minimum ${minimum}%)."
exit "$test_status"
