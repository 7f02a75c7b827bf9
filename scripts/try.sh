#!/usr/bin/env bash
# Installs `weft` (into ~/.cargo/bin) and runs it on the example vault kept in
# this repository. Pass another vault folder as the first argument to try it
# on your own notes: scripts/try.sh ~/notes
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/weft/target}"
vault="${1:-examples/vault}"

cargo install --locked --path sidecar/weft --root "${WEFT_INSTALL_ROOT:-$HOME/.cargo}"
weft="${WEFT_INSTALL_ROOT:-$HOME/.cargo}/bin/weft"

run() { printf '\n$ weft %s\n' "$*"; "$weft" "$@" --vault "$vault" || true; }
run stats
run query backlinks Weft
run query links Welcome
run query graph Weft --depth 1
run query resolve Plan
run query search '"first-class" OR roadmap'
run query related Weft
run check
printf '\nThese answers came from the vault'"'"'s index daemon (started by the first command,\nshared by `weft lsp`, `weft mcp` and `weft query`; it exits after 2 idle minutes).\n'
