#!/usr/bin/env python3
"""Turns a dictd dictionary into a vault of real text for benchmarks.

Debian's dict-foldoc (15k entries) and dict-gcide (169k) ship dictionaries
whose `{cross references}` are natural wikilinks. Each headword becomes a
note (headwords equal but for case share one note, holding every entry
under them), and `{X}` becomes `[[X]]`. Nothing of the result is ever
committed: it is made on the machine that benchmarks.

Usage: scripts/dict_vault.py NAME DIR     NAME: foldoc, gcide, jargon, …
       (reads /usr/share/dictd/NAME.index and NAME.dict.dz; DIR must be new
       or hold a vault this script made)
"""

import gzip
import os
import re
import shutil
import sys
import unicodedata

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
MARKER = ".weft-dict-vault"


def number(text):
    value = 0
    for ch in text:
        value = value * 64 + B64.index(ch)
    return value


def note_name(headword):
    """A file stem for a headword: no path separators, no leading dot."""
    name = unicodedata.normalize("NFC", headword.strip())
    name = name.replace("/", "∕").replace("\\", "⧵").replace("\0", "")
    name = re.sub(r"[\x00-\x1f]", " ", name)
    name = name.lstrip(".") or "dot"
    return name[:120]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, out = sys.argv[1], sys.argv[2]
    base = f"/usr/share/dictd/{source}"
    if not os.path.exists(base + ".index"):
        sys.exit(f"{base}.index is missing: apt-get install dict-{source}")
    if os.path.exists(out):
        if not os.path.exists(os.path.join(out, MARKER)):
            sys.exit(f"{out} exists and was not made by this script; give a new folder")
        shutil.rmtree(out)
    os.makedirs(out)
    with gzip.open(base + ".dict.dz", "rb") as f:
        data = f.read()
    entries = {}  # casefolded name -> (name, [(offset, length)])
    for line in open(base + ".index", encoding="utf-8", errors="replace"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 3 or parts[0].startswith("00-database") or parts[0].startswith("00database"):
            continue
        name = note_name(parts[0])
        key = name.casefold()
        spans = entries.setdefault(key, (name, []))[1]
        span = (number(parts[1]), number(parts[2]))
        if span not in spans:
            spans.append(span)
    link = re.compile(r"\{([^{}\n]{1,120})\}")
    total = 0
    for key, (name, spans) in entries.items():
        text = "\n\n".join(
            data[o:o + n].decode("utf-8", errors="replace").strip("\n") for o, n in sorted(spans)
        )
        text = link.sub(lambda m: "[[" + note_name(m.group(1)) + "]]", text)
        body = f"# {name}\n\n{text}\n"
        with open(os.path.join(out, name + ".md"), "w", encoding="utf-8") as f:
            f.write(body)
        total += len(body.encode("utf-8"))
    open(os.path.join(out, MARKER), "w").write(source + "\n")
    print(f"{len(entries)} notes, {total / 1e6:.1f} MB of Markdown in {out}")


if __name__ == "__main__":
    main()
