"""The chaos proxy under concurrency, side by side with mitmproxy in reverse mode on the same upstream.

Three processes besides this one: a minimal HTTP/1.1 upstream on 127.0.0.1 (a fixed chat-completion-sized JSON
reply, keep-alive), our ChaosProxy in its own event loop (no case bound: the forwarding path), and `mitmdump
--mode reverse:<upstream>` when mitmproxy is installed (it is not a dependency: point MITMDUMP at a binary, e.g.
one in a separate venv). The load generator (aiohttp, keep-alive, one connection per concurrent client) sends the
same POST through each target in turn, rounds interleaved, and reports requests/s and latency percentiles; "added"
is the proxied percentile minus the direct one at the same concurrency. "CPU/req" is the proxy process's own CPU time
(user+sys, from /proc) per request: on a shared machine it moves far less with the load than wall-clock figures.

Targets: at concurrency 32, ≥ 3 × mitmproxy's requests/s and added p99 ≤ 10 ms; at concurrency 1, added p50
≤ 0.3 ms.

`--baseline DIR` adds the ChaosProxy of another checkout (e.g. a worktree of main) as a fourth target, interleaved with
the others: an A/B of two proxy versions under the same load on a shared machine.

Run: `MITMDUMP=/path/to/mitmdump python bench/proxy_scale.py [--seconds 4] [--rounds 3] [--baseline DIR]`
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

BODY = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "word " * 150}, "finish_reason": "stop"}]}).encode()
PAYLOAD = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hello " * 50}]}).encode()

UPSTREAM = r'''
import asyncio, sys
BODY = sys.stdin.buffer.read()
HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(BODY)

class Server(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buffer = transport, b""
    def data_received(self, data):
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].lower()
            at = head.find(b"content-length:")
            length = int(head[at + 15:].split(b"\r\n", 1)[0]) if at >= 0 else 0
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length:]
            self.transport.write(HEAD + BODY)

async def main():
    server = await asyncio.get_running_loop().create_server(Server, "127.0.0.1", int(sys.argv[1]))
    print("ready", flush=True)
    await server.serve_forever()
asyncio.run(main())
'''

OURS = r'''
import asyncio, sys
from khaos_action.engine.chaos.proxy import ChaosProxy
async def main():
    proxy = ChaosProxy()
    await proxy.start()
    print(proxy.url_for(sys.argv[1]), flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
'''


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


async def load(url: str, concurrency: int, seconds: float) -> tuple[float, list[float], int]:
    """Requests/s and latencies of the timed part, and how many requests the warm-up sent before it."""
    import aiohttp

    latencies: list[float] = []
    connector = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def client(stop_at: float) -> None:
            while time.perf_counter() < stop_at:
                started = time.perf_counter()
                async with session.post(url, data=PAYLOAD, headers={"content-type": "application/json"}) as r:
                    body = await r.read()
                latencies.append(time.perf_counter() - started)
                assert r.status == 200 and body == BODY, (r.status, body[:200])

        warm = time.perf_counter() + min(0.5, seconds / 4)
        await asyncio.gather(*(client(warm) for _ in range(concurrency)))
        warmed = len(latencies)
        latencies.clear()
        started = time.perf_counter()
        await asyncio.gather(*(client(started + seconds) for _ in range(concurrency)))
        wall = time.perf_counter() - started
    return len(latencies) / wall, latencies, warmed


def cpu_seconds(pid: int) -> float:
    """User+sys CPU of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", default="1,32")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout whose ChaosProxy to run too")
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    procs = []
    try:
        up_port = free_port()
        upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(up_port)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE)
        procs.append(upstream)
        upstream.stdin.write(BODY)
        upstream.stdin.close()
        upstream.stdout.readline()
        upstream_url = f"http://127.0.0.1:{up_port}"
        ours = subprocess.Popen([sys.executable, "-c", OURS, upstream_url], stdout=subprocess.PIPE, env=env,
                                text=True)
        procs.append(ours)
        targets = {"direct": upstream_url + "/v1/chat/completions",
                   "khaos ChaosProxy": ours.stdout.readline().strip() + "/v1/chat/completions"}
        pids = {"direct": upstream.pid, "khaos ChaosProxy": ours.pid}
        if args.baseline is not None:
            base_env = {**os.environ, "PYTHONPATH": str(args.baseline.resolve())}
            baseline = subprocess.Popen([sys.executable, "-c", OURS, upstream_url], stdout=subprocess.PIPE,
                                        env=base_env, text=True, cwd=args.baseline)
            procs.append(baseline)
            targets[f"baseline ChaosProxy ({args.baseline.name})"] = (baseline.stdout.readline().strip()
                                                                      + "/v1/chat/completions")
            pids[f"baseline ChaosProxy ({args.baseline.name})"] = baseline.pid
        mitmdump = os.environ.get("MITMDUMP") or shutil.which("mitmdump")
        if mitmdump:
            mitm_port = free_port()
            procs.append(subprocess.Popen([mitmdump, "--mode", f"reverse:{upstream_url}", "--listen-host",
                                           "127.0.0.1", "-p", str(mitm_port), "-q", "--set", "flow_detail=0"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_port(mitm_port)
            version = subprocess.run([mitmdump, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
            targets[f"mitmproxy reverse ({version.strip()})"] = f"http://127.0.0.1:{mitm_port}/v1/chat/completions"
            pids[f"mitmproxy reverse ({version.strip()})"] = procs[-1].pid
        else:
            print("mitmdump not found (set MITMDUMP): comparing with the direct path only")
        print(f"POST {len(PAYLOAD)} B → {len(BODY)} B JSON reply, {args.seconds:g} s per measurement, "
              f"{args.rounds} interleaved rounds; load average {os.getloadavg()[0]:.2f} at start")
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            results: dict[str, list[tuple[float, list[float]]]] = {name: [] for name in targets}
            cpu: dict[str, list[float]] = {name: [] for name in targets}
            for _ in range(args.rounds):
                for name, url in targets.items():
                    before = cpu_seconds(pids[name])
                    rate, latencies, warmed = asyncio.run(load(url, concurrency, args.seconds))
                    results[name].append((rate, latencies))
                    cpu[name].append((cpu_seconds(pids[name]) - before) / max(len(latencies) + warmed, 1) * 1e6)
            direct = results["direct"]
            print(f"\nconcurrency {concurrency} (load average {os.getloadavg()[0]:.2f})")
            for name, runs in results.items():
                rates = [r for r, _ in runs]
                p50 = [pct(lat, 0.50) for _, lat in runs]
                p99 = [pct(lat, 0.99) for _, lat in runs]
                added50 = [a - pct(d, 0.50) for a, (_, d) in zip(p50, direct, strict=True)]
                added99 = [a - pct(d, 0.99) for a, (_, d) in zip(p99, direct, strict=True)]
                line = (f"  {name:44s} {statistics.median(rates):8.0f} req/s ({min(rates):.0f}–{max(rates):.0f})  "
                        f"CPU/req {statistics.median(cpu[name]):5.0f} µs  "
                        f"p50 {statistics.median(p50):6.2f} ms  p99 {statistics.median(p99):6.2f} ms")
                if name != "direct":
                    line += (f"  added p50 {statistics.median(added50):+.2f} ms ({min(added50):+.2f}…"
                             f"{max(added50):+.2f})  added p99 {statistics.median(added99):+.2f} ms")
                print(line)
            mitm = next((n for n in results if n.startswith("mitmproxy")), None)
            if mitm:
                ratio = [o / m for (o, _), (m, _) in zip(results["khaos ChaosProxy"], results[mitm], strict=True)]
                print(f"  ChaosProxy / mitmproxy requests/s: {statistics.median(ratio):.2f} × "
                      f"({min(ratio):.2f}–{max(ratio):.2f})")
        print(f"load average at end {os.getloadavg()[0]:.2f}")
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
