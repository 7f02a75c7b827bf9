#!/usr/bin/env python3
"""Times Weft's first complete answer after a start, cold and from the
persisted index (issue 18):

  scripts/bench_restart.py WEFT_BINARY VAULT [--runs N] [--change PERCENT]

For each run, from the moment `weft lsp` is started (a face, which starts a
new index daemon) to the first definition request answered with its target:

- cold: no persisted index (an empty cache folder);
- restart: the index a daemon saved when it stopped, unchanged vault;
- changed: the same, after PERCENT % of the notes (default 1) were edited
  while no Weft ran: the first answer comes from the snapshot, and the log
  says how long reconciling with the disk took.

Then the agent's first complete search, from the moment `weft mcp` is
started to the `search_notes` answer (every match counted: `total`), cold
(empty cache: the full text is built) and on restart (the full text kept
in the cache is reused); the totals must agree.

Also reports the snapshot's size and save time, from the daemon's log.
Standard library only; every daemon gets its own runtime and cache folders
and is stopped at the end. The vault is edited by the `changed` runs and
restored after.
"""

import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from bench_daemon import read_frame


def find_link(root):
    """A note with a wikilink to a note that exists: (path, line, column)."""
    names = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".md"):
                names[name[:-3].casefold()] = os.path.join(dirpath, name)
    for stem, path in sorted(names.items()):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line_no, line in enumerate(f):
                for m in re.finditer(r"\[\[([^\]|#]+)", line):
                    if m.group(1).casefold() in names and m.group(1).casefold() != stem:
                        column = len(line[: m.start() + 2].encode("utf-16-le")) // 2
                        return path, line_no, column
    sys.exit("no note links to another note in this vault")


class Face:
    """`weft lsp` spoken to over stdio."""

    def __init__(self, weft, root, env):
        self.proc = subprocess.Popen([weft, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.responses = {}
        self.cond = threading.Condition()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()
        uri = "file://" + urllib.parse.quote(root)
        self.request("initialize", {"processId": None, "rootUri": uri,
                                    "workspaceFolders": [{"uri": uri, "name": "vault"}],
                                    "capabilities": {}})
        self.notify("initialized", {})

    def _read(self):
        while (body := read_frame(self.proc.stdout)) is not None:
            if "id" in body and "method" not in body:
                with self.cond:
                    self.responses[body["id"]] = body
                    self.cond.notify_all()
            elif "id" in body:
                self._send({"jsonrpc": "2.0", "id": body["id"], "result": None})

    def _send(self, message):
        data = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def request(self, method, params, timeout=600):
        rid = self.next_id
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self.cond:
            self.cond.wait_for(lambda: rid in self.responses, timeout)
            return self.responses.pop(rid)

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
        except Exception:
            pass
        self.proc.kill()
        self.proc.wait()


def first_answer(weft, root, env, link):
    """Seconds from starting `weft lsp` to the first definition with a target."""
    path, line, column = link
    start = time.perf_counter()
    face = Face(weft, root, env)
    uri = "file://" + urllib.parse.quote(path)
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    face.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown",
                                                          "version": 1, "text": text}})
    while True:
        answer = face.request("textDocument/definition", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": column}})
        result = answer.get("result")
        if result:
            elapsed = time.perf_counter() - start
            break
        if time.perf_counter() - start > 600:
            sys.exit(f"no definition after 600 s: {answer}")
        time.sleep(0.002)
    face.close()
    return elapsed


def first_search(weft, root, env, word):
    """Seconds from starting `weft mcp` to a `search_notes` answer, and its total."""
    start = time.perf_counter()
    proc = subprocess.Popen([weft, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=root)
    def send(message):
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
    def answer(rid):
        while True:
            line = proc.stdout.readline()
            if not line:
                sys.exit("weft mcp ended before answering")
            body = json.loads(line)
            if body.get("id") == rid and "method" not in body:
                return body
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench_restart", "version": "1"}}})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "search_notes", "arguments": {"query": word}}})
    result = answer(2).get("result", {})
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.kill()
    proc.wait()
    if result.get("isError"):
        sys.exit(f"search_notes failed: {result}")
    return elapsed, result["structuredContent"]["total"]


def warm(folder):
    """Reads every file under `folder`, so that it is in the page cache."""
    for d, _, names in os.walk(folder):
        for name in names:
            with open(os.path.join(d, name), "rb") as f:
                while f.read(1 << 20):
                    pass


def stop_daemons(runtime):
    for name in os.listdir(runtime) if os.path.isdir(runtime) else []:
        if name.endswith(".pid"):
            try:
                pid = int(open(os.path.join(runtime, name)).read().strip())
                os.kill(pid, signal.SIGTERM)
                for _ in range(3000):
                    os.kill(pid, 0)
                    time.sleep(0.01)
            except (ValueError, OSError):
                pass


def log_lines(runtime, pattern):
    found = []
    for name in sorted(os.listdir(runtime)):
        if name.endswith(".log"):
            with open(os.path.join(runtime, name), errors="replace") as f:
                found += [m for m in (re.search(pattern, line) for line in f) if m]
    return found


def show(label, values):
    ms = [v * 1000 for v in values]
    print(f"| {label} | {statistics.median(ms):.0f} | {min(ms):.0f} | {max(ms):.0f} | {len(ms)} |")


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    weft, root = os.path.abspath(args[0]), os.path.realpath(args[1])
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 5
    percent = float(args[args.index("--change") + 1]) if "--change" in args else 1.0
    link = find_link(root)
    notes = [os.path.join(d, n) for d, ds, ns in os.walk(root) for n in ns
             if n.endswith(".md") and "/." not in d[len(root):]]
    work = tempfile.mkdtemp(prefix="weft-restart-", dir="/tmp")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("WEFT_")}
    base_env["RUST_LOG"] = "weft_workspace=info"
    results = {"cold": [], "restart": [], "changed": [], "search cold": [], "search restart": []}
    # A word of the linked note's text: found in it and in others.
    with open(link[0], encoding="utf-8", errors="replace") as f:
        word = re.findall(r"[A-Za-z]{5,}", f.read())[0].lower()
    totals = set()
    reconcile = []
    try:
        for run in range(runs):
            for kind in results:
                runtime = os.path.join(work, f"r{run}{kind[0]}")
                cache = os.path.join(work, f"c{run}")
                env = dict(base_env, WEFT_RUNTIME_DIR=runtime, XDG_CACHE_HOME=cache)
                if kind in ("cold", "search cold"):
                    shutil.rmtree(cache, ignore_errors=True)
                else:
                    # The previous run's daemon saved its index. A warm page
                    # cache is the condition measured: read it back first
                    # (some virtual machines page out idle file pages).
                    warm(cache)
                saved = {}
                if kind == "changed":
                    for path in random.Random(run).sample(notes, max(1, int(len(notes) * percent / 100))):
                        with open(path, "rb") as f:
                            saved[path] = f.read()
                        with open(path, "ab") as f:
                            f.write(b"\nEdited while Weft was not running.\n")
                try:
                    if kind.startswith("search"):
                        elapsed, total = first_search(weft, root, env, word)
                        results[kind].append(elapsed)
                        totals.add(total)
                        continue
                    results[kind].append(first_answer(weft, root, env, link))
                    if kind == "changed":
                        deadline = time.time() + 600
                        while not log_lines(runtime, r"reconciled with the disk: (\d+) paths changed, in (\d+) ms"):
                            if time.time() > deadline:
                                sys.exit("the daemon did not say it reconciled")
                            time.sleep(0.05)
                        m = log_lines(runtime, r"reconciled with the disk: (\d+) paths changed, in (\d+) ms")[-1]
                        reconcile.append((int(m.group(1)), int(m.group(2))))
                finally:
                    stop_daemons(runtime)
                    for path, data in saved.items():
                        with open(path, "wb") as f:
                            f.write(data)
                saves = log_lines(runtime, r"(\d+) notes, (\d+) bytes saved in (\d+) ms")
        print(f"\n{len(notes)} notes in {root}; first answer = `weft lsp` started -> first definition "
              f"with its target (a new daemon each time); {os.cpu_count()} cores\n")
        print("| start | median ms | min | max | runs |\n|---|---|---|---|---|")
        show("cold (no persisted index)", results["cold"])
        show("restart (persisted index, vault unchanged)", results["restart"])
        show(f"restart, {percent:g} % of notes changed meanwhile", results["changed"])
        print(f"\nthe agent's first complete search (`weft mcp` started -> `search_notes` "
              f"for `{word}` answered, every match counted: {sorted(totals)})\n")
        print("| start | median ms | min | max | runs |\n|---|---|---|---|---|")
        show("cold (full text built)", results["search cold"])
        show("restart (full text kept in the cache)", results["search restart"])
        if len(totals) != 1:
            sys.exit(f"the searches disagree on the number of matches: {sorted(totals)}")
        if saves:
            notes_n, size, ms = (int(x) for x in saves[-1].groups())
            print(f"\nsnapshot: {notes_n} notes, {size / 1e6:.1f} MB, saved in {ms} ms")
        if reconcile:
            print("reconciling after the changes: "
                  + ", ".join(f"{n} paths in {ms} ms" for n, ms in reconcile))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
