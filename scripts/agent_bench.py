#!/usr/bin/env python3
"""What an agent spends to get real work done in a vault, per MCP server.

Eighteen tasks people ask an agent to do in their notes, each run on a fresh
copy of a fixed vault (the example vault plus a few generated notes) through
the official MCP Python SDK, by a call script written from that server's tool
descriptions only: the shortest correct sequence a careful agent reading them
could make. Each run records the calls, the bytes of the requests (each call's
tool name and arguments as JSON), the bytes of the results (the text content
the model reads: Zed passes only that), and whether the answer was right,
checked on what the calls returned and on the files. Prints one table: task ×
server, plus each server's tool-definition size (the JSON of each tool's name,
description and input schema, as json.dumps writes it) and handshake time.

Servers: Weft always; `iwec` (IWE) and `obsidian-mcp` when installed
(`cargo install iwec obsidian-mcp`), skipped with a message otherwise. A task
a server has no script for counts as failed for it.

Usage: scripts/agent_bench.py [--weft PATH] [--json] [--only TASK] [--weft-only]
Needs the Python `mcp` package (scripts/test.sh installs it in its venv:
~/.cache/weft/venv/bin/python scripts/agent_bench.py).
"""

import argparse
import asyncio
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vault"
TODAY = datetime.date.today().isoformat()


def day(n):
    """The date `n` days from today."""
    return (datetime.date.today() + datetime.timedelta(days=n)).isoformat()


# This week's Monday (ISO weeks, as the Tasks plugin's `this week`).
MONDAY = -datetime.date.today().weekday()
# Checklist tasks in the Tasks plugin's format: due this week (one in the
# Dataview format), next week, last week (overdue), done this week, and a
# recurring chore.
CHORES = f"""# Chores

- [ ] take out the trash 🔁 every week on Sunday 📅 2026-11-01
- [ ] pay the rent ⏫ 📅 {day(MONDAY + 6)}
- [/] book the dentist [due:: {day(MONDAY)}]
- [ ] renew passport 📅 {day(MONDAY + 9)}
- [ ] return library books 📅 {day(MONDAY - 3)}
- [x] buy stamps 📅 {day(MONDAY + 2)} ✅ {day(MONDAY)}
"""
DEADLINE = 120.0


# ---------------------------------------------------------------- the vault


def handbook():
    parts = ["# Handbook\n\nHow the team works.\n"]
    for section, marker in [
        ("Setup", "SETUP-MARKER"),
        ("Deployment", "DEPLOY-MARKER"),
        ("Troubleshooting", "TROUBLE-MARKER"),
        ("Glossary", "GLOSSARY-MARKER"),
    ]:
        parts.append(f"\n## {section}\n\n{marker}: the first thing to know about {section.lower()}.\n")
        for i in range(40):
            parts.append(
                f"\n{i + 1}. A {section.lower()} step with enough words to make the note long: "
                f"check the inputs, record what was done, and link the result to [[Weft]].\n"
            )
    return "".join(parts)


TOPICS = {
    "Tidal power": "The Severn barrage would generate electricity from the tides of the estuary, "
    "turning the rise and fall of the sea into a steady source of energy.",
    "Wind farms": "Turbines on the hills turn moving air into power when the wind blows.",
    "Solar roofs": "Panels on houses capture sunlight during the day.",
    "Bread baking": "A sourdough starter needs flour, water and patience.",
    "Bird watching": "Herons wait still at the edge of the water.",
    "Chess openings": "The Sicilian defence answers e4 with c5.",
}


TRACKED = [
    ("Loom", "active", "2026-12-10"),
    ("Shuttle", "done", "2026-11-01"),
    ("Spindle", "active", "2027-02-01"),
    ("Bobbin", "paused", "2026-12-20"),
    ("Heddle", "active", "2026-12-24"),
]

TRACKER_BASE = """filters: 'type == "project"'
views:
  - type: table
    name: Active
    filters: 'status == "active"'
    order: [file.name, due]
    sort: [{property: due, direction: ASC}]
"""


def make_vault(dest: Path):
    """The example vault, plus a long note, topic notes, a daily template
    and notes of known age."""
    shutil.copytree(EXAMPLE, dest)
    (dest / "Guides").mkdir()
    (dest / "Guides" / "Handbook.md").write_text(handbook())
    (dest / "Topics").mkdir()
    for title, text in TOPICS.items():
        tag = "topic/energy" if title in ("Tidal power", "Wind farms", "Solar roofs") else "topic/other"
        (dest / "Topics" / f"{title}.md").write_text(f"---\ntags: [{tag}]\n---\n# {title}\n\n{text}\n")
    (dest / "Templates").mkdir()
    (dest / "Templates" / "Daily.md").write_text("# {{date}}\n\n## Tasks\n\n## Log\n")
    (dest / ".weft.toml").write_text('[daily]\nfolder = "Daily"\ntemplate = "Templates/Daily"\n')
    (dest / "Projects" / "Archive idea.md").write_text("---\ntags: [project]\n---\n# Archive idea\n\nOld.\n")
    # Tracked projects with typed properties, and a base over them.
    (dest / "Tracker").mkdir()
    for name, status, due in TRACKED:
        (dest / "Tracker" / f"{name}.md").write_text(
            f"---\ntype: project\nstatus: {status}\ndue: {due}\n---\n# {name}\n"
        )
    (dest / "Tracker.base").write_text(TRACKER_BASE)
    (dest / "Chores.md").write_text(CHORES)
    # Ages: the archived idea is old; the other project notes are recent.
    old = time.time() - 40 * 86400
    os.utime(dest / "Projects" / "Archive idea.md", (old, old))
    for path in dest.rglob("*.md"):
        if path.name != "Archive idea.md" and "Projects" not in path.parts:
            os.utime(path, (old, old))


# -------------------------------------------------------------- measuring


class Run:
    """One task on one server: every call counted."""

    def __init__(self, client):
        self.client = client
        self.calls = 0
        self.request_bytes = 0
        self.result_bytes = 0
        self.texts = []

    async def call(self, tool, args):
        self.calls += 1
        self.request_bytes += len(json.dumps({"name": tool, "arguments": args}).encode())
        result = await self.client.call_tool(tool, args)
        text = "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")
        self.result_bytes += len(text.encode())
        self.texts.append(text)
        return result, text

    @property
    def read(self):
        """Everything the agent read."""
        return "\n".join(self.texts)


def definitions_bytes(tools):
    total = 0
    for tool in tools:
        d = tool.model_dump(by_alias=True, exclude_none=True)
        total += len(json.dumps({"name": d["name"], "description": d.get("description", ""), "inputSchema": d["inputSchema"]}))
    return total


# ------------------------------------------------------------------ tasks
#
# Each task: what the user asks, a check (on what the agent read and on the
# vault), and per server the calls a careful agent makes.


def lines_under(text, heading):
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("#"):
            inside = line.lstrip("#").strip() == heading
            continue
        if inside:
            out.append(line)
    return out


def has_all(text, *words):
    return all(w in text for w in words)


async def weft_history_undo(run, vault):
    # What changed today (the vault's versions), what the change was, then
    # back to the version before it.
    result, _ = await run.call("note_history", {"since": "today"})
    versions = (result.structured_content or {}).get("versions") or []
    if len(versions) < 2:
        return
    before = versions[1]["id"]
    await run.call("diff_note", {"path": "Projects/Roadmap", "from": before})
    await run.call("restore_note", {"path": "Projects/Roadmap", "version": before})


async def read_each_tracked(run, listing_tool, listing_args, read_tool, key, path_of):
    """A server without Bases: list the folder, read every note, and let
    the agent filter the frontmatter itself."""
    _, text = await run.call(listing_tool, listing_args)
    for entry in json.loads(text):
        item = path_of(entry)
        if item and "Tracker/" in item:
            await run.call(read_tool, {key: [item] if read_tool == "iwe_retrieve" else item})


# IWE (`iwec`): documents by key (path without .md); reads whole documents
# (no section read), no history, no dates.


async def iwec_daily(run, vault):
    await run.call("iwe_retrieve", {"keys": ["Templates/Daily"]})
    await run.call(
        "iwe_create",
        {"key": f"Daily/{TODAY}", "content": f"# {TODAY}\n\n## Tasks\n\n## Log\n\n- called the printer\n"},
    )


async def iwec_folder_property(run, vault):
    _, text = await run.call("iwe_find", {"project": "$key"})
    keys = [d["key"] for d in json.loads(text) if d["key"].startswith("Projects/")]
    for key in keys:
        _, doc = await run.call("iwe_retrieve", {"keys": [key]})
        content = json.loads(doc)[0]["content"]
        if content.startswith("---\n"):
            content = "---\nreviewed: true\n" + content[4:]
        else:
            content = "---\nreviewed: true\n---\n" + content
        await run.call("iwe_update", {"key": key, "content": content})


async def iwec_heading_links(run, vault):
    _, text = await run.call("iwe_find", {"refs_to": "Projects/Weft", "project": "$key"})
    keys = [d["key"] for d in json.loads(text)]
    await run.call("iwe_retrieve", {"keys": keys})


# obsidian-mcp: notes by path with .md; no history; moves leave links.


async def obsidian_daily(run, vault):
    await run.call("note_read", {"path": "Templates/Daily.md"})
    await run.call(
        "note_create",
        {"path": f"Daily/{TODAY}.md", "content": f"# {TODAY}\n\n## Tasks\n\n## Log\n\n- called the printer\n"},
    )


async def obsidian_rename(run, vault):
    # note_move does not say it rewrites links: find them first, then fix
    # each linking note by hand.
    _, text = await run.call("wikilinks", {"query": "backlinks", "path": "People/Ada Lovelace.md"})
    sources = [entry["source_path"] for entry in json.loads(text)]
    await run.call("note_move", {"from": "People/Ada Lovelace.md", "to": "People/Augusta Ada King.md"})
    for source in sources:
        path = "People/Augusta Ada King.md" if source == "People/Ada Lovelace.md" else source
        _, content = await run.call("note_read", {"path": path})
        fixed = content.replace("[[Ada Lovelace", "[[Augusta Ada King").replace(
            "People/Ada%20Lovelace.md", "People/Augusta%20Ada%20King.md"
        )
        await run.call("note_write", {"path": path, "content": fixed})


async def obsidian_neighbourhood(run, vault):
    seen, frontier = {"Projects/Roadmap.md"}, ["Projects/Roadmap.md"]
    for _ in range(2):
        following = []
        for path in frontier:
            for query, key in (("backlinks", "source_path"), ("outgoing", "resolved_path")):
                _, text = await run.call("wikilinks", {"query": query, "path": path})
                try:
                    entries = json.loads(text)
                except ValueError:
                    continue
                for entry in entries if isinstance(entries, list) else []:
                    found = entry.get(key) if isinstance(entry, dict) else None
                    if found and found not in seen:
                        seen.add(found)
                        following.append(found)
        frontier = following


async def obsidian_folder_property(run, vault):
    _, text = await run.call("vault_list", {"path": "Projects"})
    for path in json.loads(text):
        if path.endswith(".md"):
            await run.call("frontmatter", {"action": "set", "path": path, "key": "reviewed", "value": True})


def before_history(vault):
    """An outside edit today, for the agent to find and undo."""
    roadmap = vault / "Projects" / "Roadmap.md"
    roadmap.write_text(roadmap.read_text() + "\nMISTAKE: pasted by accident.\n")


TASKS = [
    {
        "name": "backlinks",
        "ask": "What links to the Weft note?",
        "check": lambda run, vault: has_all(run.read, "Welcome", "Roadmap", "2026-11-22"),
        "weft": [("get_links", {"path": "Weft", "direction": "in", "format": "names"})],
        "iwec": [("iwe_find", {"refs_to": "Projects/Weft", "project": "$key,$title"})],
        "obsidian-mcp": [("wikilinks", {"query": "backlinks", "path": "Projects/Weft.md"})],
    },
    {
        "name": "read a section",
        "ask": "What does the handbook say about deployment?",
        "check": lambda run, vault: "DEPLOY-MARKER" in run.read,
        "weft": [("read_note", {"path": "Handbook", "section": "Deployment"})],
        "iwec": [("iwe_retrieve", {"keys": ["Guides/Handbook"]})],
        "obsidian-mcp": [("note_read", {"path": "Guides/Handbook.md"})],
    },
    {
        "name": "daily bullet",
        "ask": "Add 'called the printer' under Log in today's daily note.",
        "check": lambda run, vault: (vault / "Daily" / f"{TODAY}.md").exists()
        and any("called the printer" in l for l in lines_under((vault / "Daily" / f"{TODAY}.md").read_text(), "Log")),
        "weft": [("daily_note", {"op": "append_section", "section": "Log", "content": "- called the printer"})],
        "iwec": iwec_daily,
        "obsidian-mcp": obsidian_daily,
    },
    {
        "name": "rename + links",
        "ask": "Rename Ada Lovelace to Augusta Ada King and fix every link.",
        "check": lambda run, vault: (vault / "People" / "Augusta Ada King.md").exists()
        and not (vault / "People" / "Ada Lovelace.md").exists()
        and not any(
            re.search(r"\[\[Ada Lovelace|Ada%20Lovelace\.md", p.read_text())
            for p in vault.rglob("*.md")
        ),
        "weft": [("move_note", {"path": "People/Ada Lovelace", "new_path": "People/Augusta Ada King"})],
        "iwec": [("iwe_rename", {"old_key": "People/Ada Lovelace", "new_key": "People/Augusta Ada King"})],
        "obsidian-mcp": obsidian_rename,
    },
    {
        "name": "undo today's change",
        "ask": "What changed today? Undo the change to the roadmap.",
        "before": before_history,
        "check": lambda run, vault: "MISTAKE" in run.read
        and "MISTAKE" not in (vault / "Projects" / "Roadmap.md").read_text(),
        "weft": weft_history_undo,
    },
    {
        "name": "broken links in folder",
        "ask": "Which links under Projects/ are broken?",
        # [[Someday]] in Projects/Weft.md; the broken heading link is in
        # Welcome.md, outside the folder.
        "check": lambda run, vault: "Someday" in run.read and "No such heading" not in run.read,
        "weft": [("check_vault", {"path_prefix": "Projects"})],
        "iwec": [("iwe_stats", {})],
        "obsidian-mcp": [("wikilinks", {"query": "broken", "path": "Projects"})],
    },
    {
        "name": "neighbourhood depth 2",
        "ask": "Show the notes within two links of the roadmap.",
        "check": lambda run, vault: has_all(run.read, "Welcome", "Weft", "Ada Lovelace"),
        "weft": [("get_links", {"path": "Roadmap", "depth": 2})],
        "iwec": [("iwe_retrieve", {"keys": ["Projects/Roadmap"], "expand": {"references": 2, "referencedBy": 2}, "max_document_tokens": 1})],
        "obsidian-mcp": obsidian_neighbourhood,
    },
    {
        "name": "topic passage",
        "ask": "Find my note about tidal energy and quote what it says.",
        "check": lambda run, vault: "Severn barrage" in run.read,
        "weft": [("get_context", {"query": "tidal energy", "top_k": 1})],
        "iwec": [("iwe_retrieve", {"search": "tidal energy", "limit": 1})],
        "obsidian-mcp": [("search_text", {"query": "tidal energy", "max_results": 1})],
    },
    {
        "name": "tag + this week",
        "ask": "Which #project notes changed this week?",
        "check": lambda run, vault: has_all(run.read, "Weft", "Roadmap") and "Archive idea" not in run.read,
        "weft": [("list_notes", {"tags": ["project"], "modified_since": "7d"})],
        "obsidian-mcp": [("vault_list", {"recursive": True, "include_metadata": True})],
    },
    {
        "name": "new linked note",
        "ask": "Create a note 'Bridge' linking the Weft note and Ada Lovelace.",
        "check": lambda run, vault: (vault / "Bridge.md").exists()
        and has_all((vault / "Bridge.md").read_text(), "[[Weft]]", "[[Ada Lovelace]]"),
        "weft": [("write_note", {"path": "Bridge", "content": "# Bridge\n\nLinks [[Weft]] and [[Ada Lovelace]].\n"})],
        "iwec": [("iwe_create", {"key": "Bridge", "content": "# Bridge\n\nLinks [[Weft]] and [[Ada Lovelace]].\n"})],
        "obsidian-mcp": [("note_create", {"path": "Bridge.md", "content": "# Bridge\n\nLinks [[Weft]] and [[Ada Lovelace]].\n"})],
    },
    {
        "name": "property on a folder",
        "ask": "Mark every note in Projects/ as reviewed.",
        "check": lambda run, vault: all(
            "reviewed: true" in p.read_text() for p in (vault / "Projects").glob("*.md")
        ),
        "weft": [("update_frontmatter", {"where": "folder:Projects", "set": {"reviewed": True}})],
        "iwec": iwec_folder_property,
        "obsidian-mcp": obsidian_folder_property,
    },
    {
        "name": "heading linked from",
        "ask": "Where is the Goals heading of Weft linked from?",
        "check": lambda run, vault: has_all(run.read, "Welcome", "Roadmap"),
        "weft": [("get_links", {"path": "Weft#Goals", "direction": "in"})],
        "iwec": iwec_heading_links,
        "obsidian-mcp": [("wikilinks", {"query": "backlinks", "path": "Projects/Weft.md"})],
    },
    {
        "name": "active projects due soon",
        "ask": "Which active projects are due before 2027-01-01?",
        "check": lambda run, vault: has_all(run.read, "Loom", "Heddle")
        and "Spindle" not in run.read
        and "Bobbin" not in run.read,
        "weft": [
            (
                "query_notes",
                {
                    "filter": 'type == "project" && status == "active" && due < date("2027-01-01")',
                    "columns": ["file.name", "due"],
                    "sort": "due",
                },
            )
        ],
        "iwec": lambda run, vault: read_each_tracked(
            run, "iwe_find", {"project": "$key"}, "iwe_retrieve", "keys", lambda d: d.get("key")
        ),
        "obsidian-mcp": lambda run, vault: read_each_tracked(
            run, "vault_list", {"path": "Tracker"}, "note_read", "path", lambda p: f"Tracker/{p}" if p.endswith(".md") else None
        ),
    },
    {
        "name": "count per status",
        "ask": "How many tracked projects are in each status?",
        "check": lambda run, vault: re.search(r"active\D{0,20}3", run.read) is not None
        and re.search(r"done\D{0,20}1", run.read) is not None,
        "weft": [("query_notes", {"filter": 'type == "project"', "group_by": "status", "columns": ["file.name"]})],
        "iwec": lambda run, vault: read_each_tracked(
            run, "iwe_find", {"project": "$key"}, "iwe_retrieve", "keys", lambda d: d.get("key")
        ),
        "obsidian-mcp": lambda run, vault: read_each_tracked(
            run, "vault_list", {"path": "Tracker"}, "note_read", "path", lambda p: f"Tracker/{p}" if p.endswith(".md") else None
        ),
    },
    {
        "name": "a base's view",
        "ask": "Show the Active view of Tracker.base.",
        "check": lambda run, vault: run.read.find("Loom") < run.read.find("Heddle") < run.read.find("Spindle")
        and run.read.find("Loom") >= 0
        and "Bobbin" not in run.read,
        "weft": [("query_notes", {"base": "Tracker.base", "view": "Active"})],
    },
    {
        "name": "tasks due this week",
        "ask": "What's still due this week?",
        "check": lambda run, vault: has_all(run.read, "pay the rent", "book the dentist")
        and not any(t in run.read for t in ("renew passport", "library books", "buy stamps")),
        "weft": [("list_tasks", {"due": "this week"})],
    },
    {
        "name": "complete a recurring task",
        "ask": "Mark the chore 'take out the trash' as done.",
        "check": lambda run, vault: (vault / "Chores.md").read_text().startswith(
            "# Chores\n\n- [ ] take out the trash 🔁 every week on Sunday 📅 2026-11-08\n"
            f"- [x] take out the trash 🔁 every week on Sunday 📅 2026-11-01 ✅ {TODAY}\n- [ ] pay the rent"
        ),
        "weft": [
            ("list_tasks", {"text": "take out the trash"}),
            ("update_task", {"path": "Chores", "line": 3, "text": "take out the trash", "status": "done"}),
        ],
    },
    {
        "name": "tag rename",
        "ask": "Rename the tag #project to #work everywhere, nested tags too.",
        "check": lambda run, vault: "work/weft" in (vault / "Projects" / "Weft.md").read_text()
        and "#work/weft" in (vault / "Projects" / "Roadmap.md").read_text()
        and not any(
            re.search(r"#project\b|^tags:.*\bproject\b", p.read_text(), re.M) for p in vault.rglob("*.md")
        ),
        "weft": [("update_frontmatter", {"rename": {"#project": "work"}})],
    },
]


# ---------------------------------------------------------------- servers


def servers(weft):
    """Each server found, as a function of (vault, scratch folder) giving
    how to start it on that vault (its caches kept in the scratch folder)."""

    def env(tmp):
        env = dict(os.environ)
        env["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        return env

    found = {
        "weft": lambda vault, tmp: StdioServerParameters(
            command=weft, args=["--no-daemon", "mcp", "--vault", str(vault)], env=env(tmp)
        )
    }
    peers = {"iwec": lambda v: [], "obsidian-mcp": lambda v: [str(v)]}
    for name, args in peers.items():
        path = shutil.which(name)
        if path:
            found[name] = lambda vault, tmp, path=path, args=args: StdioServerParameters(
                command=path, args=args(vault), env=env(tmp), cwd=str(vault)
            )
        else:
            print(f"{name}: not installed (cargo install {name}); skipped", file=sys.stderr)
    return found


async def wait_ready(client):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        result = await client.call_tool("vault_info", {})
        if (result.structured_content or {}).get("status", {}).get("phase") == "ready":
            return
        await asyncio.sleep(0.05)


async def run_task(server, params, task):
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        make_vault(vault)
        async with Client(params(vault, tmp), read_timeout_seconds=DEADLINE) as client:
            if server == "weft":
                await wait_ready(client)
            if task.get("before"):
                # After the server has seen the vault: a change it sees.
                task["before"](vault)
                await asyncio.sleep(1.5)  # past the watcher's debounce
            script = task.get(server)
            run = Run(client)
            if script is None:
                return {"calls": 0, "request_bytes": 0, "result_bytes": 0, "ok": False, "why": "no script"}
            try:
                if callable(script):
                    await script(run, vault)
                else:
                    for tool, args in script:
                        await run.call(tool, args)
                ok = bool(task["check"](run, vault))
            except Exception as error:  # a script that breaks is a failed task
                print(f"{server} / {task['name']}: {error!r}", file=sys.stderr)
                ok = False
            return {"calls": run.calls, "request_bytes": run.request_bytes, "result_bytes": run.result_bytes, "ok": ok}


async def handshake(params_fn):
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        make_vault(vault)
        params = params_fn(vault, tmp)
        start = time.monotonic()
        async with Client(params, read_timeout_seconds=DEADLINE) as client:
            ms = (time.monotonic() - start) * 1000
            tools = (await client.list_tools()).tools
            return {"handshake_ms": round(ms, 1), "tools": len(tools), "definitions_bytes": definitions_bytes(tools)}


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weft", default=str(ROOT / "target" / "release" / "weft"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("--weft-only", action="store_true", help="leave the peers out")
    args = parser.parse_args()
    results = {}
    found = servers(args.weft)
    if args.weft_only:
        found = {"weft": found["weft"]}
    for server, params in found.items():
        results[server] = {"info": await handshake(params), "tasks": {}}
        for task in TASKS:
            if args.only and task["name"] != args.only:
                continue
            results[server]["tasks"][task["name"]] = await run_task(server, params, task)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    names = list(found)
    print("| task | " + " | ".join(f"{n}: calls / request B / result B" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for task in TASKS:
        if args.only and task["name"] != args.only:
            continue
        cells = []
        for n in names:
            r = results[n]["tasks"][task["name"]]
            cells.append(f"{r['calls']} / {r['request_bytes']} / {r['result_bytes']} {'✓' if r['ok'] else '✗'}")
        print(f"| {task['name']} | " + " | ".join(cells) + " |")
    for n in names:
        info = results[n]["info"]
        print(f"{n}: {info['tools']} tools, definitions {info['definitions_bytes']} bytes, handshake {info['handshake_ms']} ms")
    if not all(r["ok"] for r in results["weft"]["tasks"].values()):
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
