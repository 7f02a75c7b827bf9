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

exec scripts/long_test.sh storms WEFT_STORM_NOTES="${1:-10000}" WEFT_STORM_ROUNDS="${2:-1}"
