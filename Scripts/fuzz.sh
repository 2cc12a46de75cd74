#!/bin/sh
# Runs the hostile-changeset fuzzer over a million inputs in a release build.
#
# Why: a peer can send anything, so every changeset a replica is given must be
# refused with a clear error that leaves the database file byte-identical, or
# be merged so that the replica stays consistent (and applying it again
# changes nothing), without a trap or a hang. CI runs 10,000 inputs; this runs
# a million, which is where the rarer edits (an eleven-byte varint in a
# counter's contribution list, a splice that lands on a record boundary) show
# up. See `concord fuzz --help` for what is checked and how inputs are made.
#
# Usage:
#   Scripts/fuzz.sh                                  # 1,000,000 inputs, seed 1, one worker per processor
#   SEED=7 INPUTS=100000 Scripts/fuzz.sh             # another seed or count
#   Scripts/fuzz.sh --keep-going --json              # other `concord fuzz` options are passed on
#   SCRATCH_PATH=/tmp/fuzz-release Scripts/fuzz.sh   # build somewhere other than .build
#
# The exact commands (with the defaults):
#   swift build -c release --scratch-path .build
#   .build/release/concord fuzz --inputs 1000000 --seed 1 "$@"
# run from the current directory, where any reproducer (concord-fuzz-SEED-INDEX.bin
# or .json, with the base replica as concord-fuzz-SEED-INDEX.sqlite) is written.
# Exit status: 0 when every input kept the promise, 1 otherwise (see the messages).
#
# How long: on this machine (AMD EPYC, 2 cores, SQLite 3.40.1) a release worker
# spends about 3.8 ms of CPU per input (an accepted input is applied twice,
# checked, sometimes written on by the app and checked again, then the replica
# is restored and reopened; a refusal costs a few hundred microseconds), so two
# workers on two free cores run about 500 inputs a second and a million inputs
# take about 35 minutes. Measured with other jobs on the machine (load average
# 6-8): 100,000 inputs in 537 s (186/s); 10,000 in 62 s with one worker. The
# build takes 2-3 minutes. Without --keep-going the run stops at the first
# failure (the bugs found so far are in Tests/ConcordTests/Fixtures/Fuzz/README.md).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH_PATH:-$root/.build}
inputs=${INPUTS:-1000000}
seed=${SEED:-1}

echo "Building release (scratch path $scratch)..." >&2
swift build -c release --package-path "$root" --scratch-path "$scratch" >&2

echo "Running: concord fuzz --inputs $inputs --seed $seed $*" >&2
exec "$scratch/release/concord" fuzz --inputs "$inputs" --seed "$seed" "$@"
