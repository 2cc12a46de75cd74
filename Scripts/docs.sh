#!/usr/bin/env bash
# Builds the DocC documentation of Concord, ConcordCore, ConcordTesting and ConcordSimulator, offline.
#
#   Scripts/docs.sh                    # build every catalog into .build/docs/<Module>.doccarchive
#   Scripts/docs.sh Concord            # build some of them
#   Scripts/docs.sh --undocumented     # list the public symbols without a doc comment of their own, then stop
#
# What it runs, per module (the DocC plugin, `swift package generate-documentation`, is a package
# dependency that cannot be fetched offline, so the script does the plugin's work with the toolchain):
#
#   swift build                                            # the modules' .swiftmodule files
#   swift-symbolgraph-extract -module-name Concord \
#       -I .build/<triple>/debug/Modules -I Sources/CSQLite -target <triple> \
#       -minimum-access-level public -output-dir .build/docs/symbol-graphs/Concord \
#       -experimental-allowed-reexported-modules=ConcordCore
#   docc convert Sources/Concord/Concord.docc \
#       --additional-symbol-graph-dir .build/docs/symbol-graphs/Concord \
#       --output-path .build/docs/Concord.doccarchive --warnings-as-errors
#
# Symbol graphs are extracted from the debug build's modules rather than emitted by a
# `swift build -Xswiftc -emit-symbol-graph` build: that needs other compiler flags, so it would
# rebuild every module (and make the next plain `swift build` or `swift test` rebuild them again),
# and only the extractor has an option to include re-exported modules in a graph. `Concord`
# re-exports `ConcordCore` (`@_exported import`), so its archive documents the core's types too:
# an app imports Concord alone and finds everything it uses on one site. `ConcordCore` also gets an
# archive of its own, for users of the semantics without SQLite.
#
# Warnings fail the build (`docc --warnings-as-errors`): a broken symbol link in a doc comment or an
# article is an error. Set DOCS_WARNINGS_AS_ERRORS=0 to build anyway and only print the warnings.
#
# Output: .build/docs/<Module>.doccarchive, each a static website (DOCS_OUTPUT changes the folder):
#
#   python3 -m http.server --directory .build/docs/Concord.doccarchive 8000
#   # then open http://localhost:8000/documentation/concord
#
# Needs: the Swift toolchain (swift, swift-symbolgraph-extract, docc; /opt/swift/usr/bin is added to
# PATH when present) and jq (for --undocumented only). Works offline.
#
# Time on this 2-core machine (Swift 6.3.1): all four catalogs in 15 s when the debug build is up to
# date (symbol graphs 1-3 s and docc 2-4 s per module), 61 s from a clean checkout (46 s of them the
# debug build); --undocumented in 2 s.
set -euo pipefail

cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"

all_modules=(Concord ConcordCore ConcordTesting ConcordSimulator)
list_undocumented=0
modules=()
for argument in "$@"; do
    case "$argument" in
        --undocumented) list_undocumented=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "error: unknown option $argument (try --help)" >&2; exit 64 ;;
        *)
            if [[ ! " ${all_modules[*]} " == *" $argument "* ]]; then
                echo "error: no catalog for '$argument'; the modules are ${all_modules[*]}" >&2
                exit 64
            fi
            modules+=("$argument") ;;
    esac
done
[[ ${#modules[@]} -eq 0 ]] && modules=("${all_modules[@]}")

output="${DOCS_OUTPUT:-.build/docs}"
graphs="$output/symbol-graphs"
strict="${DOCS_WARNINGS_AS_ERRORS:-1}"
triple="$(swift -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -n 1)"

echo "== swift build" >&2
swift build >&2
bin="$(swift build --show-bin-path)"
module_dir="$bin/Modules"
[[ -d "$module_dir" ]] || module_dir="$bin"   # toolchains before 6.0 put modules beside the products

extract() {
    local module="$1"
    local reexports=()
    [[ "$module" == Concord ]] && reexports=(-experimental-allowed-reexported-modules=ConcordCore)
    rm -rf "${graphs:?}/$module"
    mkdir -p "$graphs/$module"
    swift-symbolgraph-extract -module-name "$module" -I "$module_dir" -I Sources/CSQLite -target "$triple" \
        -minimum-access-level public -output-dir "$graphs/$module" "${reexports[@]}"
}

if [[ "$list_undocumented" == 1 ]]; then
    command -v jq >/dev/null || { echo "error: --undocumented needs jq (apt-get install jq)" >&2; exit 1; }
    # A symbol lacks a doc comment of its own when it has none, or only the one it inherits from a
    # protocol of another module (`description` from CustomStringConvertible). Members the compiler
    # synthesizes (`hashValue`, `==`) have no source and are left out. Each module is listed from its
    # own graph, without re-exports.
    for module in "${modules[@]}"; do
        rm -rf "${graphs:?}/$module"
        mkdir -p "$graphs/$module"
        swift-symbolgraph-extract -module-name "$module" -I "$module_dir" -I Sources/CSQLite -target "$triple" \
            -minimum-access-level public -output-dir "$graphs/$module"
        jq -r --arg target "$module" '
            .symbols[]
            | select(.location != null and (.identifier.precise | contains("::SYNTHESIZED::") | not))
            | select(.docComment == null or (.docComment.module // $target) != $target)
            | "\($target)\t\(.location.uri | sub("^.*/Sources/"; "Sources/")):\(.location.position.line + 1)\t"
              + "\(.kind.displayName | ascii_downcase)\t\(.pathComponents | join("."))"
              + (if .docComment != null then "\t(inherits the doc of \(.docComment.module))" else "" end)
        ' "$graphs/$module/$module.symbols.json" | sort -t$'\t' -k2,2V
    done
    rm -rf "${graphs:?}"
    exit 0
fi

status=0
for module in "${modules[@]}"; do
    echo "== $module" >&2
    extract "$module"
    flags=(--additional-symbol-graph-dir "$graphs/$module" --output-path "$output/$module.doccarchive"
           --fallback-display-name "$module" --fallback-bundle-identifier "org.concord.$module")
    [[ "$strict" != 0 ]] && flags+=(--warnings-as-errors)
    if ! docc convert "Sources/$module/$module.docc" "${flags[@]}"; then
        echo "error: docc failed for $module (DOCS_WARNINGS_AS_ERRORS=0 builds despite warnings)" >&2
        status=1
    fi
done
[[ "$status" == 0 ]] && echo "Documentation written to $output/{$(IFS=,; echo "${modules[*]}")}.doccarchive" >&2
exit "$status"
