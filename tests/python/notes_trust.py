"""Issue 15 through the official MCP Python SDK against the built `weft mcp`:
a frontmatter edit changes only its own key's bytes (and refuses an edit
that would change another key), one heading-path rule for reading and
editing sections, one tag rule for reading and writing.

Usage: notes_trust.py WEFT_BINARY VAULT_DIR
The vault (written by the Rust test) holds keys.md, sec.md and tags.md.
Prints a JSON report; exits non-zero with the reason on the first failure.
"""

import asyncio
import json
import os
import sys
import time

from mcp import Client, StdioServerParameters

DEADLINE = 60.0


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def main(weft, vault):
    def read(rel):
        with open(os.path.join(vault, rel), encoding="utf-8", newline="") as f:
            return f.read()

    report = {}
    params = StdioServerParameters(command=weft, args=["mcp", "--vault", vault], env=dict(os.environ))
    async with Client(params, read_timeout_seconds=DEADLINE) as client:
        start = time.monotonic()
        while (await client.call_tool("vault_info", {})).structured_content["status"]["phase"] != "ready":
            if time.monotonic() - start > DEADLINE:
                fail("the vault was not indexed in time")
            await asyncio.sleep(0.1)

        # 1. Frontmatter: only the edited key's bytes change.
        before = read("keys.md")
        result = await client.call_tool("update_frontmatter", {"path": "keys", "set": {"a": 2}})
        if result.is_error:
            fail(f"set a: {text_of(result)}")
        want = before.replace("other: *b\n", "other: *b\na: 2\n")
        if read("keys.md") != want:
            fail(f"setting `a` changed other bytes:\n{read('keys.md')!r}\nwanted\n{want!r}")
        result = await client.call_tool("update_frontmatter", {"path": "keys", "add_tags": ["t"]})
        if result.is_error or "subtags: [s]\n" not in read("keys.md") or "tags: [t]\n" not in read("keys.md"):
            fail(f"add_tags: {text_of(result)}\n{read('keys.md')!r}")
        kept = read("keys.md")
        result = await client.call_tool("update_frontmatter", {"path": "keys", "set": {"base": {"x": 2}}})
        refusal = text_of(result)
        if not result.is_error or "refusing to change `base`" not in refusal or "alias" not in refusal or read("keys.md") != kept:
            fail(f"an edit changing another key through an alias was not refused: {text_of(result)}")
        report["frontmatter"] = "ok"

        # 2. Sections: `A::C` is the direct child, for reading and editing.
        result = await client.call_tool("read_note", {"path": "sec", "section": "A::C"})
        if result.is_error or "under A" not in text_of(result) or "under B" in text_of(result):
            fail(f"read_note A::C: {text_of(result)}")
        result = await client.call_tool(
            "edit_note", {"path": "sec", "ops": [{"op": "append_section", "section": "A::C", "content": "added"}]}
        )
        if result.is_error or "under A\nadded\n" not in read("sec.md"):
            fail(f"edit_note A::C: {text_of(result)}\n{read('sec.md')!r}")
        result = await client.call_tool("read_note", {"path": "sec", "section": "C"})
        if not result.is_error or "A::B::C" not in text_of(result) or "A::C" not in text_of(result):
            fail(f"an ambiguous section must list every path: {text_of(result)}")
        report["sections"] = "ok"

        # 3. Tags: one rule for reading and writing.
        result = await client.call_tool("list_tags", {})
        listed = [t["name"] for t in result.structured_content["items"]]
        if "c++" in listed or "2024" in listed or "good" not in listed:
            fail(f"list_tags: {listed}")
        result = await client.call_tool("update_frontmatter", {"path": "tags", "add_tags": ["c++"]})
        if not result.is_error or "is not a tag" not in text_of(result):
            fail(f"a name that is no tag was written: {text_of(result)}")
        result = await client.call_tool("search_notes", {"query": "tag:#GOOD"})
        if result.structured_content["total"] != 1:
            fail(f"tag search by another spelling: {text_of(result)}")
        report["tags"] = "ok"
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
