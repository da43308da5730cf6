"""The python worker's environment: LiteLLM reads the price list it ships instead of fetching one from the internet
at import (an offline worker would wait out its retries), and the libraries that send usage telemetry home send
none, unless the user says otherwise in their own environment or in agent.env."""

from __future__ import annotations

from pathlib import Path

from khaos_action.config.agents import PythonAgent
from khaos_action.engine.worker.start import QUIET_ENV, WorkerStarter, python_worker

KEY = "LITELLM_LOCAL_MODEL_COST_MAP"


def worker_env(agent: PythonAgent, environ: dict[str, str]) -> dict[str, str]:
    starter = WorkerStarter(agent, base_dir=Path("."), environ=environ, zygote=False,
                            **python_worker(agent, environ))
    return starter.command()[1]


def test_litellm_reads_its_own_price_list_in_the_worker() -> None:
    assert worker_env(PythonAgent(name="a", entry="agent.py:handle"), {"PATH": "/usr/bin"})[KEY] == "True"
    crew = PythonAgent.model_validate({"name": "a", "type": "python", "entry": "agent.py:handle",
                                       "pass_env": ["PATH"]})
    assert worker_env(crew, {"PATH": "/usr/bin", KEY: "False"})[KEY] == "True"  # not passed: ours


def test_the_users_own_setting_wins() -> None:
    inherited = PythonAgent(name="a", entry="agent.py:handle")
    assert worker_env(inherited, {"PATH": "/usr/bin", KEY: "False"})[KEY] == "False"
    configured = PythonAgent(name="a", entry="agent.py:handle", env={KEY: "False"})
    assert worker_env(configured, {"PATH": "/usr/bin"})[KEY] == "False"


def test_telemetry_is_off_in_the_worker_unless_the_user_turns_it_on() -> None:
    env = worker_env(PythonAgent(name="a", entry="agent.py:handle"), {"PATH": "/usr/bin"})
    assert {key: env[key] for key in QUIET_ENV} == QUIET_ENV
    assert env["CREWAI_DISABLE_TELEMETRY"] == "true" and env["ANONYMIZED_TELEMETRY"] == "False"
    mine = PythonAgent(name="a", entry="agent.py:handle", env={"CREWAI_DISABLE_TELEMETRY": "false"})
    assert worker_env(mine, {"PATH": "/usr/bin"})["CREWAI_DISABLE_TELEMETRY"] == "false"
