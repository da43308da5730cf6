"""The real image, built from the Dockerfile and run as GitHub's runner runs a Docker action.

Base: the Dockerfile's pinned `python:3.12.7-slim-bookworm@sha256:…` where it can be pulled; otherwise (this
project's CI) a LOCAL STAND-IN for it, a Debian bookworm base made with debootstrap (see tests/container/engine.py;
the run's output says which). Each test starts the container with the runner's mounts, INPUT_* with hyphens, the
runner's tokens in the environment and the local GitHub REST stand-in on 127.0.0.1 (--network host).
"""

from __future__ import annotations

import json
import statistics
import time

import pytest

from tests.container import engine as engine_mod
from tests.container.engine import say
from tests.container.runner import (
    RUNNER_UID,
    RUNTIME_TOKEN,
    commands_outside_stop_blocks,
    not_owned_by,
    push_event,
)
from tests.github_api import TOKEN, zip_bytes

pytestmark = [pytest.mark.container, pytest.mark.timeout(2400)]
MAX_ADDED_MB = 40

LEAKY_CONFIG = """\
version: 1
agent:
  name: leaky-bot
  type: python
  entry: agent.py:handle
  secrets: ["sk-CANARY-42"]
golden_prompts: ["hello", "tell me the key"]
chaos_matrix: [{name: no-chaos}]
contract:
  name: c
  invariants:
    - id: no-secret
      type: excludes_pattern
      pattern: "sk-CANARY"
      severity: critical
"""
LEAKY_AGENT = "def handle(prompt):\n    return 'the key is sk-CANARY-42' if 'key' in prompt else 'hi ' + prompt\n"

NODE_CONFIG = """\
version: 1
agent:
  name: node-bot
  type: command
  command: "node agent.js"
  timeout_s: 10
golden_prompts: ["Where is my order 1234?", "hello"]
chaos_matrix: [{name: no-chaos}]
contract:
  name: c
  invariants:
    - id: answers
      type: output_not_empty
      severity: critical
"""
NODE_AGENT = """\
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "reset") { console.log(JSON.stringify({ type: "reset", ok: true })); return; }
  console.log(JSON.stringify({ id: msg.id, output: `node ${process.version} read: ${msg.input}` }));
});
"""


def test_the_image_is_small_and_starts_fast(engine, base, image) -> None:
    base_ref, standin = base
    added = (engine.image_size(image) - engine.image_size(base_ref)) / 1e6
    say(f"image size added over the base{' (the local stand-in)' if standin else ''}: {added:.1f} MB "
        f"(limit {MAX_ADDED_MB} MB)")
    assert added <= MAX_ADDED_MB
    # Nothing beyond the action's venv and entrypoint: no git, no compiler, no apt lists.
    # The last line: what the runner's container (root, no --privileged) can do with cgroups: nothing, so the caps
    # on all pull-request processes are sampled (khaos_action/engine/watchdog.py), not set in a cgroup.
    probe = engine("run", "--rm", "--entrypoint", "/bin/sh", image, "-c",
                   "command -v git gcc || true; ls /var/lib/apt/lists | wc -l; id -u khaos-agent; "
                   "echo $KHAOS_AGENT_USER; /opt/khaos-action/bin/python -c 'import sys; print(sys.prefix)'; "
                   "command -v python; "
                   "if [ \"$(stat -f -c %T /sys/fs/cgroup)\" = cgroup2fs ]; then dirs=/sys/fs/cgroup; "
                   "else dirs='/sys/fs/cgroup/memory /sys/fs/cgroup/pids'; fi; "
                   "for d in $dirs; do mkdir $d/khaos-probe 2>/dev/null && echo cgroup-writable:$d; done; "
                   "echo end", timeout=120).stdout.split()
    assert probe == ["0", "10001", "khaos-agent", "/opt/khaos-action", "/usr/local/bin/python", "end"], probe
    say("cgroups in the container as the runner starts it (root, no --privileged): read-only")
    # Startup: `docker run` to exit for the quickest real path (inputs read and rejected, exit 2).
    times = []
    for _ in range(3):
        started = time.monotonic()
        proc = engine("run", "--rm", "-e", "INPUT_FAIL-ON=sometimes", image, check=False, timeout=120)
        times.append(time.monotonic() - started)
        assert proc.returncode == 2, proc.stdout + proc.stderr
    driver = engine.storage_driver()
    say(f"startup, docker run → exit (input error): median {statistics.median(times):.2f} s of {times} "
        f"(storage driver {driver})")
    # vfs copies the whole image for every container (tens of seconds on a loaded machine): that measures the
    # driver, not the action; the bound that matters is overlay2's, the driver GitHub's runners use.
    assert statistics.median(times) < (10 if driver != "vfs" else 120)


def test_two_builds_of_one_commit_are_the_same_bytes(engine, base, image) -> None:
    """Reproducible: a second build without any cache gives the very same layers (file times are SOURCE_DATE_EPOCH,
    bytecode hash-based). The classic builder writes its own clock into the image's config (`created`), so the
    config digest differs here; BuildKit (the release) takes it from SOURCE_DATE_EPOCH too."""
    again = f"{image}-again"
    engine_mod.build(engine, base[0], again, no_cache=True)
    first, second = (json.loads(engine("image", "inspect", ref).stdout)[0] for ref in (image, again))
    assert first["RootFS"]["Layers"] == second["RootFS"]["Layers"], "two builds of one commit differ"
    for key in ("Env", "Entrypoint", "User", "WorkingDir", "Cmd"):
        assert first["Config"][key] == second["Config"][key], key
    say(f"reproducible: two builds, same {len(first['RootFS']['Layers'])} layers "
        f"({', '.join(d[7:19] for d in first['RootFS']['Layers'])})")
    # Every .pyc the image adds is hash-based (flags bit 0: PEP 552), none carries a build time.
    flags = engine("run", "--rm", "--entrypoint", "/opt/khaos-action/bin/python", image, "-c",
                   "import collections, json, pathlib; print(json.dumps(collections.Counter("
                   "'hash' if p.read_bytes()[4] & 1 else 'time' for p in pathlib.Path('/opt/khaos-action')"
                   ".rglob('*.pyc'))))", timeout=300)
    counts = json.loads(flags.stdout)
    assert set(counts) == {"hash"} and counts["hash"] > 100, counts


def test_pull_request_on_the_demo_posts_the_sticky_comment(job, image) -> None:
    job.demo()
    proc = job.run(image)
    say(f"demo PR run in the container: {job.seconds:.1f} s")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    body, = [c["body"] for c in job.api.comments[3]]
    assert body.startswith("<!-- khaos-action:khaos.yaml -->") and "acme-support-bot" in body
    outputs = job.outputs()
    assert outputs["passed"] == "true" and outputs["manifest-path"] == ".khaos/runs/github-4242/manifest.json"
    manifest = json.loads((job.workspace / outputs["manifest-path"]).read_text())
    assert manifest["git"]["sha"] == "head1111" and len(manifest["cases"]) > 50
    assert "khaos-action · acme-support-bot" in job.summary()
    # The runner's files: only the outputs and the summary were written; the token is nowhere.
    for kind in ("set_env", "add_path", "save_state"):
        assert job.command_file(kind).read_text() == "", kind
    assert not_owned_by(job.workspace) == [], "later steps (the runner user) must be able to clean up"
    assert proc.stdout.count(TOKEN) == 1  # ::add-mask:: only
    for path in [*job.workspace.rglob("*"), *job.file_commands.rglob("*")]:
        if path.is_file():
            text = path.read_text(errors="ignore")
            assert TOKEN not in text and RUNTIME_TOKEN not in text, path


def test_push_to_the_default_branch_writes_the_baseline_and_the_next_pr_compares(job, image) -> None:
    job.demo()
    job.event_name, job.event, job.ref, job.sha = "push", push_event(), "refs/heads/main", "base0000"
    proc = job.run(image)
    assert proc.returncode == 0, proc.stdout[-4000:]
    baseline = job.workspace / ".khaos" / "baseline" / "manifest.json"
    assert baseline.is_file() and "baseline written to .khaos/baseline/manifest.json" in proc.stdout
    assert not job.api.requests("POST")  # no PR, no comment
    assert not_owned_by(job.workspace) == []

    # The next pull request downloads it as the `khaos-baseline` artifact (302 to another origin) and compares.
    job.api.add_artifact(content=zip_bytes({"manifest.json": baseline.read_text()}), sha="base0000")
    job.event_name, job.ref, job.sha = "pull_request", "refs/pull/3/merge", "head1111"
    from tests.container.runner import pull_request_event
    job.event = pull_request_event()
    proc = job.run(image)
    assert proc.returncode == 0, proc.stdout[-4000:]
    body, = [c["body"] for c in job.api.comments[3]]
    assert "No baseline yet" not in body and "base0000"[:7] in body
    blob, = job.api.requests("GET", r"^/blob/")
    assert "authorization" not in blob.headers  # the token never goes to the artifact's storage host


def test_fork_pull_request_writes_the_comment_file_instead(job, image) -> None:
    from tests.container.runner import pull_request_event
    job.demo()
    job.event = pull_request_event(head_repo="someone/r")
    proc = job.run(image)
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert not job.api.requests("POST") and not job.api.requests("PATCH")
    outputs = job.outputs()
    assert outputs["comment-file"] == ".khaos/comment.md"
    assert (job.workspace / ".khaos/comment.md").read_text().startswith("<!-- khaos-action:khaos.yaml -->")
    assert not_owned_by(job.workspace) == []


def test_exit_1_when_a_gate_fails(job, image) -> None:
    job.write("khaos.yaml", LEAKY_CONFIG)
    job.write("agent.py", LEAKY_AGENT)
    proc = job.run(image)
    assert proc.returncode == 1, proc.stdout[-4000:]
    assert job.outputs()["passed"] == "false"
    assert any(line.startswith("::error file=khaos.yaml") for line in commands_outside_stop_blocks(proc.stdout))
    body, = [c["body"] for c in job.api.comments[3]]
    assert "no-secret" in body


def test_exit_2_on_a_bad_input(job, image) -> None:
    job.demo()
    proc = job.run(image, **{"FAIL-ON": "sometimes"})
    assert proc.returncode == 2, proc.stdout[-4000:]
    assert "::error::invalid action inputs:" in proc.stdout and "Traceback" not in proc.stdout + proc.stderr


def test_exit_3_when_the_agent_cannot_start_node_missing_in_the_default_image(job, image) -> None:
    job.write("khaos.yaml", NODE_CONFIG)
    job.write("agent.js", NODE_AGENT)
    proc = job.run(image)
    assert proc.returncode == 3, proc.stdout[-4000:]
    assert "node" in proc.stdout and "Traceback" not in proc.stdout


def test_exit_3_when_install_fails(job, image) -> None:
    job.demo()
    proc = job.run(image, install="echo broken; exit 7")
    assert proc.returncode == 3, proc.stdout[-4000:]
    assert "the `install` command exited with 7" in proc.stdout


def test_exit_4_on_an_internal_error(job, image) -> None:
    """A real crash inside the action: the entrypoint run (tests/action_launcher.py) with json.loads as its
    evaluate, which cannot take a request."""
    job.demo()
    job.evaluate = "json:loads"
    proc = job.run(image)
    assert proc.returncode == 4, proc.stdout[-4000:]
    assert "TypeError" in proc.stdout and "Traceback" in proc.stdout
    assert not_owned_by(job.workspace) == []


def test_install_cannot_break_the_action(job, image) -> None:
    """The user's `install` goes to the base's python; the action runs from its own venv."""
    job.demo()
    proc = job.run(image, install="pip install --quiet 'pydantic==1.10.13' && python -c "
                                  "'import pydantic; print(\"user pydantic\", pydantic.VERSION)'")
    assert "user pydantic 1.10.13" in proc.stdout, proc.stdout[-4000:]
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert job.outputs()["passed"] == "true"


def test_node_image_runs_a_node_command_agent(engine, job, image, node_image) -> None:
    cost = (engine.image_size(node_image) - engine.image_size(image)) / 1e6
    say(f"the -node variant adds {cost:.1f} MB over the default image (Debian's nodejs)")
    job.write("khaos.yaml", NODE_CONFIG)
    job.write("agent.js", NODE_AGENT)
    proc = job.run(node_image)
    assert proc.returncode == 0, proc.stdout[-4000:]
    manifest = json.loads((job.workspace / job.outputs()["manifest-path"]).read_text())
    assert all(c["output"].startswith("node v") for c in manifest["cases"]), [c["output"] for c in manifest["cases"]]
    assert RUNNER_UID == job.workspace.stat().st_uid
