#!/usr/bin/env bash
# Kills the vault's daemon (SIGKILL) at random moments while two agents
# stream writes, edits, frontmatter updates, new notes and link-rewriting
# moves into a vault, KILLS times (1,000 by default), and checks after each
# kill that no note is torn, nothing Weft writes is left behind once a
# daemon runs again, the restarted index equals a fresh build and the
# history store opens and records. It is the end-to-end test
# tests/tests/crash.rs (which the README's test command runs with 50
# kills), run longer; it prints the figures at the end.
#
#   scripts/crash.sh              # 1,000 kills, debug build
#   scripts/crash.sh 200          # 200 kills
#   RELEASE=1 scripts/crash.sh    # against a release build
#   WEFT_CRASH_SEED=N ...         # repeat a run's choices (printed at its start)
set -euo pipefail
cd "$(dirname "$0")/.."

exec scripts/long_test.sh crash WEFT_CRASH_KILLS="${1:-1000}"
