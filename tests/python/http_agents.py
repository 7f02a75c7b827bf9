"""Three agents on one vault at once, through one Weft daemon: two over
Streamable HTTP (`weft mcp --http`; one speaks the 2026-07-28 protocol, one
the `initialize` handshake) and one over stdio (`weft mcp`). Each writes
notes while the others do, then each must see every other's writes. Then
requests without the token, or with a wrong one, are refused with 401 and
change nothing.

Usage: http_agents.py WEFT_BINARY VAULT_DIR URL TOKEN
Prints one JSON object with what it saw; exits non-zero with the reason on
the first failure.
"""

import asyncio
import json
import os
import sys
import time

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

DEADLINE = 60.0
NOTES_EACH = 8


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def http_client(url, token, mode):
    headers = {"Authorization": f"Bearer {token}"}
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode=mode, read_timeout_seconds=DEADLINE)


async def wait_ready(client):
    deadline = time.monotonic() + DEADLINE
    while True:
        result = await client.call_tool("vault_info", {})
        if (result.structured_content or {}).get("status", {}).get("phase") == "ready":
            return
        if time.monotonic() > deadline:
            fail(f"the vault was not ready in time: {text_of(result)}")
        await asyncio.sleep(0.1)


async def write_notes(client, name):
    for i in range(NOTES_EACH):
        result = await client.call_tool(
            "write_note",
            {"path": f"agents/{name}-{i}", "content": f"# {name} {i}\nWritten by {name}; see [[Hub]].\n"},
        )
        if result.is_error:
            fail(f"{name} could not write note {i}: {text_of(result)}")


async def sees_the_others(client, name, names):
    seen = 0
    for other in names:
        if other == name:
            continue
        for i in range(NOTES_EACH):
            result = await client.call_tool("read_note", {"path": f"agents/{other}-{i}"})
            if result.is_error or f"Written by {other}" not in text_of(result):
                fail(f"{name} does not see {other}'s note {i}: {text_of(result)}")
            seen += 1
    result = await client.call_tool("get_links", {"path": "Hub", "direction": "in", "limit": 100})
    backlinks = (result.structured_content or {}).get("incoming_total") or 0
    return seen, backlinks


async def refused(url, token, vault):
    """Requests without the token or with a wrong one: 401, nothing written."""
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "write_note", "arguments": {"path": "agents/intruder", "content": "# no"}},
    }
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}},
    }
    statuses = []
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(timeout=DEADLINE) as http:
        for auth in [None, f"Bearer {token}x", f"Bearer {token[:-1]}", "Basic " + token, token]:
            headers = dict(base)
            if auth is not None:
                headers["Authorization"] = auth
            for body in (initialize, call):
                response = await http.post(url, headers=headers, content=json.dumps(body))
                statuses.append(response.status_code)
                if response.status_code != 401:
                    fail(f"{auth!r} got {response.status_code}, not 401: {response.text[:300]}")
                if "bearer" not in response.headers.get("www-authenticate", "").lower():
                    fail(f"a 401 without WWW-Authenticate: Bearer: {dict(response.headers)}")
                # Its body unread, the connection closes: the 401 says so,
                # or reusing it races the close (the flake this fixed).
                if response.headers.get("connection", "").lower() != "close":
                    fail(f"a 401 without Connection: close: {dict(response.headers)}")
    if os.path.exists(os.path.join(vault, "agents", "intruder.md")):
        fail("a refused request wrote a note")
    return statuses


async def main(weft, vault, url, token):
    stdio = StdioServerParameters(command=weft, args=["mcp", "--vault", vault], env=dict(os.environ))
    names = ["http-modern", "http-legacy", "stdio"]
    async with (
        http_client(url, token, "auto") as modern,
        http_client(url, token, "legacy") as legacy,
        Client(stdio, read_timeout_seconds=DEADLINE) as local,
    ):
        clients = [modern, legacy, local]
        await wait_ready(local)
        started = time.monotonic()
        await asyncio.gather(*(write_notes(c, n) for c, n in zip(clients, names)))
        wrote_ms = round((time.monotonic() - started) * 1000, 1)
        seen = {}
        for client, name in zip(clients, names):
            count, backlinks = await sees_the_others(client, name, names)
            if backlinks < 3 * NOTES_EACH:
                fail(f"{name} sees {backlinks} backlinks to Hub, not all {3 * NOTES_EACH} written")
            seen[name] = {"notes_of_others": count, "hub_backlinks": backlinks}
        tools = [len((await c.list_tools()).tools) for c in clients]
    statuses = await refused(url, token, vault)
    print(json.dumps({"seen": seen, "tools": tools, "wrote_ms": wrote_ms, "refused": statuses}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
