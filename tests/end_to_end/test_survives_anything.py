"""Hostile inputs through the real CLI: every one ends in bounded time and memory with its exit code, whole files
(events.jsonl and manifest.json parse) and no traceback: oversized, deep and malformed
configs and packs, hostile replies, agents and servers that die, a full disk, a closed pipe, deep manifests."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from khaos_action.config.limits import MAX_YAML_BYTES
from tests.fixtures.cli.harness import workspace

MEMORY_LIMIT = 1536 * 1024 * 1024
"""Address space for each khaos-action process: a blow-up dies instead of taking the machine."""


@dataclass(repr=False)
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float
    max_rss_mb: float

    def __repr__(self) -> str:
        return (f"exit {self.code} after {self.seconds:.1f}s, {self.max_rss_mb:.0f} MB\n--- stdout\n"
                f"{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


# The CLI is started by this small launcher, which reports the CLI's own peak RSS. Measured from pytest directly,
# wait4's ru_maxrss would include pytest's: Linux carries the forking process's high-water mark into the child at
# exec, so once the test session grew past the bound every run "used" it.
_LAUNCHER = """
import os, resource, signal, sys
limit, rss_file, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
pid = os.spawnv(os.P_NOWAIT, argv[0], argv)
_, status, usage = os.wait4(pid, 0)
with open(rss_file, "w") as out:
    out.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):  # die the way the CLI died, so the test sees the same return code
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def cli(*args: str, cwd: Path, timeout: float = 60, env: dict[str, str] | None = None,
        limit_memory: bool = True) -> Run:
    """`python -m khaos_action.cli ARGS` with an address-space limit; its own peak RSS comes from wait4."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "CLI_AGENT_"))}
    environ.update(env or {})
    out, err, rss = cwd / ".stdout", cwd / ".stderr", cwd / ".maxrss"
    rss.unlink(missing_ok=True)
    started = time.perf_counter()
    launcher = [sys.executable, "-c", _LAUNCHER, str(MEMORY_LIMIT if limit_memory else 0), str(rss),
                sys.executable, "-m", "khaos_action.cli", *args]
    with out.open("wb") as o, err.open("wb") as e:
        proc = subprocess.Popen(launcher, cwd=cwd, env=environ, stdout=o, stderr=e, start_new_session=True)
        try:
            proc.wait(timeout=max(0.0, started + timeout - time.perf_counter()))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise AssertionError(f"khaos-action {' '.join(args)} did not finish within {timeout}s") from None
    return Run(proc.returncode, out.read_text(errors="replace"), err.read_text(errors="replace"),
               time.perf_counter() - started, int(rss.read_text()) / 1024)


def assert_clean(run: Run, code: int, *, seconds: float = 30, rss_mb: float = 400) -> None:
    assert run.code == code, run
    assert "Traceback" not in run.stderr + run.stdout, run
    assert run.seconds < seconds, run
    assert run.max_rss_mb < rss_mb, run


AGENT = "version: 1\nagent:\n  entry: agents.py:support\n"
CONTRACT = """\
golden_prompts: ["hi"]
contract:
  invariants:
    - {id: answers, type: output_not_empty}
chaos_matrix: [{name: calm}]
"""


def _bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return AGENT + "\n".join(lines) + "\n" + CONTRACT


BAD_CONFIGS = [
    # (what, khaos.yaml text, fragments of the one error line)
    ("alias bomb (552 bytes)", _bomb(8), ["khaos.yaml:", "expands to more than 200,000 values"]),
    ("alias bomb, 9 levels", _bomb(9), ["khaos.yaml:", "expands to more than"]),
    ("alias bomb in a mapping", AGENT + "x: &x {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10}\n"
     + "".join(f"y{i}: &y{i} {{" + ", ".join(f"k{j}: *{'x' if i == 0 else f'y{i - 1}'}" for j in range(10)) + "}\n"
               for i in range(6)) + CONTRACT, ["expands to more than"]),
    ("recursive alias", AGENT + "x: &a [1, *a]\n" + CONTRACT, ["khaos.yaml:4:", "refers to its own anchor"]),
    ("5000-deep list", AGENT + "x: " + "[" * 5000 + "]" * 5000 + "\n" + CONTRACT,
     ["khaos.yaml:4:", "nesting is deeper than 64 levels"]),
    ("5000-deep block mapping", AGENT + "x:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 200)) + CONTRACT,
     ["nesting is deeper than 64 levels"]),
    ("5000-deep flow mapping", AGENT + "x: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n" + CONTRACT,
     ["nesting is deeper than"]),
    ("5000-digit int", AGENT + "seed: " + "9" * 5000 + "\n" + CONTRACT, ["khaos.yaml:4:7", "5,000 characters long"]),
    ("5000-digit negative int", AGENT.replace("support\n", "support\n  timeout_s: -" + "1" * 5000 + "\n") + CONTRACT,
     ["khaos.yaml:4:", "characters long"]),
    ("huge float exponent", AGENT + "seed: 1" + "0" * 400 + ".5\n" + CONTRACT, ["characters long"]),
    ("NUL byte", AGENT + CONTRACT.replace('"hi"', '"h\x00i"'), ["khaos.yaml:4:20", "NUL byte"]),
    ("other control character", AGENT + CONTRACT.replace('"hi"', '"h\x07i"'), ["khaos.yaml:4:", "U+0007"]),
    ("timeout_s: .inf", AGENT.replace("support\n", "support\n  timeout_s: .inf\n") + CONTRACT,
     ["khaos.yaml:4:14", "agent.timeout_s", "finite"]),
    ("timeout_s: .nan", AGENT.replace("support\n", "support\n  timeout_s: .nan\n") + CONTRACT, ["finite"]),
    ("timeout_s: a week", AGENT.replace("support\n", "support\n  timeout_s: 604800\n") + CONTRACT,
     ["agent.timeout_s", "more than a day"]),
    ("ready_timeout_s: 1e300", "version: 1\nagent:\n  type: http\n  url: http://127.0.0.1:9/chat\n"  # an http key
     "  ready_timeout_s: 1e300\n" + CONTRACT, ["agent.ready_timeout_s", "more than a day"]),
    ("max_output_bytes past 64 bits", AGENT.replace("support\n", "support\n  max_output_bytes: 99999999999999999999\n")
     + CONTRACT, ["max_output_bytes"]),
    ("delay_ms: 1e300", AGENT + CONTRACT.replace("[{name: calm}]", "[{name: slow, tool_faults: "
                                                  "[{tool: '*', mode: timeout, delay_ms: 1e300}]}]"),
     ["khaos.yaml:8:", "delay_ms", "more than a day"]),
    ("http fault latency .inf", AGENT + CONTRACT.replace("[{name: calm}]", "[{name: slow, http_faults: "
                                                          "[{mode: latency, delay_ms: .inf}]}]"), ["finite"]),
    ("fault probability NaN", AGENT + CONTRACT.replace("[{name: calm}]", "[{name: x, tool_faults: "
                                                        "[{tool: '*', mode: error, probability: .nan}]}]"),
     ["probability"]),
    ("NaN gate", AGENT + CONTRACT + "gates: {min_overall: .nan}\n", ["gates.min_overall", "finite"]),
    ("invalid regex", AGENT + CONTRACT.replace("{id: answers, type: output_not_empty}",
                                               "{id: r, type: regex, pattern: '(a+'}"),
     ["khaos.yaml:7:", "invalid regular expression"]),
    ("50 MB config", AGENT + CONTRACT + "# " + "x" * 1000 + "\n", None),  # replaced below by a real 50 MB file
    ("not UTF-8", None, ["is not UTF-8 text"]),
]


@pytest.mark.parametrize(("what", "config", "fragments"), BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_hostile_configs_are_exit_2_with_a_position_fast_and_small(tmp_path, what, config, fragments) -> None:
    ws = workspace(tmp_path)
    path = ws / "khaos.yaml"
    if what == "50 MB config":
        with path.open("w") as handle:
            handle.write(AGENT + CONTRACT + "extra:\n")
            line = "  - " + "x" * 1000 + "\n"
            for _ in range(50_000):
                handle.write(line)
        fragments = [f"khaos.yaml: is {MAX_YAML_BYTES + 1:,} bytes or more; the limit is {MAX_YAML_BYTES:,} bytes"]
    elif config is None:
        path.write_bytes((AGENT + CONTRACT).encode().replace(b'"hi"', b'"h\xff\xfei"'))
    else:
        path.write_text(config, encoding="utf-8")
    run = cli("validate", cwd=ws)
    assert_clean(run, 2, seconds=15, rss_mb=400)
    message = run.stderr.strip()
    assert message.startswith("error: ") and "\n" not in message, run
    for fragment in fragments:
        assert fragment in message, run


def test_a_hostile_pack_file_is_bounded_the_same_way(tmp_path) -> None:
    ws = workspace(tmp_path)
    (ws / "bomb.yaml").write_text(_bomb(9).replace(AGENT, "name: bomb\n").replace(CONTRACT, ""), encoding="utf-8")
    (ws / "khaos.yaml").write_text(AGENT + "packs: [./bomb.yaml]\n", encoding="utf-8")
    run = cli("validate", cwd=ws)
    assert_clean(run, 2, seconds=15, rss_mb=400)
    assert "bomb.yaml:" in run.stderr and "expands to more than" in run.stderr


def test_an_unknown_goal_metric_and_a_nan_threshold_are_config_errors(tmp_path) -> None:
    ws = workspace(tmp_path)
    pack = """\
name: goals
phases:
  - name: base
    type: baseline
    inputs: ["hi"]
    goals:
      - {metric: task_completeness, operator: gte, threshold: 0.8}
      - {metric: error_rate, operator: lte, threshold: .nan}
"""
    (ws / "goals.yaml").write_text(pack, encoding="utf-8")
    (ws / "khaos.yaml").write_text(AGENT + "packs: [./goals.yaml]\n", encoding="utf-8")
    run = cli("validate", cwd=ws)
    assert_clean(run, 2, seconds=15)
    assert "goals.yaml:7:" in run.stderr and "unknown goal metric 'task_completeness'" in run.stderr, run
    assert "goals.yaml:8:" in run.stderr and "finite" in run.stderr, run


# ---- agents that send back what used to break the writers ---------------------------------------------------------

ROBUST = Path(__file__).resolve().parents[1] / "fixtures" / "robust"


def robust_workspace(root: Path, config: str) -> Path:
    import shutil

    root.mkdir(parents=True, exist_ok=True)
    for path in ROBUST.glob("*.py"):
        shutil.copy(path, root / path.name)
    (root / "khaos.yaml").write_text(config, encoding="utf-8")
    return root


def whole_run(out: Path) -> tuple[dict, list[dict]]:
    """manifest.json and every events.jsonl line parse (files whole), one line per case."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    lines = (out / "events.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert {e["case_id"] for e in events} == {c["id"] for c in manifest["cases"]}
    assert len(events) == len(manifest["cases"])
    assert not list(out.glob(".*.tmp")), "a temp file was left behind"
    return manifest, events


def by_input(manifest: dict) -> dict[str, dict]:
    return {c["input"]: c for c in manifest["cases"] if c["pillar"] == "contract"}


HOSTILE_PY = """\
version: 1
agent:
  entry: agents.py:hostile
  timeout_s: 20
concurrency: 2
golden_prompts: ["surrogate", "surrogate error", "object args", "many notes", "many calls", "unprintable",
                 "aaaa", "hello"]
contract:
  invariants:
    - {id: answers, type: output_not_empty}
    - {id: nested-plus, type: regex, pattern: "(a+)+$"}
    - {id: alternation, type: regex, pattern: "(a|aa)+$"}
    - {id: no-lookup-x, type: tool_not_called, name: lookup, args: {x: "(a|aa)+$"}}
chaos_matrix: [{name: calm}]
"""


@pytest.fixture(scope="module")
def hostile_python(tmp_path_factory):
    ws = robust_workspace(tmp_path_factory.mktemp("hostile-py"), HOSTILE_PY)
    run = cli("run", "--out", "out", cwd=ws, timeout=120)
    return ws, run


def test_hostile_python_replies_are_stored_and_the_run_finishes(hostile_python) -> None:
    ws, run = hostile_python
    assert_clean(run, 0, seconds=90, rss_mb=700)
    manifest, _ = whole_run(ws / "out")
    assert (ws / "out" / "manifest.json").stat().st_size < 5_000_000
    assert (ws / "out" / "report.html").stat().st_size < 10_000_000


def test_lone_surrogates_are_replaced_and_noted(hostile_python) -> None:
    ws, _ = hostile_python
    cases = by_input(whole_run(ws / "out")[0])
    reply = cases["surrogate"]
    assert reply["output"] == "half a pair: \ufffd and a whole one: \U0001F600"
    assert any("invalid Unicode" in note for note in reply["notes"])
    assert "\ufffd" in cases["surrogate error"]["error"] and "bad" in cases["surrogate error"]["error"]


def test_tool_call_arguments_that_are_not_json_are_stringified(hostile_python) -> None:
    ws, _ = hostile_python
    calls = {c["name"]: c for c in by_input(whole_run(ws / "out")[0])["object args"]["tool_calls"]}
    args = calls["lookup"]["args"]
    assert args["x"].startswith("<object object at") and args["nan"] == "nan"
    assert args["raw"] == "\ufffd\ufffd" and args["bad"] == "\ufffd" and args["self"] == "<unprintable Unprintable>"
    assert "<unprintable int>" in args
    assert calls["oai"]["args"] == {"raw": "{not json"}
    assert "too deep or too large" in json.dumps(calls["nested"]["args"])


def test_notes_and_tool_calls_are_capped_per_case(hostile_python) -> None:
    ws, _ = hostile_python
    cases = by_input(whole_run(ws / "out")[0])
    notes = cases["many notes"]["notes"]
    assert len(notes) <= 100 and "99,901 more notes dropped" in " ".join(notes)
    busy = cases["many calls"]
    assert len(busy["tool_calls"]) == 200 and any("more tool calls dropped" in n for n in busy["notes"])
    assert cases["unprintable"]["output"] == "<unprintable Unprintable>"


def test_a_catastrophic_regex_is_an_error_on_that_check_not_a_hang(hostile_python) -> None:
    ws, run = hostile_python
    case = by_input(whole_run(ws / "out")[0])["aaaa"]
    assert case["output"] == "a" * 40 + "!"
    checks = {i["id"]: i for i in case["invariants"]}
    assert checks["alternation"]["passed"] is False and "timed out" in checks["alternation"]["detail"]
    assert checks["alternation"]["detail"].startswith("check error:")
    assert checks["nested-plus"]["passed"] is not None  # answered (no match), in time
    assert run.seconds < 90


def test_a_rerun_into_the_same_out_is_refused_and_force_replaces_it(hostile_python, tmp_path) -> None:
    ws, _ = hostile_python
    config = "version: 1\nagent:\n  entry: agents.py:hostile\n" + CONTRACT
    ws = robust_workspace(tmp_path / "rerun", config)
    assert_clean(cli("run", "--out", "out", cwd=ws), 0)
    manifest, events = whole_run(ws / "out")
    count, started = len(events), manifest["started_at"]
    again = cli("run", "--out", "out", cwd=ws)
    assert_clean(again, 2)
    assert "already holds a run" in again.stderr and "--force" in again.stderr
    assert len(whole_run(ws / "out")[1]) == count
    time.sleep(1.1)  # started_at has one-second resolution
    forced = cli("run", "--out", "out", "--force", cwd=ws)
    assert_clean(forced, 0)
    manifest, events = whole_run(ws / "out")
    assert len(events) == count and manifest["started_at"] != started  # replaced, not appended


def test_out_under_a_file_is_exit_3_with_one_message(tmp_path) -> None:
    ws = robust_workspace(tmp_path, "version: 1\nagent:\n  entry: agents.py:hostile\n" + CONTRACT)
    (ws / "blocker").write_text("a file")
    run = cli("run", "--out", "blocker/out", cwd=ws)
    assert_clean(run, 3)
    assert run.stderr.startswith("error: cannot write blocker/out:"), run


def test_a_file_size_limit_during_the_reports_is_exit_3_and_keeps_whole_files(tmp_path) -> None:
    """`ulimit -f`: SIGXFSZ is ignored so the write fails with EFBIG; every file left is whole."""
    ws = robust_workspace(tmp_path, "version: 1\nagent:\n  entry: agents.py:hostile\n" + CONTRACT)
    limit = 12 * 1024  # events.jsonl, manifest.json and report.md fit; report.html (~20 KB) does not

    def small_files() -> None:
        _limit_memory()
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    done = subprocess.run([sys.executable, "-m", "khaos_action.cli", "run", "--out", "out"], cwd=ws, env=environ,
                          capture_output=True, text=True, timeout=60, preexec_fn=small_files, check=False)
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert "file size limit" in done.stderr and "report.html" in done.stderr and "manifest.json" in done.stderr
    whole_run(ws / "out")
    assert not (ws / "out" / "report.html").exists()


def test_a_closed_output_pipe_is_quiet(tmp_path) -> None:
    ws = robust_workspace(tmp_path, "version: 1\nagent:\n  entry: agents.py:hostile\n" + CONTRACT)
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    proc = subprocess.Popen([sys.executable, "-m", "khaos_action.cli", "validate"], cwd=ws, env=environ,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before anything is printed, as with `| head -0`
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert stderr == ""
    shell = subprocess.run(f"{sys.executable} -m khaos_action.cli validate | head -1", shell=True, cwd=ws, env=environ,
                           capture_output=True, text=True, timeout=60, check=False)
    assert shell.stdout.startswith("khaos.yaml: valid") and shell.stderr == ""


# ---- processes: dead agents restarted, the right case blamed ------------------------------------------------------

def _contract(prompts: list[str]) -> str:
    return (f"golden_prompts: {json.dumps(prompts)}\ncontract:\n  invariants:\n"
            "    - {id: answers, type: output_not_empty}\nchaos_matrix: [{name: calm}]\nconcurrency: 1\n")


@pytest.mark.parametrize("instances", [1, 2])
def test_a_command_agent_that_exits_after_each_reply_never_fails_the_next_case(tmp_path, instances) -> None:
    prompts = [f"question {i}" for i in range(6)]
    config = (f"version: 1\nagent:\n  type: command\n  command: {sys.executable} cmd_agent.py exit-after-reply\n"
              f"  instances: {instances}\n  timeout_s: 10\n" + _contract(prompts))
    ws = robust_workspace(tmp_path, config)
    run = cli("run", "--out", "out", cwd=ws, timeout=120)
    assert_clean(run, 0, seconds=90)
    manifest, _ = whole_run(ws / "out")
    cases = by_input(manifest)
    for prompt in prompts:
        assert cases[prompt]["error"] is None and cases[prompt]["output"] == f"handled: {prompt}", cases[prompt]
    notes = [n for c in manifest["cases"] for n in c["notes"] if "restarted" in n]
    assert notes and all("after answering case" in n for n in notes), notes


def test_a_command_agent_that_dies_on_one_input_is_blamed_on_that_input_only(tmp_path) -> None:
    config = (f"version: 1\nagent:\n  type: command\n  command: {sys.executable} cmd_agent.py\n  timeout_s: 10\n"
              + _contract(["first", "please die", "after", "surrogate", "bad utf8", "huge", "last"])
              + "  \n").replace("concurrency: 1\n", "concurrency: 1\n")
    config = config.replace("  timeout_s: 10\n", "  timeout_s: 10\n  max_output_bytes: 100000\n")
    ws = robust_workspace(tmp_path, config)
    run = cli("run", "--out", "out", cwd=ws, timeout=120)
    assert_clean(run, 0, seconds=90, rss_mb=500)
    cases = by_input(whole_run(ws / "out")[0])
    assert cases["please die"]["error"].startswith("AgentCallError: agent process exited with code 9")
    assert "dying on purpose" in cases["please die"]["error"]
    for ok in ("first", "after", "last"):
        assert cases[ok]["error"] is None and cases[ok]["output"] == f"handled: {ok}", cases[ok]
    assert cases["surrogate"]["output"] == "lone \ufffd escape"
    assert any("invalid Unicode" in n for n in cases["surrogate"]["notes"])
    assert cases["bad utf8"]["output"] == "bytes \ufffd\ufffd\ufffd here"
    assert any("not valid UTF-8" in n for n in cases["bad utf8"]["notes"])
    assert "longer than" in cases["huge"]["error"] and "max_output_bytes" in cases["huge"]["error"]


HTTP_PROMPTS = ["hello", "surrogate", "bad utf8", "huge json", "huge text", "redirect", "loop", "nothing", "bye"]


@pytest.fixture(scope="module")
def hostile_http(tmp_path_factory):
    config = (f"version: 1\nagent:\n  type: http\n  start: {sys.executable} http_agent.py {{{{port}}}}\n"
              "  url: http://127.0.0.1:{{port}}/chat\n  ready_url: http://127.0.0.1:{{port}}/health\n"
              "  timeout_s: 30\n  max_output_bytes: 100000\n" + _contract(HTTP_PROMPTS))
    ws = robust_workspace(tmp_path_factory.mktemp("hostile-http"), config)
    return ws, cli("run", "--out", "out", cwd=ws, timeout=120)


def test_hostile_http_replies_are_bounded_and_not_mistaken_for_answers(hostile_http) -> None:
    ws, run = hostile_http
    assert_clean(run, 0, seconds=90, rss_mb=400)  # a 1 GB reply used to peak at 6.5 GB
    cases = by_input(whole_run(ws / "out")[0])
    assert cases["hello"]["output"] == "handled: hello" and cases["bye"]["output"] == "handled: bye"
    assert cases["surrogate"]["output"] == "lone \ufffd escape"
    assert cases["bad utf8"]["output"] == "bytes \ufffd\ufffd here"
    assert any("not valid UTF-8" in n for n in cases["bad utf8"]["notes"])
    assert "more than 665,536 bytes of JSON" in cases["huge json"]["error"]
    text = cases["huge text"]
    assert text["error"] is None and text["output_truncated"] and set(text["output"]) == {"y"}
    assert any("reading stopped" in n for n in text["notes"])
    assert "HTTP 301 (a redirect to /moved), not a reply" in cases["redirect"]["error"]
    assert "Moved" not in cases["redirect"]["output"]
    assert "HTTP 302" in cases["loop"]["error"]
    assert "HTTP 204 with no reply body" in cases["nothing"]["error"]


def test_64_http_instances_all_start_without_port_clashes(tmp_path) -> None:
    config = (f"version: 1\nagent:\n  type: http\n  start: {sys.executable} http_agent.py {{{{port}}}}\n"
              "  url: http://127.0.0.1:{{port}}/chat\n  ready_url: http://127.0.0.1:{{port}}/health\n"
              "  instances: 64\n  ready_timeout_s: 60\n" + _contract([f"q{i}" for i in range(64)])
              ).replace("concurrency: 1\n", "concurrency: 64\n")
    ws = robust_workspace(tmp_path, config)
    for attempt in range(2):
        run = cli("run", "--out", f"out{attempt}", cwd=ws, timeout=240, limit_memory=False)
        assert_clean(run, 0, seconds=200, rss_mb=1500)
        manifest, _ = whole_run(ws / f"out{attempt}")
        assert all(c["error"] is None for c in manifest["cases"])


def test_reserved_ports_are_distinct_and_outside_the_ephemeral_range() -> None:
    from khaos_action.engine.transport.ports import ephemeral_range, reserve_ports

    ports = reserve_ports(64)
    low, high = ephemeral_range()
    assert len(set(ports)) == 64
    assert all(not low <= p <= high for p in ports)


MCP_AGENT = """\
version: 1
agent:
  type: mcp
  mcp: {{command: "{python} mcp_agent_server.py {extra}"}}
  instances: {instances}
  timeout_s: 20
"""


@pytest.mark.parametrize("instances", [1, 2])
def test_an_mcp_agent_server_that_dies_is_restarted_and_the_right_case_blamed(tmp_path, instances) -> None:
    pytest.importorskip("mcp")
    config = MCP_AGENT.format(python=sys.executable, extra="", instances=instances) + _contract(
        ["first", "please die", "after", "last"])
    ws = robust_workspace(tmp_path, config)
    run = cli("run", "--out", "out", cwd=ws, timeout=180, limit_memory=False)
    assert_clean(run, 0, seconds=150, rss_mb=800)
    cases = by_input(whole_run(ws / "out")[0])
    assert cases["please die"]["error"] and "failed" in cases["please die"]["error"]
    for ok in ("first", "after", "last"):
        assert cases[ok]["error"] is None and cases[ok]["output"] == f"answered: {ok}", cases[ok]


def test_an_mcp_agent_server_that_exits_after_each_reply_is_restarted_each_time(tmp_path) -> None:
    pytest.importorskip("mcp")
    prompts = ["one", "two", "three"]
    config = MCP_AGENT.format(python=sys.executable, extra="exit-after-reply", instances=1) + _contract(prompts)
    ws = robust_workspace(tmp_path, config)
    run = cli("run", "--out", "out", cwd=ws, timeout=180, limit_memory=False)
    assert_clean(run, 0, seconds=150, rss_mb=800)
    manifest, _ = whole_run(ws / "out")
    cases = by_input(manifest)
    for prompt in prompts:
        assert cases[prompt]["error"] is None and cases[prompt]["output"] == f"answered: {prompt}", cases[prompt]
    assert any("after answering case" in n for c in manifest["cases"] for n in c["notes"])


def test_a_used_mcp_server_that_dies_during_no_chaos_is_reported_and_restarted(tmp_path) -> None:
    pytest.importorskip("mcp")
    config = (f"version: 1\nagent:\n  entry: agents.py:shop\n  timeout_s: 20\n  mcp_servers:\n"
              f"    - {{name: shop, command: \"{sys.executable} mcp_shop_server.py\", env_var: SHOP_MCP_URL}}\n"
              + _contract(["order 1234", "order 0000", "order 5678"]))
    ws = robust_workspace(tmp_path, config)
    run = cli("run", "--out", "out", cwd=ws, timeout=180, limit_memory=False)
    assert_clean(run, 0, seconds=150, rss_mb=800)
    manifest, _ = whole_run(ws / "out")
    cases = by_input(manifest)
    assert "failed" in cases["order 0000"]["output"]  # the agent saw a tool error, not a hang
    deaths = [w for w in manifest["warnings"] if "MCP server `shop`" in w and "died during this call" in w]
    assert len(deaths) == 1, manifest["warnings"]
    assert cases["order 5678"]["output"] == "Order 5678: shipped."  # restarted for the next call


def test_a_used_mcp_server_dying_is_a_note_on_the_case_it_served(tmp_path) -> None:
    """Out-of-process agents are attributed per instance, so the death lands on the case that caused it."""
    pytest.importorskip("mcp")
    config = (f"version: 1\nagent:\n  type: command\n  command: {sys.executable} mcp_cmd_agent.py\n  timeout_s: 20\n"
              f"  mcp_servers:\n"
              f"    - {{name: shop, command: \"{sys.executable} mcp_shop_server.py\", env_var: SHOP_MCP_URL}}\n"
              + _contract(["order 1234", "order 0000", "order 5678"]))
    ws = robust_workspace(tmp_path, config)
    run = cli("run", "--out", "out", cwd=ws, timeout=180, limit_memory=False)
    assert_clean(run, 0, seconds=150, rss_mb=800)
    manifest, _ = whole_run(ws / "out")
    cases = by_input(manifest)
    died = cases["order 0000"]
    assert any("MCP server `shop`" in n and f"case {died['id']}; no chaos was active" in n
               for n in died["notes"]), died["notes"]
    assert any("MCP server `shop`" in w and "died" in w for w in manifest["warnings"])
    assert cases["order 5678"]["output"] == "Order 5678: shipped."


# ---- huge and deep manifests ---------------------------------------------------------------------------------------

def _deep_manifest(path: Path, levels: int = 200_000) -> None:
    path.write_text('{"run_id": "r", "extra": ' + "[" * levels + "]" * levels + "}", encoding="utf-8")


def test_compare_with_a_manifest_nested_200000_deep_is_exit_2(tmp_path) -> None:
    ws = robust_workspace(tmp_path, "version: 1\nagent:\n  entry: agents.py:hostile\n" + CONTRACT)
    assert_clean(cli("run", "--out", "out", cwd=ws), 0)
    _deep_manifest(ws / "deep.json")
    for args in (("deep.json", "out/manifest.json"), ("out/manifest.json", "deep.json")):
        run = cli("compare", *args, cwd=ws)
        assert_clean(run, 2, seconds=20)
        assert "deep.json: nested too deeply to be a manifest" in run.stderr, run
    merged = cli("merge", "out/manifest.json", "deep.json", "--out", "merged", cwd=ws)
    assert_clean(merged, 2, seconds=20)
    exported = cli("replay", "export", "deep.json", cwd=ws)
    assert_clean(exported, 2, seconds=20)


def test_a_deep_baseline_artifact_is_a_warning_and_the_action_still_comments(tmp_path) -> None:
    import io
    import zipfile

    from tests.github_api import TOKEN, serve

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", '{"run_id": "r", "extra": ' + "[" * 200_000 + "]" * 200_000 + "}")
    ws = robust_workspace(tmp_path / "ws", "version: 1\nagent:\n  entry: agents.py:hostile\n" + CONTRACT)
    runner = tmp_path / "runner"
    runner.mkdir()
    event = {"pull_request": {"number": 5, "base": {"ref": "main", "sha": "b1", "repo": {"full_name": "o/r"}},
                              "head": {"ref": "f", "sha": "h1", "repo": {"full_name": "o/r"}}},
             "repository": {"full_name": "o/r", "default_branch": "main"}}
    (runner / "event.json").write_text(json.dumps(event))
    with serve() as api:
        api.add_artifact(content=buffer.getvalue(), sha="b1")
        env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root"),
               "PYTHONPATH": os.environ.get("PYTHONPATH", ""), "GITHUB_API_URL": api.api_url,
               "GITHUB_REPOSITORY": "o/r", "GITHUB_EVENT_NAME": "pull_request",
               "GITHUB_EVENT_PATH": str(runner / "event.json"), "GITHUB_RUN_ID": "9", "GITHUB_SHA": "h1",
               "GITHUB_REF": "refs/pull/5/merge", "GITHUB_WORKSPACE": str(ws), "GITHUB_ACTIONS": "true",
               "GITHUB_WORKFLOW_REF": "o/r/.github/workflows/khaos.yml@refs/pull/5/merge",
               "GITHUB_OUTPUT": str(runner / "output"), "GITHUB_STEP_SUMMARY": str(runner / "summary"),
               "INPUT_GITHUB-TOKEN": TOKEN, "INPUT_CONFIG": "khaos.yaml", "INPUT_COMMENT": "always",
               "INPUT_FAIL-ON": "critical", "INPUT_BASELINE": "artifact"}
        started = time.perf_counter()
        done = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[2] / "entrypoint.py")],
                              cwd=ws, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert time.perf_counter() - started < 90
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr and "RecursionError" not in done.stdout
        assert "nested too deeply" in done.stdout
        assert api.comments.get(5), "the action did not post its comment"
