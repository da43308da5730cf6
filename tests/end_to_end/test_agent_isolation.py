"""A hostile python agent, run through the CLI with runner secrets in our environment: it finds no token (in its
environment, its heap, /proc/self, /proc/$PPID and /proc/1 environ as far as its own process can read them),
changes no runner command file, issues no workflow command through our stdout, and cannot choose the exit code.
SystemExit, KeyboardInterrupt, os._exit, a segfault and a hung call each fail only their own case, and the run
reaches its verdict. (The drop to an unprivileged user is exercised by the container test; this process is the
same uid as the agent here, so only what the worker's own process can read is asserted.)"""

from __future__ import annotations

import json
import secrets
import shutil
from pathlib import Path

from tests.fixtures.cli.harness import khaos, manifest

HOSTILE = Path(__file__).resolve().parent.parent / "fixtures" / "hostile" / "hostile.py"
ENDINGS = ("exit", "interrupt", "os_exit", "segfault", "hang", "hello")
CONFIG = f"""\
version: 1
agent:
  name: hostile
  entry: hostile.py:handle
  timeout_s: 4
concurrency: 3
golden_prompts: {json.dumps(list(ENDINGS))}
contract:
  name: hostile-contract
  invariants:
    - {{id: answers, type: output_not_empty, severity: critical}}
chaos_matrix: [{{name: no-chaos}}]
"""


def test_a_hostile_agent_finds_no_token_steers_nothing_and_every_ending_is_its_cases_error(tmp_path: Path) -> None:
    token = f"FAKE-TOKEN-{secrets.token_hex(8)}"
    shutil.copy(HOSTILE, tmp_path / "hostile.py")
    (tmp_path / "khaos.yaml").write_text(CONFIG, encoding="utf-8")
    github_env, github_output = tmp_path / "github_env", tmp_path / "github_output"
    github_env.write_text("", encoding="utf-8")
    github_output.write_text("", encoding="utf-8")

    ran = khaos("run", "--out", "out", cwd=tmp_path, timeout=120, env={
        "GITHUB_TOKEN": token, "INPUT_GITHUB-TOKEN": token, "ACTIONS_RUNTIME_TOKEN": token,
        "GITHUB_ENV": str(github_env), "GITHUB_OUTPUT": str(github_output)})

    # The verdict is ours: the run fails on the cases that could not answer, with our exit code (not 0/42/130).
    verdict = manifest(tmp_path / "out")["verdict"]
    assert verdict["passed"] is False and ran.code == verdict["exit_code"] and ran.code not in (0, 42, 130), ran
    cases = {c["input"]: c for c in manifest(tmp_path / "out")["cases"] if c["pillar"] == "contract"}
    assert cases["hello"]["output"] == "fine: hello" and not cases["hello"].get("error")
    errors = {text: cases[text].get("error") or "" for text in ENDINGS[:-1]}
    assert "SystemExit" in errors["exit"], errors
    assert "KeyboardInterrupt" in errors["interrupt"], errors
    assert "exited with code 42" in errors["os_exit"], errors
    assert "SIGSEGV" in errors["segfault"], errors
    assert "timed out" in errors["hang"], errors

    # What the agent could read, from inside its own process.
    for text in ENDINGS:
        loot = json.loads((tmp_path / f"loot-{text}.json").read_text(encoding="utf-8"))
        assert token not in json.dumps(loot), f"{text}: the agent found the token: {loot}"
        assert not [k for k in loot["env"] if k.startswith(("GITHUB_", "INPUT_", "ACTIONS_"))], loot["env"]
        assert loot["modules"] == [], "the agent's process holds none of the action's GitHub client"
        assert loot["written"] == [], f"{text}: the agent wrote runner command files {loot['written']}"
        assert "GITHUB_OUTPUT" not in loot["parent_environ"]  # our exec-time environment holds no paths either
    assert github_env.read_text(encoding="utf-8") == "" and github_output.read_text(encoding="utf-8") == ""

    # Nothing the agent printed became a workflow command on our stdout, and no report carries the token.
    assert not [line for line in ran.stdout.splitlines() if line.startswith("::")], ran.stdout
    for path in (tmp_path / "out").iterdir():
        assert token not in path.read_text(encoding="utf-8", errors="replace"), path
