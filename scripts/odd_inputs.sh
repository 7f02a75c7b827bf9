#!/usr/bin/env bash
# Times the big odd inputs at full size with a built `weft` and prints each
# one's wall time and peak resident memory for `weft --no-daemon stats`: a
# 100 MB note of prose and links, a million links on one line and on 100,000
# lines, ten thousand nested lists and block quotes. Figures are reported,
# never asserted: the behaviour is pinned by tests/tests/odd_inputs.rs and
# weft-vault's parse tests, which the README's test command runs.
#
#   scripts/odd_inputs.sh            # $CARGO_TARGET_DIR/debug/weft (say which build you report)
#   scripts/odd_inputs.sh WEFT       # any weft binary
set -euo pipefail
cd "$(dirname "$0")/.."

weft="${1:-${CARGO_TARGET_DIR:-$HOME/.cache/weft/target}/debug/weft}"
if [ ! -x "$weft" ]; then
  echo "no weft at $weft: build it (cargo build -p weft) or pass its path" >&2
  exit 2
fi
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unset WEFT_VAULT WEFT_NO_DAEMON

python3 - "$work" <<'EOF'
import os, sys
work = sys.argv[1]
def vault(name, files):
    os.makedirs(f"{work}/{name}")
    for rel, text in files.items():
        with open(f"{work}/{name}/{rel}", "w") as f:
            f.write(text)
line = "Some words here and a [[Small]] link and more prose to fill the line.\n"
vault("note-100MB", {"small.md": "# Small\n", "big.md": "# Big\n" + line * (100_000_000 // len(line))})
vault("links-1M-one-line", {"many.md": "# Many\n" + "[[a]] " * 1_000_000})
vault("links-1M-lines", {"many.md": "# Many\n" + "".join(
    f"[[n{i % 1000}]]" + ("\n" if i % 10 == 9 else " ") for i in range(1_000_000))})
vault("nested-10k", {"lists.md": "- " * 10_000 + "[[a]]\n", "quotes.md": "> " * 10_000 + "[[a]]\n"})
EOF

echo "weft: $weft"
printf '%-18s %8s %13s  %s\n' input seconds "peak RSS MB" "what stats says"
for v in note-100MB links-1M-one-line links-1M-lines nested-10k; do
  answer="$(XDG_CACHE_HOME="$work/cache" /usr/bin/time -f '%e %M' -o "$work/time" \
    "$weft" --no-daemon stats --vault "$work/$v" | grep -E '^- (Notes|Links)' | tr -s '\n' ' ')"
  read -r seconds kb <"$work/time"
  printf '%-18s %8s %13s  %s\n' "$v" "$seconds" "$((kb / 1024))" "$answer"
done
