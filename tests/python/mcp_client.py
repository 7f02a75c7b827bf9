"""Drives `weft mcp` with the official MCP Python SDK, as an agent's client would.

Usage: mcp_client.py WEFT_BINARY VAULT_DIR MODE
  MODE is `auto` (the SDK's default: `server/discover` first, protocol
  2026-07-28) or `legacy` (the `initialize` handshake).

Every read tool is called on the vault the Rust test wrote; each successful
result's structured content is validated against the tool's output schema
(the SDK does it too; this script does it again with jsonschema and reports
the schema errors itself). Prompts, completion, resources and a resource
subscription are exercised. Prints one JSON object with what it saw, and
exits non-zero with the reason on the first failure.
"""

import asyncio
import json
import os
import sys
import time

import jsonschema
import mcp.types as types
from mcp import Client, StdioServerParameters
from mcp.client.subscriptions import ResourceUpdated

DEADLINE = 60.0

WRITE_TOOLS = {"write_note", "edit_note", "update_frontmatter", "update_task", "move_note", "delete_note", "daily_note"}

TOOL_CALLS = [
    ("read_note", {"path": "Hub"}),
    ("read_note", {"note": "Centre", "view": "outline"}),
    ("read_note", {"path": "Hub", "section": "The Hub::Details"}),
    ("read_note", {"paths": ["Hub", "x/Plan"], "view": "metadata"}),
    ("resolve_note", {"query": "Plan"}),
    ("list_notes", {}),
    ("list_notes", {"folder": "projects", "format": "tree"}),
    ("list_notes", {"sort": "modified", "modified_since": "30d", "limit": 3}),
    ("search_notes", {"query": "tantivy -title:plan"}),
    ("search_notes", {"query": "tag:project", "sort": "alpha"}),
    ("search_notes", {"backlinks_to": "Hub", "frontmatter": {"part_of": "Hub"}}),
    ("search_notes", {"query": "plan", "mode": "name"}),
    ("get_context", {"query": "tantivy search", "max_chars": 800}),
    ("get_context", {"around": "Hub", "depth": 1}),
    ("get_links", {"path": "Hub"}),
    ("get_links", {"path": "Ghost", "direction": "in"}),
    ("get_links", {"path": "Hub", "format": "graph", "depth": 2}),
    ("related_notes", {"path": "projects/weft"}),
    ("list_tags", {}),
    ("list_tags", {"facet": "keys"}),
    ("check_vault", {}),
    ("query_notes", {"base": "Projects.base"}),
    ("query_notes", {"filter": 'file.hasTag("project") && status == "active"', "columns": ["file.name", "status"]}),
    ("list_tasks", {"status": "any", "group_by": "status"}),
    ("editor_state", {}),
    ("vault_info", {}),
]

ERROR_CALLS = [
    ("read_note", {"path": "Hubb"}, "Did you mean"),
    ("read_note", {"paht": "Hub"}, "Did you mean `path`?"),
    ("search_notes", {}, "at least one criterion"),
    ("search_notes", {"query": '"unclosed'}, "unclosed quote"),
    ("get_links", {"path": "Hub", "direction": "sideways"}, "expected one of"),
    # Issue 39: a query of symbols only names no note, in either tool.
    ("search_notes", {"query": "- [ ]"}, "nothing to search for"),
    ("get_context", {"query": "???"}, "nothing to search for"),
    # A property compared with a date that is none says so.
    ("search_notes", {"query": "part_of:<2026-13-01"}, "cannot read `2026-13-01` as a date"),
    # Bases: an unknown function is named, never an empty table.
    ("query_notes", {"filter": "nope(status)"}, "unknown function `nope`"),
    ("query_notes", {"base": "Projects.base", "view": "Nope"}, "no view named `Nope`"),
    # Tasks: a day not understood is named, never an empty list.
    ("list_tasks", {"due": "before soon"}, "cannot read `soon`"),
]

# Issue 39: THE note filter answers alike in every tool and mode — the same
# notes for the same filter, however the folder is written, a [[link]]
# property compared by where it leads.
ALIKE_CALLS = [
    ("search_notes", {"frontmatter": {"part_of": "Hub"}}),
    ("search_notes", {"query": "projects", "mode": "name", "frontmatter": {"part_of": "Hub"}}),
    ("search_notes", {"query": "part_of:Hub"}),
    ("search_notes", {"query": 'part_of:"[[Hub]]"', "sort": "alpha"}),
    ("search_notes", {"path_prefix": "projects\\", "frontmatter": {"part_of": "*"}}),
    ("get_context", {"query": "part_of:Hub", "top_k": 10}),
]
ALIKE_PATHS = ["projects", "projects/weft"]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def wait_ready(client):
    start = time.monotonic()
    while True:
        result = await client.call_tool("vault_info", {})
        phase = result.structured_content["status"]["phase"]
        if phase == "ready":
            return
        if phase == "failed":
            fail(f"indexing failed: {result.structured_content['status']}")
        if time.monotonic() - start > DEADLINE:
            fail(f"the vault was not indexed within {DEADLINE} s (phase {phase})")
        await asyncio.sleep(0.1)


async def main(weft, vault, mode):
    report = {"mode": mode, "calls": [], "errors": [], "prompts": [], "resources": []}
    legacy_updates = asyncio.Queue()

    async def on_message(message):
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification):
            await legacy_updates.put(root.params.uri)

    # The SDK passes only a few variables to servers by default; the test's
    # sandbox (its runtime folder, where the daemon's socket is) must reach
    # `weft mcp`.
    params = StdioServerParameters(command=weft, args=["mcp", "--vault", vault], env=dict(os.environ))
    started = time.monotonic()
    async with Client(params, mode=mode, message_handler=on_message, read_timeout_seconds=DEADLINE) as client:
        report["handshake_ms"] = round((time.monotonic() - started) * 1000)
        report["protocol_version"] = client.protocol_version
        info = client.server_info
        if info is None or info.name != "weft":
            fail(f"server info names {info!r}, not weft")
        report["server"] = {"name": info.name, "version": info.version}
        if "expected_sha256" not in (client.instructions or ""):
            fail(f"instructions lack the essentials: {client.instructions!r}")

        tools = (await client.list_tools()).tools
        names = sorted(t.name for t in tools)
        report["tools"] = names
        schemas = {}
        for tool in tools:
            if tool.output_schema is None:
                fail(f"{tool.name} declares no output schema")
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            a = tool.annotations
            if tool.name in WRITE_TOOLS or tool.name == "restore_note":
                if not (a and a.read_only_hint is False and a.open_world_hint is False):
                    fail(f"{tool.name}: annotations {a!r}")
            elif not (a and a.read_only_hint and a.open_world_hint is False and a.destructive_hint is False):
                fail(f"{tool.name}: annotations {a!r}")
            schemas[tool.name] = tool.output_schema

        await wait_ready(client)
        for name, args in TOOL_CALLS:
            result = await client.call_tool(name, args)
            text = text_of(result)
            if result.is_error:
                fail(f"{name} {args} failed: {text}")
            validator = jsonschema.Draft202012Validator(schemas[name])
            problems = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(result.structured_content)]
            if problems:
                fail(f"{name} {args}: structured content does not match the output schema: {problems}")
            if not text.strip():
                fail(f"{name} {args}: empty text")
            report["calls"].append({"tool": name, "args": args, "chars": len(text)})

        # A base's view: its rows in its sort, cells typed (null: no value).
        result = await client.call_tool("query_notes", {"base": "Projects.base", "view": "All"})
        rows = result.structured_content["rows"]
        if rows != [["A", None], ["Hub", "active"], ["weft", None]]:
            fail(f"query_notes rows: {rows}")
        report["base_rows"] = rows

        # A Tasks plugin query, as a ```tasks block would hold it: open
        # recurring tasks grouped by file, explained.
        result = await client.call_tool(
            "list_tasks", {"query": "not done\n(is recurring) AND (due before 2100-01-01)\ngroup by filename\nexplain"}
        )
        if result.is_error:
            fail(f"list_tasks query: {text_of(result)}")
        groups = result.structured_content["groups"]
        if [g["key"] for g in groups] != ["[[Weekly]]"] or [t["line"] for t in groups[0]["tasks"]] != [3]:
            fail(f"list_tasks query groups: {groups}")
        if "due date is before 2100-01-01 (Friday 1st January 2100)" not in result.structured_content["explanation"]:
            fail(f"list_tasks explanation: {result.structured_content}")
        result = await client.call_tool("list_tasks", {"query": "not done\nsort by function task.urgency"})
        if not result.is_error or "line 2" not in text_of(result) or "JavaScript" not in text_of(result):
            fail(f"list_tasks JavaScript query: {text_of(result)}")
        result = await client.call_tool("list_tasks", {"query_note": "chores/Weekly.md"})
        if not result.is_error or "has no ```tasks block" not in text_of(result):
            fail(f"list_tasks query_note: {text_of(result)}")
        report["task_query_groups"] = [g["key"] for g in groups]

        # Tasks: the agent finds a recurring task by its due date and
        # completes it; the note gets the plugin's next copy above it.
        result = await client.call_tool("list_tasks", {"due": "before 2100-01-01", "recurring": True})
        task = result.structured_content["groups"][0]["tasks"][0]
        if (task["path"], task["line"], task["due"], task["recurrence"]) != ("chores/Weekly.md", 3, "2021-04-25", "every Sunday"):
            fail(f"list_tasks: {task}")
        result = await client.call_tool("update_task", {"path": task["path"], "line": task["line"], "text": "trash", "status": "done"})
        if result.is_error:
            fail(f"update_task: {text_of(result)}")
        lines = [line["text"] for line in result.structured_content["lines"]]
        if lines[0] != "- [ ] take out the trash 🔁 every week on Sunday 📅 2021-05-02" or not lines[1].startswith(
            "- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ "
        ):
            fail(f"update_task lines: {lines}")
        with open(os.path.join(vault, "chores", "Weekly.md"), encoding="utf-8") as f:
            if f.read() != "# Weekly\n\n" + "\n".join(lines) + "\n- [ ] water the plants\n":
                fail("the note is not the two lines and the rest unchanged")
        report["task_lines"] = lines

        for name, args, expect in ERROR_CALLS:
            result = await client.call_tool(name, args)
            text = text_of(result)
            if not result.is_error or expect not in text:
                fail(f"{name} {args}: expected a tool error containing {expect!r}, got is_error={result.is_error}: {text}")
            report["errors"].append({"tool": name, "message": text.splitlines()[0]})

        for name, args in ALIKE_CALLS:
            result = await client.call_tool(name, args)
            if result.is_error:
                fail(f"{name} {args} failed: {text_of(result)}")
            content = result.structured_content
            found = sorted(h["path"] for h in content.get("hits", content.get("notes", [])))
            if found != ALIKE_PATHS:
                fail(f"{name} {args}: found {found}, not {ALIKE_PATHS}")

        prompts = (await client.list_prompts()).prompts
        names = [p.name for p in prompts]
        if names != ["backlinks", "graph", "related", "daily", "context", "recent", "base", "tasks"]:
            fail(f"prompts: {names}")
        for p in prompts:
            if len(p.arguments or []) > 1:
                fail(f"prompt {p.name} takes {len(p.arguments)} arguments")
        report["prompt_texts"] = {}
        for name, args in [("backlinks", {"note": "Hub"}), ("graph", {"note": "Hub"}), ("related", {"note": "projects/weft"}), ("context", {"topic": "tantivy"}), ("recent", {}), ("base", {"base": "Projects.base#All"})]:
            result = await client.get_prompt(name, args)
            message = result.messages[0]
            if message.role != "user" or message.content.type != "text" or not message.content.text:
                fail(f"prompt {name}: {result!r}")
            report["prompts"].append(name)
            report["prompt_texts"][name] = message.content.text
        completion = await client.complete(types.PromptReference(name="backlinks"), {"name": "note", "value": "pla"})
        if completion.completion.values[:2] != ["x/Plan", "y/Plan"]:
            fail(f"completion: {completion.completion.values}")

        resources = [r.uri for r in (await client.list_resources()).resources]
        if resources != ["weft://index", "weft://stats", "weft://tags", "weft://editor", "weft://guide"]:
            fail(f"resources: {resources}")
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        if templates != ["weft://note/{+path}"]:
            fail(f"templates: {templates}")
        for uri in ["weft://note/Hub", "weft://note/notes/Caf%C3%A9%20notes/Cr%C3%A8me", "weft://stats", "weft://index", "weft://tags", "weft://editor", "weft://guide"]:
            result = await client.read_resource(uri)
            if not result.contents or not result.contents[0].text:
                fail(f"resource {uri} is empty")
            report["resources"].append(uri)
        stats = json.loads((await client.read_resource("weft://stats")).contents[0].text)
        report["notes"] = stats["totalNotes"]

        # A subscribed note that changes on disk sends resources/updated.
        hub = os.path.join(vault, "Hub.md")
        if mode == "legacy":
            await client.subscribe_resource("weft://note/Hub")
            with open(hub, "a", encoding="utf-8") as f:
                f.write("\nAppended by the Python client: zeppelin.\n")
            try:
                uri = await asyncio.wait_for(legacy_updates.get(), DEADLINE)
            except TimeoutError:
                fail("no resources/updated after the subscribed note changed")
            report["updated"] = uri
        else:
            async with client.listen(resource_subscriptions=["weft://note/Hub"]) as subscription:
                # The server starts listening just after acknowledging; a change
                # in between is not replayed, so the change repeats until seen.
                events = subscription.__aiter__()
                start = time.monotonic()
                while True:
                    with open(hub, "a", encoding="utf-8") as f:
                        f.write("\nAppended by the Python client: zeppelin.\n")
                    try:
                        event = await asyncio.wait_for(events.__anext__(), 3)
                    except TimeoutError:
                        if time.monotonic() - start > DEADLINE:
                            fail("no resources/updated on the listen stream after the subscribed note changed")
                        continue
                    if isinstance(event, ResourceUpdated):
                        report["updated"] = event.uri
                        break
        if report["updated"] != "weft://note/Hub":
            fail(f"updated {report['updated']}")

        # The full-text index follows the change.
        start = time.monotonic()
        while True:
            result = await client.call_tool("search_notes", {"query": "zeppelin"})
            if result.structured_content["total"] == 1:
                break
            if time.monotonic() - start > DEADLINE:
                fail("the appended word never became searchable")
            await asyncio.sleep(0.1)

    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[3] not in ("auto", "legacy"):
        fail(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
