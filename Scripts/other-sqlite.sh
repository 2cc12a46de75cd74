#!/usr/bin/env bash
# Runs a command against another SQLite library than the system's: builds that SQLite from Debian's
# source (the library and its shell, with the system library's options that Concord uses), then runs
# the command with the library first on the loader's path and CONCORD_SQLITE3_SHELL naming the shell.
#
#   Scripts/other-sqlite.sh .build/release/concord simulate --seeds 1..30
#   Scripts/other-sqlite.sh swift test -c release --skip-build
#   Scripts/other-sqlite.sh                      # builds it and prints where it is
#
# Why: apps run Concord on whatever SQLite their platform ships (macOS and iOS ship 3.43 and later,
# Debian 13 ships 3.46), while this machine's is 3.40.1, and the SQL Concord installs differs by
# library (a union column's guard calls json_valid from 3.41 on). Before this script nothing ran it
# on a newer library, and the snapshot test failed on every one.
#
# SQLITE_VERSION picks the version (3.46.1 by default; another needs SQLITE_SHA256 too), and
# SQLITE_EXTRA_OPTIONS adds compile options after the defaults below:
# `-USQLITE_ENABLE_PREUPDATE_HOOK -USQLITE_ENABLE_SESSION` builds a library without the preupdate hook,
# as SQLite's default build is; `-DSQLITE_DQS=0` one that refuses double-quoted string literals.
# SQLITE_CFLAGS sets the optimization (-O2 by default; -O1 halves the compile). The build is kept in
# .build/sqlite-VERSION-HASH (HASH of the options) and takes about a minute on two cores. Needs tclsh
# (installed from Debian's registry when missing) and a C compiler (the Swift toolchain's clang will
# do). Exits 75 when the source or tclsh cannot be had from Debian's registry.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/Scripts/require-packages.sh"

version=${SQLITE_VERSION:-3.46.1}
case $version in
    3.46.1) sha256=${SQLITE_SHA256:-d0cdd2ece271b29e7ce18095745d892517ee26d0f270065b3a25c2e9eb11639c} ;;
    *) sha256=${SQLITE_SHA256:?"SQLITE_SHA256 must give the sha256 of sqlite3_${version}.orig.tar.xz"} ;;
esac
extra=${SQLITE_EXTRA_OPTIONS:-}
cflags=${SQLITE_CFLAGS:--O2}
out="$root/.build/sqlite-$version-$(echo "$extra $cflags" | sha256sum | cut -c1-8)"
cc=${CC:-$(command -v clang || command -v cc || true)}
[ -n "$cc" ] || { echo "other-sqlite.sh: no C compiler (clang or cc) found; set CC" >&2; exit 1; }

if [ ! -x "$out/sqlite3" ]; then
    require_packages command:tclsh:tcl command:curl:curl command:xz:xz-utils command:make:make || {
        echo "other-sqlite.sh: could not install tcl, curl, xz-utils or make from Debian's registry" >&2
        exit 75
    }
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    tarball="$work/sqlite3_$version.orig.tar.xz"
    url="http://deb.debian.org/debian/pool/main/s/sqlite3/sqlite3_$version.orig.tar.xz"
    curl -fsSL --retry 3 -o "$tarball" "$url" || { echo "other-sqlite.sh: could not download $url" >&2; exit 75; }
    echo "$sha256  $tarball" | sha256sum -c --quiet -
    tar -xJf "$tarball" -C "$work"
    (cd "$work/sqlite3-$version" && CC="$cc" ./configure >/dev/null && make sqlite3.c shell.c >/dev/null)
    mkdir -p "$out"
    # The options of Debian's library that Concord's behaviour depends on: the preupdate hook (values of
    # rows an app trigger deletes), column metadata, FTS5 and dbstat (apps' schemas and the benchmark).
    options=(-DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION
        -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_DBSTAT_VTAB
        -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_USE_URI=1 $extra)
    "$cc" $cflags -fPIC -shared -Wl,-soname,libsqlite3.so.0 "${options[@]}" \
        -o "$out/libsqlite3.so.0" "$work/sqlite3-$version/sqlite3.c" -lm -lpthread
    ln -sf libsqlite3.so.0 "$out/libsqlite3.so"
    "$cc" -O1 "${options[@]}" -I"$work/sqlite3-$version" -o "$out/sqlite3.tmp" "$work/sqlite3-$version/shell.c" \
        -L"$out" -lsqlite3 -Wl,-rpath,"$out"
    mv "$out/sqlite3.tmp" "$out/sqlite3"
    rm -rf "$work"
    trap - EXIT
fi

found=$(LD_LIBRARY_PATH="$out" "$out/sqlite3" :memory: "SELECT sqlite_version()")
[ "$found" = "$version" ] || { echo "other-sqlite.sh: built SQLite $found, not $version" >&2; exit 1; }
if [ $# -eq 0 ]; then
    echo "$out"
    exit 0
fi
export LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CONCORD_SQLITE3_SHELL="$out/sqlite3"
exec "$@"
