"""Finding notes by meaning through the official MCP Python SDK against the
built `weft mcp`.

Usage: semantic_agent.py WEFT_BINARY VAULT_DIR on|again|off|denied|flag
`on`: the vault's .weft.toml names a (tiny, test-written) model whose words
of one meaning share a vector: vehicles (car, automobile, truck, engine,
fleet), food, music (guitar, song, melody), weather (rain, storm). The
vault holds garage.md, kitchen.md, band.md and fleet.md (written by the
Rust test). `again`: after `on`, fleet.md was rewritten about chess while
no Weft ran: found by its new meaning. `off`: the same vault without a
model. `denied`: `[agent] deny` hides garage.md: neither counted nor found.
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


async def call(client, tool, args):
    result = await client.call_tool(tool, args)
    if result.is_error:
        fail(f"{tool} {args}: {text_of(result)}")
    return result


async def until(what, check):
    start = time.monotonic()
    while True:
        got = await check()
        if got:
            return got
        if time.monotonic() - start > DEADLINE:
            fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def main(weft, vault, mode, model=None):
    report = {}
    # The daemon this face starts logs what it loads (the Rust test reads it).
    env = dict(os.environ, RUST_LOG="weft_workspace=info")
    args = ["mcp", "--vault", vault]
    if model is not None:
        # As the Zed extension passes the context server's `semantic_model`.
        args += ["--semantic-model", model]
    params = StdioServerParameters(command=weft, args=args, env=env)
    async with Client(params, read_timeout_seconds=DEADLINE) as client:

        async def info():
            return (await call(client, "vault_info", {})).structured_content

        await until("the vault", lambda: ready(info))
        if mode == "off":
            semantic = (await info())["semantic"]
            if semantic["mode"] != "off" or "[semantic] model" not in semantic["note"]:
                fail(f"without a model vault_info must say how to enable it: {semantic}")
            result = await call(client, "get_context", {"query": "engine"})
            notes = result.structured_content["notes"]
            if [n["path"] for n in notes] != ["garage"] or notes[0]["source"] != "words":
                fail(f"by words without a model: {notes}")
            if "meaning" in text_of(result):
                fail(f"no word of meaning without a model: {text_of(result)}")
            result = await client.call_tool("search_notes", {"query": "melody", "mode": "semantic"})
            if not result.is_error or "[semantic] model" not in text_of(result):
                fail(f"mode semantic without a model must say how to enable it: {text_of(result)}")
            report["off"] = True
            print(json.dumps(report))
            return

        async def semantic_ready():
            s = (await info())["semantic"]
            if s["mode"] == "failed":
                fail(f"the model did not load: {s}")
            return s if s["mode"] == "ready" else None

        semantic = await until("the semantic index", semantic_ready)
        report["semantic"] = semantic
        if mode == "flag":
            result = await call(client, "get_context", {"query": "automobile truck"})
            notes = result.structured_content["notes"]
            garage = next((n for n in notes if n["path"] == "garage"), None)
            if garage is None or garage["source"] != "meaning":
                fail(f"the garage found by meaning with the face's model: {notes}")
            print(json.dumps(report))
            return
        if mode == "denied":
            # `[agent] deny` hides the garage: not counted, never found.
            if semantic["notes"] != 3 or semantic["passages"] != 3:
                fail(f"the counts of the notes the agent may see: {semantic}")
            result = await call(client, "get_context", {"query": "automobile truck"})
            notes = result.structured_content["notes"]
            if any(n["path"] == "garage" for n in notes) or not notes:
                fail(f"by meaning, without the denied note: {notes}")
            print(json.dumps(report))
            return
        if mode == "again":

            async def chess_found():
                result = await call(client, "get_context", {"query": "pawn", "mode": "semantic", "top_k": 1})
                return [n["path"] for n in result.structured_content["notes"]] == ["fleet"]

            await until("the note changed while no Weft ran, by its new meaning", chess_found)
            print(json.dumps(report))
            return
        if semantic["notes"] != 4:
            fail(f"every note embedded: {semantic}")

        # get_context finds the garage by meaning: no word in common.
        result = await call(client, "get_context", {"query": "automobile truck"})
        notes = result.structured_content["notes"]
        if not notes or notes[0]["path"] not in ("garage", "fleet"):
            fail(f"by meaning: {notes}")
        garage = next((n for n in notes if n["path"] == "garage"), None)
        if garage is None or garage["source"] != "meaning":
            fail(f"the garage found by meaning: {notes}")
        passage = garage["passages"][0]
        if "engine" not in passage["text"] or passage["lines"] != [1, 2]:
            fail(f"the passage found by meaning: {passage}")
        report["get_context"] = [n["path"] for n in notes]
        # By words alone, nothing has those words.
        result = await call(client, "get_context", {"query": "automobile", "mode": "lexical"})
        if any(n["path"] == "garage" for n in result.structured_content["notes"]):
            fail(f"lexical mode matched by meaning: {result.structured_content}")

        # search_notes' modes.
        result = await call(client, "search_notes", {"query": "melody", "mode": "semantic"})
        hits = result.structured_content["hits"]
        if not hits or hits[0]["path"] != "band" or hits[0]["why"] != "meaning":
            fail(f"search_notes semantic: {hits}")
        result = await call(client, "search_notes", {"query": "guitar", "mode": "hybrid"})
        hits = result.structured_content["hits"]
        if not hits or hits[0]["path"] != "band" or hits[0]["why"] != "words+meaning":
            fail(f"search_notes hybrid: {hits}")

        # related_notes: the fleet shares no link, tag or word with the
        # garage, only meaning; the reason quotes its passage.
        result = await call(client, "related_notes", {"path": "garage"})
        related = result.structured_content["related"]
        fleet = next((r for r in related if r["path"] == "fleet"), None)
        if fleet is None or fleet["signals"]["meaning"] <= 0:
            fail(f"related by meaning: {related}")
        if not any("similar meaning" in r and "truck and automobile" in r for r in fleet["reasons"]):
            fail(f"the similar passage: {fleet}")
        report["related"] = fleet["reasons"]

        # A note the agent writes is found by meaning at once.
        await call(client, "write_note", {"path": "weather", "content": "Storm all day.\n"})
        result = await call(client, "get_context", {"query": "rain", "mode": "semantic"})
        notes = result.structured_content["notes"]
        if not notes or notes[0]["path"] != "weather":
            fail(f"a written note by meaning: {notes}")

        # A note written outside is found once the watcher has it.
        with open(os.path.join(vault, "outside.md"), "w", encoding="utf-8") as f:
            f.write("A song and a melody.\n")

        async def outside_found():
            result = await call(client, "search_notes", {"query": "guitar", "mode": "semantic"})
            return any(h["path"] == "outside" for h in result.structured_content["hits"])

        await until("the outside note by meaning", outside_found)
        # And one deleted outside is gone.
        os.remove(os.path.join(vault, "outside.md"))

        async def outside_gone():
            result = await call(client, "search_notes", {"query": "guitar", "mode": "semantic"})
            return not any(h["path"] == "outside" for h in result.structured_content["hits"])

        await until("the deleted note to go", outside_gone)
        text = text_of(await call(client, "vault_info", {}))
        if "Finding by meaning: ready" not in text:
            fail(f"vault_info's text: {text}")
    print(json.dumps(report))


async def ready(info):
    return (await info())["status"]["phase"] == "ready"


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
