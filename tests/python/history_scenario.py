""""What did I change today, and undo it": note history driven through the
official MCP Python SDK against the built `weft` binary, as an agent would.

Usage: history_scenario.py WEFT_BINARY VAULT_DIR SCENARIO
  SCENARIO `undo`: outside edits (an editor saving Plan.md twice, deleting
    Old.md) are recorded by the watcher as external versions; the agent
    lists today's changes, diffs them, reads the morning version, restores
    it (dry run first, guarded by expected_sha256) and brings the deleted
    note back. The files on disk are reported for the Rust test to check.
  SCENARIO `start`: starts, waits for the history, and reports its status
    and the vault's versions (for the store-deleted-while-stopped test).

Every successful result's structured content is validated against the
tool's output schema. Prints one JSON object; exits non-zero with the
reason on the first failure.
"""

import asyncio
import json
import os
import sys
import time

import jsonschema
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

DEADLINE = 60.0
# When the scenario started: its versions are "today's" unless it ran past
# midnight.
STARTED = time.time()


def since_today():
    """`since` for the versions this scenario made: "today", as a user asks,
    unless the run crossed local midnight (then its start, in Unix seconds,
    which the server also takes)."""
    if time.localtime(STARTED)[:3] == time.localtime()[:3]:
        return "today"
    return str(int(STARTED) - 60)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


class Agent:
    def __init__(self, client, schemas):
        self.client = client
        self.schemas = schemas
        self.calls = []

    async def ok(self, name, args):
        result = await self.client.call_tool(name, args)
        text = text_of(result)
        if result.is_error:
            fail(f"{name} {args} failed: {text}")
        validator = jsonschema.Draft202012Validator(self.schemas[name])
        problems = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(result.structured_content)]
        if problems:
            fail(f"{name} {args}: structured content does not match the output schema: {problems}")
        self.calls.append(name)
        return text, result.structured_content

    async def err(self, name, args, expect):
        result = await self.client.call_tool(name, args)
        text = text_of(result)
        if not result.is_error or expect not in text:
            fail(f"{name} {args}: expected a tool error containing {expect!r}, got is_error={result.is_error}: {text}")
        self.calls.append(name)
        return text

    async def history_until(self, args, done, what):
        """Polls note_history until `done` holds: the watcher and the
        history's debounce take a moment."""
        start = time.monotonic()
        while True:
            _, out = await self.ok("note_history", args)
            if done(out):
                return out
            if time.monotonic() - start > DEADLINE:
                fail(f"{what}: not seen within {DEADLINE} s: {out}")
            await asyncio.sleep(0.2)


async def wait_ready(agent):
    start = time.monotonic()
    while True:
        _, info = await agent.ok("vault_info", {})
        if info["status"]["phase"] == "ready" and info["history"]["mode"] != "opening":
            return info
        if info["status"]["phase"] == "failed":
            fail(f"indexing failed: {info['status']}")
        if time.monotonic() - start > DEADLINE:
            fail("the vault was not ready in time")
        await asyncio.sleep(0.1)


def write(vault, rel, text):
    """Saves as editors do: a temporary file renamed over the note, so the
    watcher never sees it empty or half written (which would be a version)."""
    tmp = os.path.join(vault, f".{rel}.saving")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(vault, rel))


def read(vault, rel):
    try:
        with open(os.path.join(vault, rel), encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None


async def undo(agent, vault, report):
    # The morning: the vault as Weft found it is the first version.
    _, morning = await agent.ok("note_history", {"path": "Plan"})
    if len(morning["versions"]) < 1:
        fail(f"no first version of Plan: {morning}")
    morning_id = morning["versions"][0]["short_id"]
    report["plan_versions_at_start"] = [v["source"] for v in morning["versions"]]

    # During the day, outside Weft: an editor saves Plan twice, Old is deleted.
    write(vault, "Plan.md", "# Plan\n\n- buy milk\n- call Ada\n- rewrite everything\n")
    await agent.history_until({"path": "Plan"}, lambda o: len(o["versions"]) == len(morning["versions"]) + 1, "first edit")
    write(vault, "Plan.md", "# Plan\n\n- rewrite everything\n- and more\n")
    os.remove(os.path.join(vault, "Old.md"))
    await agent.history_until({"path": "Old"}, lambda o: o["versions"] and o["versions"][0]["changes"][0]["kind"] == "deleted", "deletion")
    plan = await agent.history_until({"path": "Plan"}, lambda o: len(o["versions"]) == len(morning["versions"]) + 2, "second edit")

    # "What did I change today?"
    since = since_today()
    text, today = await agent.ok("note_history", {"since": since, "limit": 50})
    changed = sorted({c["path"] for v in today["versions"] for c in v["changes"] if v["source"] != "vault_git"})
    report["today_text"] = text
    report["today_paths"] = changed
    report["today_sources"] = sorted({v["source"] for v in today["versions"]})
    # Paging: one at a time follows the cursor to the same versions.
    paged, cursor = [], None
    while True:
        args = {"since": since, "limit": 1}
        if cursor:
            args["cursor"] = cursor
        _, page = await agent.ok("note_history", args)
        paged += [v["id"] for v in page["versions"]]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    if paged != [v["id"] for v in today["versions"]]:
        fail(f"paging gave {paged}, the full page {[v['id'] for v in today['versions']]}")

    # Diff each change of Plan, by short and by full id.
    newest, middle = plan["versions"][0], plan["versions"][1]
    _, d1 = await agent.ok("diff_note", {"path": "Plan", "from": middle["short_id"], "to": newest["id"]})
    _, d_all = await agent.ok("diff_note", {"path": "Plan", "from": morning_id})
    report["diff_counts"] = [d1["additions"], d1["deletions"], d_all["additions"], d_all["deletions"]]
    report["diff_today"] = d_all["diff"]

    # The morning version, read as it was.
    _, old = await agent.ok("read_note", {"path": "Plan", "version": morning_id})
    morning_text = old["notes"][0]["content"]
    report["morning_text"] = morning_text

    # Undo: dry run first (nothing written), then with the sha256 guard.
    before = read(vault, "Plan.md")
    _, dry = await agent.ok("restore_note", {"path": "Plan", "version": morning_id, "dry_run": True})
    if read(vault, "Plan.md") != before or not dry["diff"]:
        fail(f"the dry run wrote or showed nothing: {dry}")
    await agent.err("restore_note", {"path": "Plan", "version": morning_id, "expected_sha256": "0" * 64}, "changed since it was read")
    _, now = await agent.ok("read_note", {"path": "Plan"})
    _, restored = await agent.ok("restore_note", {"path": "Plan", "version": morning_id, "expected_sha256": now["notes"][0]["sha256"]})
    report["restored"] = restored
    # And the deleted note, by its old path.
    _, old_history = await agent.ok("note_history", {"path": "Old"})
    if old_history["exists"] is not False:
        fail(f"Old should be gone: {old_history}")
    before_delete = old_history["versions"][1]["id"]
    _, back = await agent.ok("restore_note", {"path": "Old", "version": before_delete})
    report["recreated"] = back["recreated"]

    # The restores are versions by this client, listed with the rest.
    _, after = await agent.ok("note_history", {"path": "Plan", "limit": 1})
    report["restore_version"] = after["versions"][0]
    report["files"] = {rel: read(vault, rel) for rel in ["Plan.md", "Old.md", "Ideas.md"]}
    _, info = await agent.ok("vault_info", {})
    report["history_status"] = info["history"]


async def main(weft, vault, scenario):
    report = {"scenario": scenario}
    # The SDK passes only a few variables to servers by default; the test's
    # sandbox (its runtime folder, where the daemon's socket is) must reach
    # `weft mcp`.
    params = StdioServerParameters(command=weft, args=["mcp", "--vault", vault], env=dict(os.environ))
    # The client's name is the history author of its changes.
    me = Implementation(name="history-agent", version="1.0")
    async with Client(params, client_info=me, read_timeout_seconds=DEADLINE) as client:
        tools = (await client.list_tools()).tools
        schemas = {t.name: t.output_schema for t in tools}
        for name in ["note_history", "diff_note", "restore_note", "read_note"]:
            if name not in schemas:
                fail(f"{name} is not offered: {sorted(schemas)}")
            jsonschema.Draft202012Validator.check_schema(schemas[name])
        agent = Agent(client, schemas)
        info = await wait_ready(agent)
        report["history_status"] = info["history"]
        if scenario == "undo":
            await undo(agent, vault, report)
        elif scenario == "start":
            _, versions = await agent.ok("note_history", {})
            report["versions"] = versions["versions"]
        else:
            fail(f"unknown scenario {scenario}")
        report["calls"] = len(agent.calls)
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        fail(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
