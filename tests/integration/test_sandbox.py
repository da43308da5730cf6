"""engine/sandbox.py on real processes: what an agent process inherits, the limits it runs under, and (when these
tests run as root) the drop to an unprivileged user that cannot read our /proc/PID/environ or /proc/1/environ."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from khaos_action.config.models import AgentConfig
from khaos_action.engine import sandbox
from khaos_action.engine.transport.command import CommandTransport
from khaos_action.messages import AgentRequest
from tests import shell

RUNNER = {"GITHUB_TOKEN": "t0k", "INPUT_GITHUB-TOKEN": "t0k", "ACTIONS_RUNTIME_TOKEN": "t0k", "GITHUB_ENV": "/x",
          "GITHUB_OUTPUT": "/y", "RUNNER_TRACKING_TOKEN": "t0k", "PATH": "/usr/bin:/bin", "HOME": "/root",
          "LANG": "C.UTF-8", "OPENAI_API_KEY": "sk-1", "UNRELATED": "u"}


def test_by_default_the_agent_gets_the_users_variables_but_nothing_of_the_runner() -> None:
    runner = {**RUNNER, "GITHUB_REPOSITORY": "o/r", "RUNNER_TEMP": "/t", "KHAOS_LLM_CACHE": "replay",
              "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    env = sandbox.clean_env(configured={"MODE": "test", "INPUT_X": "from-config"}, environ=runner)
    assert env == {"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8", "OPENAI_API_KEY": "sk-1",
                   "UNRELATED": "u", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "MODE": "test"}


def test_the_clean_environment_is_the_allowlist_the_declared_names_and_the_agents_env() -> None:
    env = sandbox.clean_env(configured={"MODE": "test", "GITHUB_TOKEN": "from-config"},
                            pass_env=["OPENAI_API_KEY", "GITHUB_TOKEN", "INPUT_GITHUB-TOKEN"], environ=RUNNER)
    assert env == {"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8", "OPENAI_API_KEY": "sk-1",
                   "MODE": "test"}
    assert "t0k" not in sandbox.visible_environ(RUNNER).values()


def test_limits_apply_in_the_child_before_it_runs() -> None:
    limits = sandbox.Limits(memory_bytes=512 * 1024 * 1024, open_files=64, file_size_bytes=4096)
    code = ("import resource as r; print(r.getrlimit(r.RLIMIT_NOFILE)[0], r.getrlimit(r.RLIMIT_AS)[0]);"
            "open('big', 'wb').write(b'x' * 10000)")
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True,
                              env=sandbox.clean_env(environ=os.environ), **sandbox.spawn_kwargs(limits=limits))
        assert done.stdout.split()[:2] == ["64", str(512 * 1024 * 1024)]
        assert done.returncode != 0  # SIGXFSZ (or EFBIG): the 10 kB file is over the 4 kB limit
        assert Path(folder, "big").stat().st_size <= 4096


def test_a_copy_of_the_token_under_another_name_is_as_secret_as_the_token() -> None:
    token = "ghs_0123456789abcdef"
    runner = {**RUNNER, "GITHUB_TOKEN": token, "GH_TOKEN": token, "MY_COPY": token, "SHORT": "t0k"}
    for env in (sandbox.clean_env(environ=runner), sandbox.clean_env(pass_env=["GH_TOKEN"], environ=runner),
                sandbox.visible_environ(runner)):
        assert token not in env.values()
    assert sandbox.clean_env(environ=runner)["UNRELATED"] == "u"


def test_copies_of_the_token_leave_our_exec_time_environment_too(tmp_path: Path) -> None:
    script = tmp_path / "reexec.py"
    script.write_text(
        "import os, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})\n"
        "from khaos_action.engine.sandbox import hide_runner_secrets\n"
        "hide_runner_secrets([__file__])\n"
        "print(open('/proc/self/environ', 'rb').read().count(b'ghs_0123456789'), os.environ.get('MY_COPY'))\n",
        encoding="utf-8")
    env = {**RUNNER, "GITHUB_TOKEN": "ghs_0123456789abcdef", "MY_COPY": "ghs_0123456789abcdef",
           "PATH": os.environ["PATH"]}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "ghs_0123456789abcdef"]


def test_the_runner_secrets_stay_out_of_our_exec_time_environment_after_the_re_exec(tmp_path: Path) -> None:
    script = tmp_path / "reexec.py"
    script.write_text(
        "import os, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})\n"
        "from khaos_action.engine.sandbox import hide_runner_secrets\n"
        "hide_runner_secrets([__file__])\n"
        "print(open('/proc/self/environ', 'rb').read().count(b't0k'), os.environ.get('GITHUB_TOKEN'))\n",
        encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], env={**RUNNER, "PATH": os.environ["PATH"]},
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "t0k"]  # gone from /proc/self/environ, still ours in memory


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another user needs root")
def test_as_root_a_command_agent_runs_as_the_agent_user_and_cannot_read_our_environ(monkeypatch) -> None:
    monkeypatch.setenv(sandbox.USER_ENV, "nobody")
    agent_sh = ('while IFS= read -r line; do id=$(printf %s "$line" | sed \'s/.*"id": *"\\([^"]*\\)".*/\\1/\'); '
                'mine=$(cat /proc/$PPID/environ >/dev/null 2>&1 && echo readable || echo denied); '
                'init=$(cat /proc/1/environ >/dev/null 2>&1 && echo readable || echo denied); '
                'printf \'{"id": "%s", "output": "uid=%s parent=%s init=%s"}\\n\' "$id" "$(id -u)" "$mine" "$init"; '
                'done')
    folder = Path(tempfile.mkdtemp())
    try:
        folder.chmod(0o755)  # the agent user must be able to enter its working directory
        (folder / "agent.sh").write_text(agent_sh, encoding="utf-8")
        transport = CommandTransport(AgentConfig(type="command", command="sh agent.sh"), base_dir=folder,
                                     services=shell.services())

        async def one() -> str:
            await transport.start()
            try:
                reply = await transport.send(AgentRequest("hi", [], "s", case_id="c"))
            finally:
                await transport.close()
            return reply.text

        text = asyncio.run(one())
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)
    assert text == "uid=65534 parent=denied init=denied", text
