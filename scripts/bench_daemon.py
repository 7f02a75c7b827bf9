#!/usr/bin/env python3
"""Times Weft's faces with and without the index daemon on one vault (issue 8):

  scripts/bench_daemon.py WEFT_BINARY VAULT [--runs N]

1. `weft query backlinks NOTE` (what a slash command runs), wall time per run
   including process start: in-process (WEFT_NO_DAEMON=1) vs a warm daemon.
2. An editor (`weft lsp`) and an agent (`weft mcp`) on the vault: resident
   memory of their processes, as two separate processes vs two faces and one
   daemon.
3. From an agent's `write_note` answer to the editor's updated diagnostics:
   the daemon's shared index vs two processes (where only the editor's file
   watcher can tell it).

Standard library only; speaks JSON-RPC to the binary directly. Uses its own
runtime folder for the daemon and stops it at the end.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def read_frame(out):
    """The next LSP message (Content-Length framing) from `out`, or None at its end."""
    length = None
    while True:
        line = out.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    body = out.read(length)
    if len(body) < length:
        return None  # the server ended mid-frame (stopped by the caller)
    return json.loads(body)


class Lsp:
    def __init__(self, weft, root, env):
        self.proc = subprocess.Popen([weft, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.lock = threading.Condition()
        self.responses = {}
        self.diagnostics = {}
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()
        uri = "file://" + urllib.parse.quote(root)
        self.request("initialize", {"processId": None, "rootUri": uri,
                                    "workspaceFolders": [{"uri": uri, "name": "vault"}],
                                    "capabilities": {}})
        self.notify("initialized", {})
        deadline = time.time() + 300
        while not self.request("weft/status", None).get("ready"):
            if time.time() > deadline:
                raise SystemExit("the language server never got ready")
            time.sleep(0.1)

    def _read(self):
        while (message := read_frame(self.proc.stdout)) is not None:
            with self.lock:
                if "id" in message and "method" not in message:
                    self.responses[message["id"]] = message
                elif message.get("method") == "textDocument/publishDiagnostics":
                    params = message["params"]
                    self.diagnostics[params["uri"]] = (time.perf_counter(), params["diagnostics"])
                elif "id" in message:
                    self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                self.lock.notify_all()

    def _send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method, params):
        with self.lock:
            id_ = self.next_id
            self.next_id += 1
            self._send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
            self.lock.wait_for(lambda: id_ in self.responses, timeout=300)
            return self.responses.pop(id_).get("result") or {}

    def notify(self, method, params):
        with self.lock:
            self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri, check, timeout=30):
        with self.lock:
            ok = self.lock.wait_for(lambda: uri in self.diagnostics and check(self.diagnostics[uri][1]),
                                    timeout=timeout)
            return self.diagnostics[uri][0] if ok else None

    def close(self):
        self.proc.kill()
        self.proc.wait()


class Mcp:
    def __init__(self, weft, root, env):
        self.proc = subprocess.Popen([weft, "mcp", "--vault", root], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.next_id = 1
        self.call_raw("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        deadline = time.time() + 300
        while True:
            info = self.tool("vault_info", {})
            if info.get("status", {}).get("phase") == "ready":
                break
            if time.time() > deadline:
                raise SystemExit("the MCP server never got ready")
            time.sleep(0.2)

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def call_raw(self, method, params):
        id_ = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("the MCP server went away")
            message = json.loads(line)
            if message.get("id") == id_:
                return message.get("result", {})

    def tool(self, name, arguments):
        result = self.call_raw("tools/call", {"name": name, "arguments": arguments})
        if result.get("isError"):
            raise SystemExit(f"{name}: {result}")
        return result.get("structuredContent", {})

    def close(self):
        self.proc.kill()
        self.proc.wait()


def daemon_pids(runtime):
    pids = []
    for name in os.listdir(runtime) if os.path.isdir(runtime) else []:
        if name.endswith(".pid"):
            try:
                pids.append(int(open(os.path.join(runtime, name)).read().strip()))
            except (OSError, ValueError):
                pass
    return pids


def stop_daemons(runtime):
    for pid in daemon_pids(runtime):
        try:
            os.kill(pid, 15)
        except OSError:
            pass
    time.sleep(0.5)


def query_times(weft, root, note, env, runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([weft, "query", "backlinks", note, "--vault", root], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - started) * 1000)
    return times


def write_to_diagnostics(lsp, mcp, root, runs):
    times = []
    for i in range(runs):
        name = f"Bench probe target {os.getpid()} {i}"
        uri = "file://" + urllib.parse.quote(os.path.join(root, f"bench-probe-{os.getpid()}-{i}.md"))
        lsp.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "markdown", "version": 1, "text": f"# Probe\n[[{name}]]\n"}})
        if lsp.wait_diagnostics(uri, lambda d: len(d) == 1) is None:
            raise SystemExit("no diagnostic for the probe's link")
        mcp.tool("write_note", {"path": name, "content": "# Target\n"})
        answered = time.perf_counter()
        seen = lsp.wait_diagnostics(uri, lambda d: len(d) == 0)
        times.append((seen - answered) * 1000 if seen else float("inf"))
        lsp.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        mcp.tool("delete_note", {"path": name})
    return times


def show(label, values):
    print(f"  {label}: p50 {statistics.median(values):.1f} ms, p95 {pct(values, 95):.1f} ms "
          f"(n={len(values)})")


def main():
    weft, root = sys.argv[1], os.path.realpath(sys.argv[2])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 20
    runtime = tempfile.mkdtemp(prefix="weft-bench-run-")
    os.chmod(runtime, 0o700)
    base = dict(os.environ, WEFT_RUNTIME_DIR=runtime, WEFT_DAEMON_IDLE="60")
    base.pop("WEFT_NO_DAEMON", None)
    alone = dict(base, WEFT_NO_DAEMON="1")
    notes = subprocess.run([weft, "query", "notes", "--limit", "3", "--format", "json", "--vault", root],
                           env=alone, check=True, capture_output=True, text=True).stdout
    note = json.loads(notes)[-1]["path"] if notes.strip().startswith("[") else "index"
    print(f"vault {root}; note {note!r}")

    print("1. weft query backlinks (process start included)")
    show("in-process", query_times(weft, root, note, alone, max(3, runs // 4)))
    started = time.perf_counter()
    query_times(weft, root, note, base, 1)
    print(f"  first run, starting the daemon: {(time.perf_counter() - started) * 1000:.0f} ms")
    show("warm daemon", query_times(weft, root, note, base, runs))
    stop_daemons(runtime)

    print("2. editor + agent memory (after loading), and 3. write -> diagnostics")
    for label, env in (("two processes", alone), ("daemon", base)):
        lsp = Lsp(weft, root, env)
        mcp = Mcp(weft, root, env)
        time.sleep(2)
        faces = rss_mb(lsp.proc.pid) + rss_mb(mcp.proc.pid)
        daemon = sum(rss_mb(pid) for pid in daemon_pids(runtime))
        print(f"  {label}: resident {faces + daemon:.0f} MB (faces {faces:.0f} MB, daemon {daemon:.0f} MB)")
        show(f"{label}: write_note answered -> diagnostics updated", write_to_diagnostics(lsp, mcp, root, runs))
        lsp.close()
        mcp.close()
    stop_daemons(runtime)


if __name__ == "__main__":
    main()
