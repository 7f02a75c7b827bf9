#!/usr/bin/env bash
# Benchmarks the index on generated vaults of 1k, 10k and 100k notes and
# prints Markdown tables per vault (the build, then the parse alone) (see sidecar/bench/src/index.rs for
# what each row measures). Timings are reported, never asserted.
#
#   scripts/bench.sh                 # 1000 10000 100000 notes
#   scripts/bench.sh 10000           # only these sizes
#   scripts/bench.sh --json 10000    # JSON instead of tables
#   scripts/bench.sh --restart       # also: first answer cold and from the
#                                    # persisted index, on real-text vaults
#                                    # (Debian's dict-foldoc, dict-gcide)
#
# Vaults go to $HOME/.cache/weft/bench-vaults/notes-N-seed-S and are reused
# while the generator version and spec match (generate_or_reuse).
# Environment: WEFT_BENCH_SEED (1), WEFT_BENCH_RUNS (5), WEFT_BENCH_VAULTS.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/weft/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
seed="${WEFT_BENCH_SEED:-1}"
runs="${WEFT_BENCH_RUNS:-5}"
vaults="${WEFT_BENCH_VAULTS:-$HOME/.cache/weft/bench-vaults}"

format=()
sizes=()
restart=0
for arg in "$@"; do
  case "$arg" in
    --json) format=(--json) ;;
    --restart) restart=1 ;;
    *[!0-9]* | '') echo "usage: scripts/bench.sh [--json] [--restart] [NOTES...]" >&2; exit 2 ;;
    *) sizes+=("$arg") ;;
  esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)

echo "==> cargo build --release -p weft-bench" >&2
cargo build --release -p weft-bench >&2
bench=("$CARGO_TARGET_DIR/release/weft-bench")

mkdir -p "$vaults"
for n in "${sizes[@]}"; do
  dir="$vaults/notes-$n-seed-$seed"
  echo "==> $n notes: $dir" >&2
  "${bench[@]}" generate --notes "$n" --seed "$seed" "$dir" >&2
  "${bench[@]}" index "$dir" --runs "$runs" "${format[@]}"
  # The parse alone, against pulldown-cmark's events (tables only).
  [ ${#format[@]} -gt 0 ] || "${bench[@]}" parse "$dir" --runs "$runs"
done

if [ "$restart" = 1 ]; then
  echo "==> cargo build --release -p weft" >&2
  cargo build --release -p weft >&2
  for dict in foldoc gcide; do
    if [ ! -f "/usr/share/dictd/$dict.index" ]; then
      echo "==> $dict: skipped (apt-get install dict-$dict)" >&2
      continue
    fi
    dir="$vaults/dict-$dict"
    [ -f "$dir/.weft-dict-vault" ] || python3 scripts/dict_vault.py "$dict" "$dir" >&2
    python3 scripts/bench_restart.py "$CARGO_TARGET_DIR/release/weft" "$dir" --runs "$runs"
  done
fi
