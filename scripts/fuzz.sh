#!/usr/bin/env bash
# Fuzzes Weft: builds the targets of fuzz/ (cargo-fuzz, libFuzzer) and runs
# each for SECONDS or 10^7 executions, whichever comes first, two at a time
# (one per core), then prints per target: executions, executions per
# second, coverage (edges: cov, features: ft), corpus size and crashes.
#
#   scripts/fuzz.sh                   # every target, 600 s each
#   scripts/fuzz.sh parse_note 60     # one target, 60 s
#   FUZZ_MERGE=1 scripts/fuzz.sh      # and merge new inputs into fuzz/corpus/
#
# Each target reads its committed corpus (fuzz/corpus/<target>/) and the
# inputs that broke it once (fuzz/regressions/<target>/), and writes what it
# finds into a scratch corpus under $FUZZ_WORK (not the repository). With
# FUZZ_MERGE=1, the scratch inputs that add coverage are merged into the
# committed corpus afterwards (libFuzzer's -set_cover_merge=1, which keeps
# fewer inputs than -merge=1 for the same coverage). An input that breaks a
# property is saved as fuzz/artifacts/<target>/crash-* (or timeout-*, oom-*):
# minimise it (`<binary> -minimize_crash=1 -runs=100000 <input>`), keep it in
# fuzz/regressions/<target>/ and fix the cause with a regression test.
#
# The toolchain is stable Rust: no sanitizer (`-s none`: the code under test
# is safe Rust, and sanitizers need nightly), debug assertions and overflow
# checks on (fuzz/Cargo.toml's release profile; `-O` keeps cargo-fuzz from
# forcing debug assertions on every crate, tantivy included). Builds go to $FUZZ_TARGET_DIR, apart from the
# workspace's, and run under `nice` beside other work.
set -euo pipefail
cd "$(dirname "$0")/.."

only="${1:-}"
seconds="${2:-600}"
runs=10000000
jobs="${FUZZ_JOBS:-2}"
work="${FUZZ_WORK:-$HOME/.cache/weft/fuzz}"
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$HOME/.cache/weft/target-fuzz}"

command -v cargo-fuzz >/dev/null || nice -n 10 cargo install cargo-fuzz --locked
targets=()
for file in fuzz/fuzz_targets/*.rs; do
  name="$(basename "$file" .rs)"
  if [ -z "$only" ] || [ "$only" = "$name" ]; then targets+=("$name"); fi
done
if [ "${#targets[@]}" -eq 0 ]; then
  echo "no fuzz target named '$only' (see fuzz/fuzz_targets/)" >&2
  exit 2
fi

build=(cargo fuzz build --fuzz-dir fuzz -O -s none)
[ -n "$only" ] && build+=("$only")
nice -n 10 "${build[@]}"
bin="$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release"

run() {
  local target="$1"
  local scratch="$work/corpus/$target"
  mkdir -p "$scratch" "fuzz/artifacts/$target" "fuzz/regressions/$target" "$work/logs"
  nice -n 19 "$bin/$target" "$scratch" "fuzz/corpus/$target" "fuzz/regressions/$target" \
    -max_total_time="$seconds" -runs="$runs" -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix="fuzz/artifacts/$target/" -print_final_stats=1 \
    >"$work/logs/$target.log" 2>&1 || true
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    # Its own log: the summary below reads the campaign's last status line.
    nice -n 19 "$bin/$target" -set_cover_merge=1 "fuzz/corpus/$target" "$scratch" \
      >"$work/logs/$target.merge.log" 2>&1 || true
  fi
}

mkdir -p "$work"
started="$work/.started"
touch "$started"
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "fuzzing $target for ${seconds}s (log: $work/logs/$target.log)"
  run "$target" &
done
wait

printf '\n%-18s %12s %8s %7s %7s %8s %8s\n' target executions exec/s cov ft corpus crashes
status=0
for target in "${targets[@]}"; do
  log="$work/logs/$target.log"
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1 || true; }
  # The last status line: `#N<tab>DONE cov: C ft: F corp: K/…`.
  last="$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -1 || true)"
  field() { sed -nE "s/.* $1: ([0-9]+).*/\1/p" <<<"$last"; }
  crashes="$(find "fuzz/artifacts/$target" -type f -newer "$started" 2>/dev/null | wc -l)"
  [ "$crashes" -eq 0 ] || status=1
  printf '%-18s %12s %8s %7s %7s %8s %8s\n' "$target" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "$(field cov)" "$(field ft)" \
    "$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")" "$crashes"
done
[ "$status" -eq 0 ] || echo "crashes: see fuzz/artifacts/ and the logs in $work/logs/" >&2
exit "$status"
