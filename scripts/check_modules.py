#!/usr/bin/env python3
"""Fails when a module of a sidecar crate imports another that imports it back.

Crates cannot import upward (Cargo refuses cycles between crates); inside a
crate nothing stops `a.rs` from using `b.rs` while `b.rs` uses `a.rs`. This
script reads every crate under `sidecar/` from its `lib.rs`/`main.rs` down
through `mod` declarations, resolves every path a file names (`use` trees and
inline `crate::…`, `super::…`, `self::…` or child-module paths) to the file
that defines the item, following `use` re-exports, and reports each group of
files that reach each other (a strongly connected component of more than one
file).

What counts as an import: any use of an item another file defines. What does
not: a parent declaring its child (`mod child;`) and re-exporting the child's
items (`pub use child::Item;`), which is how a module presents its interface.
Test modules (declared under `#[cfg(test)]`) are left out. Not seen: calls
of methods whose `impl` is split over several files (`self.method()` names
no path); keep such calls one way by hand.

Usage: scripts/check_modules.py [ROOT]   (exit 1 when a cycle is found)
"""

import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_code(text):
    """Blanks comments, strings and char literals, keeping line structure."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        out.append("\n")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:i + 12]):
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'])'", text[i:])
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


TEST_BLOCK = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*\{")


def drop_test_blocks(code):
    """Removes inline `#[cfg(test)] mod name { … }` blocks (tests are not modules here)."""
    while True:
        m = TEST_BLOCK.search(code)
        if not m:
            return code
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        code = code[:m.start()] + "\n" * code.count("\n", m.start(), i) + code[i:]


class Module:
    def __init__(self, crate, path, file, parent):
        self.crate, self.path, self.file, self.parent = crate, path, file, parent
        self.children = {}  # name -> Module
        self.code = ""
        self.uses = []  # (segments, alias_or_None, is_pub)


def child_file(module, name, attr_path):
    base = module.file.parent
    if module.file.name not in ("mod.rs", "lib.rs", "main.rs"):
        base = base / module.file.stem
    if attr_path:
        return module.file.parent / attr_path
    for cand in (base / f"{name}.rs", base / name / "mod.rs"):
        if cand.exists():
            return cand
    return None


MOD_DECL = re.compile(
    r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;"
)


def load(crate, root_file):
    modules = []

    def visit(path, file, parent):
        m = Module(crate, path, file, parent)
        code = drop_test_blocks(strip_code(file.read_text(encoding="utf-8")))
        # `pub(in crate::a)` names a module for visibility, not an import.
        m.code = re.sub(r"pub\(in [^)]*\)", "pub", code)
        modules.append(m)
        for decl in MOD_DECL.finditer(m.code):
            attrs, name = decl.group(1), decl.group(2)
            if "cfg(test)" in attrs:
                continue
            attr_path = re.search(r'path\s*=\s*"([^"]*)"', file.read_text(encoding="utf-8")[decl.start():decl.end()])
            f = child_file(m, name, attr_path.group(1) if attr_path else None)
            if f is None:
                continue
            m.children[name] = visit(path + [name], f, m)
        return m

    return visit([], root_file, None), modules


def parse_use_tree(s, prefix, out):
    """Parses a use tree (`a::{b, c::d as e}`) into (segments, alias) pairs."""
    s = s.strip()
    depth, brace = 0, -1
    for i, ch in enumerate(s):
        if ch == "{" and depth == 0:
            brace = i
            break
    if brace >= 0:
        head = [p for p in s[:brace].strip().rstrip(":").split("::") if p.strip()]
        body = s[brace + 1:s.rfind("}")]
        parts, depth, start = [], 0, 0
        for i, ch in enumerate(body):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(body[start:i])
                start = i + 1
        parts.append(body[start:])
        for p in parts:
            if p.strip():
                parse_use_tree(p, prefix + [h.strip() for h in head], out)
        return
    alias = None
    m = re.match(r"(.*?)\s+as\s+(" + IDENT + r")$", s)
    if m:
        s, alias = m.group(1), m.group(2)
    segs = [p.strip() for p in s.split("::") if p.strip()]
    out.append((prefix + segs, alias))


USE_STMT = re.compile(r"(\bpub(?:\([^)]*\))?\s+)?\buse\s+([^;]*);")
INLINE = re.compile(r"(?<![A-Za-z0-9_:])((?:" + IDENT + r")(?:\s*::\s*(?:" + IDENT + r"|\*))+)")


def collect_uses(m):
    for st in USE_STMT.finditer(m.code):
        is_pub = bool(st.group(1))
        trees = []
        parse_use_tree(st.group(2).lstrip(":"), [], trees)
        for segs, alias in trees:
            m.uses.append((segs, alias, is_pub))


def start_module(m, first):
    if first == "crate":
        root = m
        while root.parent:
            root = root.parent
        return root, 1
    if first == "super":
        return m.parent, 1
    if first == "self":
        return m, 1
    if first in m.children:
        return m.children[first], 1
    return None, 0


def resolve(m, segs, seen=None):
    """The file that defines what `segs` names, seen from module m."""
    if seen is None:
        seen = set()
    cur, i = start_module(m, segs[0])
    if cur is None:
        # A name imported into m with `use` (e.g. `use super::x; x::f()`).
        for useg, alias, _ in m.uses:
            last = alias or (useg[-1] if useg else None)
            if last == segs[0] and useg and useg[-1] != "*":
                key = (id(m), tuple(segs))
                if key in seen:
                    return None
                seen.add(key)
                return resolve(m, useg + segs[1:], seen)
        return None
    while i < len(segs):
        s = segs[i]
        if s == "super" and cur.parent:
            cur, i = cur.parent, i + 1
        elif s == "self":
            i += 1
        elif s in cur.children:
            cur, i = cur.children[s], i + 1
        else:
            break
    if i >= len(segs) or segs[i] == "*":
        return cur
    # segs[i] is an item in cur: follow cur's imports of that name.
    name = segs[i]
    for useg, alias, _ in cur.uses:
        if useg and useg[-1] != "*" and (alias or useg[-1]) == name and useg[-1] != "self":
            key = (id(cur), name)
            if key in seen:
                break
            seen.add(key)
            target = resolve(cur, useg, seen)
            if target is not None:
                return target
    return cur


def edges_of(m):
    out = set()
    pub_reexports = set()
    for segs, alias, is_pub in m.uses:
        if not segs or segs[0] not in ("crate", "super", "self") and segs[0] not in m.children:
            continue
        target = resolve(m, segs)
        if target is None or target is m:
            continue
        if is_pub and is_descendant(target, m):
            pub_reexports.add(target.file)
            continue
        out.add(target)
    # Inline paths outside `use` statements.
    body = USE_STMT.sub(" ", m.code)
    body = MOD_DECL.sub(" ", body)
    for hit in INLINE.finditer(body):
        segs = [s.strip() for s in hit.group(1).split("::")]
        first = segs[0]
        if first not in ("crate", "super", "self") and first not in m.children:
            if not any((alias or (u[-1] if u else "")) == first for u, alias, _ in m.uses if u and u[0] in ("crate", "super", "self") or (u and u[0] in m.children)):
                continue
        target = resolve(m, segs)
        if target is None or target is m:
            continue
        out.add(target)
    return out


def is_descendant(a, b):
    while a.parent:
        a = a.parent
        if a is b:
            return True
    return False


def sccs(nodes, edges):
    index, low, stack, on, result = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w is v:
                    break
            result.append(comp)

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            strong(v)
    return result


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    failed = False
    total_files = total_edges = 0
    for manifest in sorted((root / "sidecar").glob("*/Cargo.toml")):
        crate = manifest.parent
        for entry in ("src/lib.rs", "src/main.rs"):
            f = crate / entry
            if not f.exists():
                continue
            _, modules = load(crate.name, f)
            for m in modules:
                collect_uses(m)
            edges = {m: edges_of(m) for m in modules}
            total_files += len(modules)
            total_edges += sum(len(e) for e in edges.values())
            for comp in sccs(modules, edges):
                if len(comp) < 2:
                    continue
                failed = True
                names = sorted(str(m.file.relative_to(root)) for m in comp)
                print(f"cycle in {crate.name}/{entry}: " + " <-> ".join(names))
                members = set(comp)
                for m in sorted(comp, key=lambda m: str(m.file)):
                    for t in sorted(edges[m] & members, key=lambda t: str(t.file)):
                        print(f"    {m.file.relative_to(root)} -> {t.file.relative_to(root)}")
    if failed:
        print("modules import each other: move the shared piece down to a module both can import")
        return 1
    print(f"no module cycles: {total_files} modules, {total_edges} imports between them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
