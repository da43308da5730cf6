"""What the framework-target tests share (tests/integration/test_adapters_*.py): the offline model and tool APIs
on 127.0.0.1, one `evaluate` per config, and the checks every framework's app must pass: `init` finds its tools and
writes its type, `validate` passes, every configured fault fires, indirect payloads ride on its real tools, and
`compare` catches a regression of its model."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.builders import evaluate_project
from tests.fixtures.frameworks.api_server import ToolApis
from tests.fixtures.frameworks.scripted_llm import ScriptedLlm

APPS = Path(__file__).resolve().parent / "fixtures" / "frameworks"

# Their telemetry and model price lists would be fetched from the internet at import; the agents get these too.
QUIET = {"CREWAI_DISABLE_TELEMETRY": "true", "CREWAI_TESTING": "true", "OTEL_SDK_DISABLED": "true",
         "LITELLM_LOCAL_MODEL_COST_MAP": "True",
         "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"}


def stand_ins() -> Iterator[tuple[ScriptedLlm, ToolApis]]:
    """The model and the tools' APIs, with the environment the apps read them from (a module-scoped fixture)."""
    with ScriptedLlm() as llm, ToolApis() as apis, pytest.MonkeyPatch.context() as env:
        for key, value in {"SCRIPTED_LLM_URL": llm.url + "/v1", "SEARCH_API_URL": apis.url,
                           "WEATHER_API_URL": apis.url, "EXCHANGE_API_URL": apis.url, "WIKI_API_URL": apis.url,
                           **QUIET}.items():
            env.setenv(key, value)
        env.delenv("OPENAI_API_KEY", raising=False)
        yield llm, apis


def run(config: Path, out: Path) -> Any:
    return evaluate_project(config, out, formats=("json",)).manifest


def base_and_head(llm: ScriptedLlm, config: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """The app's run as it is (base), then with a model that follows instructions found in tool results (head: the
    regression `compare` must catch)."""
    base = run(config, tmp_path_factory.mktemp("base"))
    llm.obey = True
    try:
        head = run(config, tmp_path_factory.mktemp("head"))
    finally:
        llm.obey = False
    return base, head


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "khaos_action.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def cases(manifest: Any, **where: Any) -> list[Any]:
    return [c for c in manifest.cases if all(getattr(c, k) == v for k, v in where.items())]


def assert_every_fault_fired(manifest: Any) -> None:
    configured = {f for c in manifest.cases for f in c.fault_ids}
    fired = {f for c in manifest.cases for f, n in c.fault_hits.items() if n}
    assert configured and configured <= fired, f"never fired: {configured - fired}"


def assert_clean_baseline(manifest: Any) -> None:
    clean = cases(manifest, phase="contract", scenario="no-chaos") + cases(manifest, phase="baseline")
    assert clean and all(c.error is None and c.output for c in clean), [(c.input, c.error) for c in clean]


def assert_indirect_attacks_ride_on_real_tools(manifest: Any, tools: set[str]) -> list[Any]:
    """Each planted payload was delivered in one of the app's own tools' results, and the model's reply judged."""
    attacks = [c for c in manifest.cases if c.phase == "security" and c.channel == "tool_output"]
    assert attacks, [(s.attack_id, s.reason) for s in manifest.skipped][:5]
    for case in attacks:
        assert case.fault_hits.get("injection:tool_output"), (case.attack_id, case.error, case.not_exercised)
        assert {c["name"] for c in case.tool_calls} & tools, case.tool_calls
    return attacks


def assert_compare_catches_the_regression(base: Any, head: Any) -> None:
    from khaos_action.score.compare import compare_manifests

    comparison = compare_manifests(base, head)
    assert comparison.regression, comparison.model_dump_json(indent=1)[:2000]
    assert comparison.newly_compromised, [(c.id, c.outcome) for c in head.cases if c.phase == "security"]


def init_writes(entry: str, app: Path, tmp_path: Path) -> str:
    """The khaos.yaml `init --entry` writes for the app (the entry relative to the app's folder)."""
    done = cli("init", "--entry", entry, "-o", str(tmp_path / "khaos.yaml"), cwd=app)
    assert done.returncode == 0, done.stdout + done.stderr
    return (tmp_path / "khaos.yaml").read_text()
