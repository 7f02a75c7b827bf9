#!/usr/bin/env bash
# Runs one end-to-end test of tests/tests/ longer or larger than the
# README's test command does, and prints its report: the shared part of
# scripts/crash.sh and scripts/storm.sh.
#
#   scripts/long_test.sh TEST [VAR=VALUE ...]   # e.g. crash WEFT_CRASH_KILLS=1000
#   RELEASE=1 scripts/long_test.sh ...          # against a release build
#
# The test's sandboxes live in a temporary folder of their own (TMPDIR and
# the daemons' runtime folder), removed at the end; the test writes its
# report to $WEFT_TEST_REPORT.
set -euo pipefail
cd "$(dirname "$0")/.."

test_name="$1"
shift
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/weft/target}"
profile=debug
flags=()
if [ -n "${RELEASE:-}" ]; then
  profile=release
  flags=(--release)
fi
cargo build --locked "${flags[@]}" -p weft
export WEFT_BIN="$CARGO_TARGET_DIR/$profile/weft"
run="$(mktemp -d "/tmp/weft-$test_name.XXXXXX")"
mkdir "$run/tmp"
trap 'rm -rf "$run"' EXIT
report="$run/report"
env TMPDIR="$run/tmp" WEFT_RUNTIME_DIR="$run/run" WEFT_TEST_REPORT="$report" "$@" \
  cargo test --locked -p weft-e2e --test "$test_name" -- --nocapture
echo
echo "($profile build)"
cat "$report"
