"""Drives Weft's write tools with the official MCP Python SDK, through the seed
scenarios an agent runs (wiki-ai, Cairn, obsidian-mcp, AILSS).

Usage: writes_scenario.py WEFT_BINARY VAULT_DIR MODE
  MODE is `auto` (the SDK's default: `server/discover`) or `legacy`
  (`initialize`).

Every successful result's structured content is validated against the tool's
output schema with jsonschema; every expected failure must be a tool error
(isError) whose text says how to recover, and must leave every file of the
vault byte for byte as it was. The disk is checked directly after each write.
Prints one JSON object with what it saw; exits non-zero with the reason on the
first failure.
"""

import asyncio
import hashlib
import json
import os
import re
import sys
import time

import jsonschema
from mcp import Client, StdioServerParameters

DEADLINE = 60.0
WRITE_TOOLS = {"write_note", "edit_note", "update_frontmatter", "move_note", "delete_note", "daily_note"}


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def snapshot(vault):
    """Every file with its sha256 (Weft's own .weft/ left out)."""
    out = {}
    for root, dirs, files in os.walk(vault):
        dirs[:] = [d for d in dirs if not (root == vault and d == ".weft")]
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, vault)] = hashlib.sha256(f.read()).hexdigest()
    return out


def read(vault, rel):
    with open(os.path.join(vault, rel), "rb") as f:
        return f.read().decode("utf-8")


def sha(vault, rel):
    with open(os.path.join(vault, rel), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Session:
    def __init__(self, client, vault, schemas, report):
        self.client = client
        self.vault = vault
        self.schemas = schemas
        self.report = report

    async def ok(self, name, args):
        started = time.monotonic()
        result = await self.client.call_tool(name, args)
        if name in WRITE_TOOLS and not args.get("dry_run"):
            self.report["write_ms"].append(round((time.monotonic() - started) * 1000, 1))
        text = text_of(result)
        if result.is_error:
            fail(f"{name} {args} failed: {text}")
        validator = jsonschema.Draft202012Validator(self.schemas[name])
        problems = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(result.structured_content)]
        if problems:
            fail(f"{name} {args}: structured content does not match the output schema: {problems}")
        if not text.strip():
            fail(f"{name} {args}: empty text")
        self.report["calls"].append({"tool": name, "chars": len(text)})
        return text, result.structured_content

    async def err(self, name, args, expect):
        before = snapshot(self.vault)
        result = await self.client.call_tool(name, args)
        text = text_of(result)
        if not result.is_error or expect not in text:
            fail(f"{name} {args}: expected a tool error containing {expect!r}, got is_error={result.is_error}: {text}")
        if snapshot(self.vault) != before:
            fail(f"{name} {args} failed but changed the vault: {text}")
        self.report["errors"].append({"tool": name, "message": text.splitlines()[0][:160]})
        return text

    async def dry(self, name, args):
        before = snapshot(self.vault)
        text, data = await self.ok(name, dict(args, dry_run=True))
        if snapshot(self.vault) != before:
            fail(f"dry run {name} {args} changed the vault")
        if not data["dry_run"] or "Dry run" not in text:
            fail(f"dry run {name}: {text}")
        return text, data

    async def search_total(self, query):
        _, data = await self.ok("search_notes", {"query": query})
        return data["total"]


def expect(condition, message):
    if not condition:
        fail(message)


async def wait_ready(client):
    start = time.monotonic()
    while True:
        result = await client.call_tool("vault_info", {})
        phase = result.structured_content["status"]["phase"]
        if phase == "ready":
            return
        if time.monotonic() - start > DEADLINE:
            fail(f"the vault was not indexed within {DEADLINE} s (phase {phase})")
        await asyncio.sleep(0.1)


async def scenario(s, vault):
    # --- write_note: template, frontmatter merged, links reported (wiki-ai create_note, Cairn cairn_write, AILSS capture_note)
    text, data = await s.ok("write_note", {
        "title": "Kickoff",
        "folder": "meetings",
        "template": "Meeting",
        "content": "---\nproject: weft\n---\nDiscussed [[Roadmap]] and [[Not written yet]].\n",
        "tags": ["weekly"],
        "aliases": ["Kick-off"],
        "frontmatter": {"status": "draft"},
    })
    note = read(vault, "meetings/Kickoff.md")
    for part in ["type: meeting", "project: weft", "status: draft", "weekly", "Kick-off", "# Kickoff", "Discussed [[Roadmap]]"]:
        expect(part in note, f"{part!r} missing from the new note:\n{note}")
    expect("{{" not in note, f"template variables left:\n{note}")
    expect(data["unresolved"] == ["Not written yet"], f"unresolved: {data['unresolved']}")
    expect(data["change"]["sha256"] == sha(vault, "meetings/Kickoff.md"), "sha256 of the new note")
    # Read after write: the alias resolves and the words are searchable at once.
    _, r = await s.ok("read_note", {"path": "Kick-off"})
    expect(r["notes"][0]["path"] == "meetings/Kickoff", f"alias: {r['notes'][0]['path']}")
    expect(await s.search_total('"Discussed"') == 1, "new text not searchable right after the write")
    await s.err("write_note", {"path": "meetings/Kickoff", "content": "again"}, "already exists")
    # Upsert (Cairn): overwrite with the hash read.
    await s.ok("write_note", {"path": "scratch", "content": "v1\n"})
    await s.ok("write_note", {"path": "scratch", "content": "v2 [[Roadmap]]\n", "overwrite": True, "expected_sha256": sha(vault, "scratch.md")})
    expect(read(vault, "scratch.md") == "v2 [[Roadmap]]\n", "upsert")

    # --- Cairn: append to 10 notes without reading them.
    for i in range(10):
        await s.ok("edit_note", {"path": f"inbox/item {i}", "ops": [{"op": "append", "content": f"- follow-up {i}"}]})
    for i in range(10):
        expect(read(vault, f"inbox/item {i}.md") == f"# Item {i}\nSome text.\n- follow-up {i}\n", f"item {i}: {read(vault, f'inbox/item {i}.md')!r}")
    expect(await s.search_total('"follow-up"') == 10, "appended text not searchable")

    # --- edit_note: sections, unique find, errors that change nothing (cairn_patch, obsidian-mcp sections)
    h = sha(vault, "Roadmap.md")
    text, data = await s.ok("edit_note", {
        "path": "Roadmap",
        "expected_sha256": h,
        "ops": [
            {"op": "append_section", "section": "Plan::Next", "content": "- ship the write tools"},
            {"op": "replace_section", "section": "Done", "content": "Everything before 2024.\n"},
            {"op": "replace_text", "find": "draft plan", "replace": "agreed plan"},
            {"op": "prepend_section", "section": "Plan", "content": "Owner: Ana"},
        ],
    })
    roadmap = read(vault, "Roadmap.md")
    expect(roadmap == "# Roadmap\nThe agreed plan.\n## Plan\nOwner: Ana\n### Next\n- ship v1\n- ship the write tools\n\n## Done\nEverything before 2024.\n",
           f"roadmap after edits:\n{roadmap!r}")
    expect(data["change"]["bytes_before"] < data["change"]["bytes_after"], "bytes before/after")
    expect(f"sha256 `{sha(vault, 'Roadmap.md')}`" in text, "new hash in text")
    await s.err("edit_note", {"path": "Roadmap", "ops": [{"op": "replace_text", "find": "nowhere to be found", "replace": "x"}]}, "does not occur")
    await s.err("edit_note", {"path": "Roadmap", "ops": [{"op": "replace_text", "find": "ship", "replace": "x"}]}, "occurs 2 times")
    await s.err("edit_note", {"path": "Roadmap", "ops": [{"op": "append", "content": "x"}, {"op": "append_section", "section": "Missing", "content": "x"}]}, "no section")
    await s.err("edit_note", {"path": "Roadmap", "ops": [{"op": "append", "content": "x"}], "expected_sha256": h}, sha(vault, "Roadmap.md"))
    text, _ = await s.dry("edit_note", {"path": "Roadmap", "ops": [{"op": "replace_lines", "from": 2, "to": 2, "content": "The final plan."}]})
    expect("```diff" in text and "-The agreed plan." in text and "+The final plan." in text, f"dry-run diff:\n{text}")
    # Lines (AILSS edit_note line ops).
    await s.ok("edit_note", {"path": "Roadmap", "ops": [{"op": "insert_lines", "at": 2, "content": "Inserted."}, {"op": "delete_lines", "from": 1, "to": 1}]})
    expect(read(vault, "Roadmap.md").startswith("Inserted.\nThe agreed plan.\n"), read(vault, "Roadmap.md"))

    # --- CRLF stays CRLF.
    await s.ok("edit_note", {"path": "windows", "ops": [{"op": "append_section", "section": "Log", "content": "second\nthird"}]})
    crlf = read(vault, "windows.md")
    expect("first\r\nsecond\r\nthird\r\n" in crlf and "\n" not in crlf.replace("\r\n", ""), f"CRLF lost: {crlf!r}")

    # --- update_frontmatter: tags add/remove, idempotent, tag mix refused (wiki-ai update_note tags, obsidian add_tag/remove_tag)
    _, data = await s.ok("update_frontmatter", {"path": "Roadmap", "add_tags": ["project/weft", "planning"], "set": {"status": "active"}})
    expect(data["tags"] == ["project/weft", "planning"], f"tags: {data['tags']}")
    _, data = await s.ok("update_frontmatter", {"path": "Roadmap", "remove_tags": ["planning"], "add_tags": ["project/weft"]})
    expect(data["tags"] == ["project/weft"] and data["changed"], f"tags after remove: {data}")
    _, data = await s.ok("update_frontmatter", {"path": "Roadmap", "add_tags": ["project/weft"]})
    expect(not data["changed"], "adding a tag twice changed the note")
    front = read(vault, "Roadmap.md").split("---\n")[1]
    expect(read(vault, "Roadmap.md").startswith("---\n") and "status: active" in front and "project/weft" in front and "planning" not in front, read(vault, "Roadmap.md"))
    expect(await s.search_total("tag:project/weft") == 1, "tag not searchable")
    await s.err("update_frontmatter", {"path": "Roadmap", "tags": ["a"], "add_tags": ["b"]}, "add_tags")

    # --- Many notes in one call (AILSS improve_frontmatter over a folder): a dry run lists every
    # note with its diff; applied all or nothing; keys and tags renamed across the vault.
    _, data = await s.dry("update_frontmatter", {"where": "folder:inbox", "set": {"status": "triage"}})
    expect(len(data["changes"]) == 10 and all(c.get("diff") for c in data["changes"][:3]), f"batch dry run: {data}")
    await s.err("update_frontmatter", {"paths": ["inbox/item 1", "nowhere at all"], "set": {"x": 1}}, "nowhere at all")
    await s.err("update_frontmatter", {"where": "folder:inbox budget", "set": {"x": 1}}, "is a word")
    _, data = await s.ok("update_frontmatter", {"where": "folder:inbox", "set": {"status": "triage"}, "add_tags": ["inbox"]})
    expect(len(data["changes"]) == 10 and data["changed"], f"batch: {data}")
    for i in range(10):
        item = read(vault, f"inbox/item {i}.md")
        expect(item == f"---\nstatus: triage\ntags: [inbox]\n---\n# Item {i}\nSome text.\n- follow-up {i}\n", f"item {i}: {item!r}")
    expect(await s.search_total("status:triage") == 10, "the batch is not searchable at once")
    # A key renamed in every note that has it (Roadmap and meetings/Kickoff have `status` too).
    _, data = await s.ok("update_frontmatter", {"rename": {"status": "state"}})
    expect(sorted(c["path"] for c in data["changes"])[:2] == ["Roadmap", "inbox/item 0"] and len(data["changes"]) == 12, f"key rename: {data}")
    expect(await s.search_total("state:*") == 12, "key rename not indexed")
    await s.err("search_notes", {"query": "status:*"}, "Did you mean `state:`")
    expect("state: active" in read(vault, "Roadmap.md") and "status:" not in read(vault, "Roadmap.md"), read(vault, "Roadmap.md"))
    # A tag renamed wherever it is written, nested tags following.
    _, data = await s.ok("update_frontmatter", {"rename": {"#inbox": "triage/inbox"}})
    expect(len(data["changes"]) == 10, f"tag rename: {data}")
    expect(await s.search_total("tag:triage") == 10 and await s.search_total("tag:inbox") == 0, "tag rename not indexed")
    expect(read(vault, "inbox/item 3.md").startswith("---\nstate: triage\ntags: [triage/inbox]\n---\n"), read(vault, "inbox/item 3.md"))

    # --- obsidian-mcp rename_note: dry run first, then for real; links updated.
    text, data = await s.dry("move_note", {"path": "Roadmap", "new_path": "plans/Roadmap 2025"})
    expect(data["link_edits_total"] >= 4, f"dry-run link edits: {data}")
    # --- wiki-ai update_note new_path + update_backlinks.
    text, data = await s.ok("move_note", {"path": "Roadmap", "new_path": "plans/Roadmap 2025", "update_backlinks": True})
    expect(not os.path.exists(os.path.join(vault, "Roadmap.md")) and os.path.exists(os.path.join(vault, "plans/Roadmap 2025.md")), "files not moved")
    hub = read(vault, "Hub.md")
    expect(hub == "# Hub\nSee [[Roadmap 2025]], [[Roadmap 2025|the roadmap]], [[Roadmap 2025#Plan]] and ![[Roadmap 2025#Next]].\n"
           "Also [md link](plans/Roadmap%202025.md).\n", f"Hub links not rewritten:\n{hub!r}")
    deep = read(vault, "deep/nested/Ref.md")
    expect(deep == "Up: [rel](../../plans/Roadmap%202025.md) and [[Roadmap 2025|RM]].\n", f"relative link not rewritten:\n{deep!r}")
    expect("[[Roadmap 2025]]" in read(vault, "meetings/Kickoff.md"), "new note's link not rewritten")
    # Without update_links: the stale links are listed with counts (wiki-ai's warning).
    _, data = await s.ok("move_note", {"path": "plans/Roadmap 2025", "new_path": "archive/", "update_links": False})
    expect(data["new_path"] == "archive/Roadmap 2025", f"moved into folder: {data['new_path']}")
    await s.err("move_note", {"path": "Hub", "new_path": "scratch"}, "already exists")

    # --- delete to .trash with the broken-links list; mark_deleted (obsidian-mcp, wiki-ai, Cairn)
    text, data = await s.dry("delete_note", {"path": "Orphan"})
    _, data = await s.ok("delete_note", {"path": "Target"})
    expect(os.path.exists(os.path.join(vault, ".trash/Target.md")) and not os.path.exists(os.path.join(vault, "Target.md")), "not in the trash")
    broken = {b["path"]: b["count"] for b in data["broken"]}
    expect(broken == {"Linker": 2}, f"broken links: {data['broken']}")
    expect(read(vault, "Linker.md") == "Points at [[Target]] and [[Target|the target]].\n", "links edited silently")
    _, data = await s.ok("delete_note", {"path": "Target2", "link_policy": "mark_deleted"})
    expect(read(vault, "Linker2.md") == "Points at [[Target2 (deleted)]] and [[Target2 (deleted)|the target]].\n", read(vault, "Linker2.md"))
    await s.err("delete_note", {"path": "Target"}, "no note")

    # --- daily_note (cairn_daily), the folder and template from .obsidian/daily-notes.json
    _, data = await s.ok("daily_note", {"date": "2024-03-09", "op": "append_section", "section": "Log", "content": "- standup"})
    expect(data["path"] == "Daily/2024-03-09" and data["created"], f"daily: {data}")
    expect(read(vault, "Daily/2024-03-09.md") == "# 2024-03-09\n## Log\n- standup\n\n## Tasks\n", read(vault, "Daily/2024-03-09.md"))
    _, data = await s.ok("daily_note", {"date": "2024-03-09", "op": "prepend", "content": "Mood: good"})
    _, data = await s.ok("daily_note", {})
    expect(re.fullmatch(r"Daily/\d{4}-\d{2}-\d{2}", data["path"]) and data["op"] == "read", f"today: {data}")

    # --- expected_sha256 conflict: nothing written, current hash returned.
    current = sha(vault, "Hub.md")
    await s.err("update_frontmatter", {"path": "Hub", "set": {"x": 1}, "expected_sha256": "f" * 64}, current)
    await s.err("delete_note", {"path": "Hub", "expected_sha256": "f" * 64}, current)


async def main(weft, vault, mode):
    report = {"mode": mode, "calls": [], "errors": [], "write_ms": []}
    # The SDK passes only a few variables to servers by default; the test's
    # sandbox (its runtime folder, where the daemon's socket is) must reach
    # `weft mcp`.
    params = StdioServerParameters(command=weft, args=["mcp", "--vault", vault], env=dict(os.environ))
    async with Client(params, mode=mode, read_timeout_seconds=DEADLINE) as client:
        report["protocol_version"] = client.protocol_version
        tools = (await client.list_tools()).tools
        schemas = {}
        for tool in tools:
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            schemas[tool.name] = tool.output_schema
            if tool.name in WRITE_TOOLS:
                a = tool.annotations
                expect(a.read_only_hint is False and a.open_world_hint is False, f"{tool.name}: {a!r}")
                report.setdefault("annotations", {})[tool.name] = {"destructive": a.destructive_hint, "idempotent": a.idempotent_hint}
        expect(WRITE_TOOLS <= set(schemas), f"write tools missing: {sorted(schemas)}")
        await wait_ready(client)
        started = time.monotonic()
        await scenario(Session(client, vault, schemas, report), vault)
        report["scenario_ms"] = round((time.monotonic() - started) * 1000)
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[3] not in ("auto", "legacy"):
        fail(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
