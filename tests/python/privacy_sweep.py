"""A denied note leaks through no answer an agent can get, driven with the
official MCP Python SDK against the built `weft mcp`.

Usage: privacy_sweep.py WEFT_BINARY VAULT_DIR SECRET...

The vault (written by the Rust test) denies `private/` to the agent; every
SECRET word appears in the denied folder only. Every tool the server lists
must be called here at least once (so a tool added later is swept too),
then every prompt, resource and completion. Prints a JSON report; exits
non-zero with every leak found.
"""

import asyncio
import json
import os
import sys
import time

import mcp.types as types
from mcp import Client, StdioServerParameters

DEADLINE = 60.0

CALLS = [
    ("read_note", {"path": "Hub"}),
    ("read_note", {"paths": ["Hub", "Plan", "Missing"]}),
    ("read_note", {"path": "Plan", "view": "outline"}),
    ("read_note", {"path": "Wmbat Plans"}),
    ("resolve_note", {"query": "wom"}),
    ("resolve_note", {"query": "Side"}),
    ("list_notes", {"recursive": True}),
    ("list_notes", {"folder": "private"}),
    ("search_notes", {"query": "alpha"}),
    ("search_notes", {"mode": "name", "query": "w"}),
    ("search_notes", {"tags_any": ["shared"]}),
    ("get_context", {"query": "alpha"}),
    ("get_context", {"around": "Plan", "depth": 2}),
    ("get_links", {"path": "Plan", "direction": "both"}),
    ("get_links", {"path": "Hub", "format": "graph", "depth": 3}),
    ("related_notes", {"path": "Hub"}),
    ("query_notes", {"filter": "true", "columns": ["file.path", "file.tags", "file.backlinks", "file.links", "tags"]}),
    ("query_notes", {"base": "private/x.base"}),
    ("list_tasks", {"status": "any", "group_by": "folder"}),
    ("update_task", {"path": "Side Door", "text": "feed", "status": "done", "dry_run": True}),
    ("update_task", {"path": "Hub", "text": "feed", "status": "done", "dry_run": True}),
    ("list_tags", {}),
    ("list_tags", {"facet": "keys"}),
    ("check_vault", {}),
    ("editor_state", {}),
    ("vault_info", {}),
    ("note_history", {}),
    ("note_history", {"path": "Hub"}),
    ("daily_note", {"op": "read"}),
    ("write_note", {"path": "new", "content": "# New\nAlpha [[Hub]].\n", "dry_run": True}),
    ("edit_note", {"path": "Hub", "ops": [{"op": "append", "text": "\nMore.\n"}], "dry_run": True}),
    ("update_frontmatter", {"path": "Hub", "add_tags": ["x"], "dry_run": True}),
    ("update_frontmatter", {"where": "tag:shared", "set": {"x": 1}, "dry_run": True}),
    ("update_frontmatter", {"rename": {"#shared": "common"}, "dry_run": True}),
    ("update_frontmatter", {"rename": {"aliases": "names"}, "dry_run": True}),
    ("move_note", {"path": "Hub", "new_path": "Centre", "dry_run": True}),
    ("delete_note", {"path": "Hub", "dry_run": True}),
    ("restore_note", {"path": "Hub", "version": "HEAD", "dry_run": True}),
    ("diff_note", {"path": "Hub", "from": "HEAD"}),
]

PROMPTS = [
    ("backlinks", {"note": "Hub"}),
    ("graph", {"note": "Plan"}),
    ("related", {"note": "Hub"}),
    ("daily", {}),
    ("context", {"topic": "alpha"}),
    ("context", {}),
    ("recent", {"since": "3650d"}),
]

RESOURCES = ["weft://index", "weft://stats", "weft://tags", "weft://editor", "weft://guide", "weft://note/Plan"]

COMPLETIONS = [
    (types.PromptReference(name="backlinks"), "note", ""),
    (types.PromptReference(name="graph"), "note", "q"),
    (types.PromptReference(name="context"), "topic", ""),
    (types.ResourceTemplateReference(uri="weft://note/{+path}"), "path", ""),
]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


async def main(weft, vault, secrets):
    leaks = []
    seen = 0

    def check(what, answer):
        nonlocal seen
        seen += 1
        lower = answer.lower()
        for secret in secrets:
            if secret in lower:
                leaks.append(f"{what} leaks {secret!r}: {answer[:400]}")

    params = StdioServerParameters(command=weft, args=["mcp", "--vault", vault], env=dict(os.environ))
    async with Client(params, read_timeout_seconds=DEADLINE) as client:
        start = time.monotonic()
        while (await client.call_tool("vault_info", {})).structured_content["status"]["phase"] != "ready":
            if time.monotonic() - start > DEADLINE:
                fail("the vault was not indexed in time")
            await asyncio.sleep(0.1)
        listed = sorted(t.name for t in (await client.list_tools()).tools)
        swept = sorted({name for name, _ in CALLS})
        if listed != swept:
            fail(f"the sweep must call every tool: listed {listed}, swept {swept}")
        for name, args in CALLS:
            result = await client.call_tool(name, args)
            answer = json.dumps([c.model_dump() for c in result.content])
            answer += json.dumps(result.structured_content)
            check(f"{name} {args}", answer)
        for name, args in PROMPTS:
            try:
                answer = (await client.get_prompt(name, args)).model_dump_json()
            except Exception as error:  # an error is an answer too
                answer = str(error)
            check(f"prompt {name} {args}", answer)
        for uri in RESOURCES:
            try:
                answer = (await client.read_resource(uri)).model_dump_json()
            except Exception as error:
                answer = str(error)
            check(f"resource {uri}", answer)
        for ref, argument, value in COMPLETIONS:
            try:
                answer = (await client.complete(ref, {"name": argument, "value": value})).model_dump_json()
            except Exception as error:
                answer = str(error)
            check(f"completion {argument}={value!r}", answer)
    if leaks:
        fail("\n\n".join(leaks))
    print(json.dumps({"answers": seen, "leaks": 0}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], [s.lower() for s in sys.argv[3:]]))
