"""The agent half of tests/tests/shared_vault.rs: the official MCP Python SDK
drives `weft mcp` on a vault that headless Neovim (tests/nvim/shared.lua)
edits at the same time, both through one Weft index daemon.

Usage: shared_agent.py WEFT_BINARY VAULT_DIR SIGNALS_DIR
Steps are handed over through files in SIGNALS_DIR (`agent-N` when the
agent's step N is done, `editor-N` when the editor's is). Prints one JSON
object with what it saw; exits non-zero with the reason on the first failure.
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


def signal(signals, name, text=""):
    tmp = os.path.join(signals, f".{name}.tmp")
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.rename(tmp, os.path.join(signals, name))


async def wait_for(signals, name):
    path = os.path.join(signals, name)
    deadline = time.monotonic() + DEADLINE
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            fail(f"the editor never reached {name}")
        await asyncio.sleep(0.02)


async def main(weft, vault, signals):
    seen = {}
    # The SDK passes only a few variables to servers by default; the test's
    # runtime folder (where the daemon's socket is) must reach `weft mcp`.
    params = StdioServerParameters(command=weft, args=["mcp", "--vault", vault], env=dict(os.environ))
    async with Client(params, read_timeout_seconds=DEADLINE) as client:
        await wait_for(signals, "editor-1")
        started = time.time()
        result = await client.call_tool("write_note", {"path": "Ghost", "content": "# Ghost\nNow here.\n"})
        if result.is_error:
            fail(f"write_note Ghost: {text_of(result)}")
        seen["write_note_ms"] = round((time.time() - started) * 1000, 1)
        signal(signals, "agent-2", repr(time.time()))

        await wait_for(signals, "editor-3")
        on_disk = open(os.path.join(vault, "a.md"), "rb").read()
        result = await client.call_tool("read_note", {"path": "a"})
        text = text_of(result)
        if "Typed in the editor" not in text or "unsaved changes in the editor" not in text:
            fail(f"read_note did not show the editor's unsaved text:\n{text}")
        # What the user is working on: the note they are typing in, first,
        # with its unsaved change and where it was made.
        result = await client.call_tool("editor_state", {})
        state = result.structured_content or {}
        notes = state.get("notes") or [{}]
        first = notes[0]
        last = first.get("last_edit") or {}
        if (
            result.is_error
            or first.get("path") != "a.md"
            or not first.get("unsaved")
            or last.get("text") != "Typed in the editor, not saved."
            or not first.get("changed_sections")
        ):
            fail(f"editor_state did not show the note being typed in:\n{text_of(result)}\n{state}")
        seen["editor_state"] = text_of(result)
        result = await client.call_tool("edit_note", {"path": "a", "ops": [{"op": "append", "text": "From the agent."}]})
        if not result.is_error or "unsaved changes in the editor" not in text_of(result):
            fail(f"edit_note over unsaved text was not refused:\n{text_of(result)}")
        if open(os.path.join(vault, "a.md"), "rb").read() != on_disk:
            fail("the refused edit changed a.md")
        seen["refused"] = text_of(result)
        signal(signals, "agent-4")

        await wait_for(signals, "editor-5")
        deadline = time.monotonic() + DEADLINE
        while True:
            result = await client.call_tool(
                "edit_note", {"path": "a", "ops": [{"op": "append", "text": "From the agent."}]}
            )
            if not result.is_error:
                break
            if time.monotonic() > deadline:
                fail(f"edit_note after the save: {text_of(result)}")
            await asyncio.sleep(0.1)
        signal(signals, "agent-6")
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
