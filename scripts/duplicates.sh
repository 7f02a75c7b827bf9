#!/usr/bin/env bash
# Lists the code that stands twice in the repository: every run of 6 or more
# lines that jscpd (a repeated-code scanner from npm, which reads Rust) finds
# in two places, comments and `use` lines left out. The tests run it and
# fail when a pair appears that is not in scripts/duplicates-judged.txt,
# the pairs we read and judged not to be the same logic (each with why).
#
#   scripts/duplicates.sh           # check: exit 1 on a pair not judged
#   scripts/duplicates.sh --list    # every pair found, judged or not
#
# jscpd is installed once into $WEFT_CACHE/jscpd (default ~/.cache/weft).
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${WEFT_CACHE:-$HOME/.cache/weft}/jscpd"
if [ ! -x "$cache/node_modules/.bin/jscpd" ]; then
  mkdir -p "$cache"
  (cd "$cache" && npm install --silent --no-audit --no-fund --prefix . jscpd@4.3.0 >&2)
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$cache/node_modules/.bin/jscpd" --silent --min-lines 6 --format rust --skipComments \
  --ignore-pattern 'use [^;]*;' --reporters json --output "$out" \
  sidecar extension tests/src tests/tests tests/host >/dev/null

python3 - "$out/jscpd-report.json" scripts/duplicates-judged.txt "${1:-}" <<'EOF'
import json, sys

report, judged_file, mode = sys.argv[1], sys.argv[2], sys.argv[3]
# A judged pair is named by its two files (line numbers move as code does).
judged = set()
for line in open(judged_file, encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if line:
        a, b = (p.strip() for p in line.split("~"))
        judged.add(tuple(sorted((a, b))))
pairs = []
for clone in json.load(open(report))["duplicates"]:
    a, b = clone["firstFile"], clone["secondFile"]
    key = tuple(sorted((a["name"], b["name"])))
    pairs.append((key in judged, f'{a["name"]}:{a["start"]}-{a["end"]} ~ {b["name"]}:{b["start"]}-{b["end"]} ({clone["lines"]} lines)'))
new = [p for ok, p in pairs if not ok]
for ok, p in sorted(pairs, key=lambda x: x[1]):
    if mode == "--list" or not ok:
        print(("judged  " if ok else "NEW     ") + p)
print(f"{len(pairs)} repeated runs of 6+ lines, {len(pairs) - len(new)} judged not the same logic, {len(new)} new")
sys.exit(1 if new and mode != "--list" else 0)
EOF
