#!/usr/bin/env bash
# Storms while an editor and an agent are connected: a folder of NOTES/2
# notes renamed (and back), a git checkout that adds, changes and deletes
# NOTES notes, a sync tool rewriting every file in place. Reports, per
# storm, the time the index took to equal a fresh build, the worst request
# latency of the editor and the agent meanwhile, and the daemon's anonymous
# and total resident memory before and after. It is the end-to-end test
# tests/tests/storms.rs (which the README's test command runs at 2,000
# notes), run at full size.
#
#   scripts/storm.sh                # 10,000 notes (a 5,000-note folder), debug build
#   scripts/storm.sh 2000 3         # 2,000 notes, the storms three times
#   RELEASE=1 scripts/storm.sh      # against a release build
set -euo pipefail
cd "$(dirname "$0")/.."

notes="${1:-10000}"
rounds="${2:-1}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/weft/target}"
profile=debug
flags=()
if [ -n "${RELEASE:-}" ]; then
  profile=release
  flags=(--release)
fi
cargo build --locked "${flags[@]}" -p weft
export WEFT_BIN="$CARGO_TARGET_DIR/$profile/weft"
run="$(mktemp -d /tmp/weft-storm.XXXXXX)"
mkdir "$run/tmp"
trap 'rm -rf "$run"' EXIT
report="$run/report"
TMPDIR="$run/tmp" WEFT_RUNTIME_DIR="$run/run" WEFT_STORM_NOTES="$notes" WEFT_STORM_ROUNDS="$rounds" \
  WEFT_STORM_REPORT="$report" cargo test --locked -p weft-e2e --test storms -- --nocapture
echo
echo "($profile build)"
cat "$report"
