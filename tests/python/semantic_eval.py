"""The retrieval evaluation through the official MCP Python SDK: every
question of QUESTIONS asked of `get_context` in each mode (lexical,
semantic, hybrid), scored by the rank of the first note that answers it.

Usage: semantic_eval.py WEFT_BINARY VAULT_DIR QUESTIONS_JSON
The vault's .weft.toml names the model. Prints one JSON report:
{mode: {all|paraphrased|other: {questions, recall_at_5, mrr}}}.
"""

import asyncio
import json
import os
import sys
import time

from mcp import Client, StdioServerParameters

DEADLINE = 600.0
MODES = ["lexical", "semantic", "hybrid"]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def quality(ranks):
    n = len(ranks)
    if n == 0:
        return {"questions": 0, "recall_at_5": 0.0, "mrr": 0.0}
    return {
        "questions": n,
        "recall_at_5": sum(1 for r in ranks if r is not None and r < 5) / n,
        "mrr": sum(1 / (r + 1) for r in ranks if r is not None) / n,
    }


async def main(weft, vault, questions_path):
    with open(questions_path, encoding="utf-8") as f:
        questions = json.load(f)
    params = StdioServerParameters(command=weft, args=["mcp", "--vault", vault], env=dict(os.environ))
    async with Client(params, read_timeout_seconds=DEADLINE) as client:
        start = time.monotonic()
        while True:
            info = (await client.call_tool("vault_info", {})).structured_content
            if info["semantic"]["mode"] == "failed":
                fail(f"the model did not load: {info['semantic']}")
            if info["status"]["phase"] == "ready" and info["semantic"]["mode"] == "ready":
                break
            if time.monotonic() - start > DEADLINE:
                fail(f"not ready in time: {info['status']} {info['semantic']}")
            await asyncio.sleep(0.5)
        report = {"notes": info["counts"]["notes"], "passages": info["semantic"]["passages"]}
        for mode in MODES:
            ranks = []
            for q in questions:
                result = await client.call_tool(
                    "get_context",
                    {"query": q["question"], "mode": mode, "top_k": 10, "max_chars": 40000},
                )
                if result.is_error:
                    fail(f"{mode} {q['question']!r}: {text_of(result)}")
                paths = [n["path"] + ".md" for n in result.structured_content["notes"]]
                rank = next((i for i, p in enumerate(paths) if p in q["answers"]), None)
                ranks.append((q["paraphrased"], rank))
            report[mode] = {
                "all": quality([r for _, r in ranks]),
                "paraphrased": quality([r for p, r in ranks if p]),
                "other": quality([r for p, r in ranks if not p]),
            }
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
