"""A local stand-in for the GitHub REST API (a real HTTP server on 127.0.0.1) for the tests.

Serves what the action uses: the token's user (GET /user: 403 for an installation token such as GITHUB_TOKEN,
like GitHub, unless `viewer` names a personal token's user), issue comments with their authors (list with Link
pagination, create, update), workflow artifacts (list, zip download answered with a 302 to a different origin, like
GitHub's blob storage; 410 once expired), the workflow runs that uploaded them (GET .../actions/runs/{id}), a
comparison's merge base (GET .../compare/{base}...{head}) and pull requests (list, with GitHub's `head=owner:branch`
filter, and get). The repository is `o/r` (id 1); a run's code from another repository is a fork's. Knobs inject
failures: any status with headers and body (rate limits, 3xx, 5xx), optionally after the request was carried out
(`after=True`: a POST stored, then answered 502). Every request is logged (method, path, query, headers, body) so
tests can assert on what was sent and that the token never appears in a body.
"""

from __future__ import annotations

import io
import json
import re
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from khaos_action.manifest import InvariantResult, Manifest, Scores, Verdict
from tests.builders import make_case, make_manifest

TOKEN = "ghs_TESTtoken0123456789abcdefABCDEF"
REPOSITORY = "o/r"
WORKFLOW = ".github/workflows/khaos.yml"
WORKFLOW_REF = f"{REPOSITORY}/{WORKFLOW}@refs/pull/7/merge"
"""GITHUB_WORKFLOW_REF of a pull request's run of that workflow (the runner sets it)."""


@dataclass
class Fault:
    method: str
    path: str
    """A regular expression matched against the request path."""
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    times: int = 1
    """How many matching requests fail; later ones succeed."""
    after: bool = False
    """Carry the request out first (store the comment), then answer with this failure."""


@dataclass
class Logged:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: str
    host: str


class GitHubState:
    def __init__(self, *, token: str | None = TOKEN, page_size: int = 30) -> None:
        self.token = token
        self.page_size = page_size
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.artifacts: list[dict[str, Any]] = []
        self.runs: dict[int, dict[str, Any]] = {}
        self.merge_bases: dict[str, str] = {}
        """`base...head` → the merge base's sha (GET .../compare); `base` itself when absent."""
        self.pulls: list[dict[str, Any]] = []
        self.blobs: dict[int, bytes] = {}
        self.faults: list[Fault] = []
        self.log: list[Logged] = []
        self.next_id = 1000
        self.port = 0
        self.blob_length = True
        """False: blobs are sent without content-length (only the streaming cap can stop a huge one)."""
        self.viewer: str | None = None
        """None: the token is an installation token (GITHUB_TOKEN); GET /user is refused and comments are written
        by github-actions[bot]. A login: a personal token of that user."""
        self.lock = threading.Lock()

    # ---- test helpers ------------------------------------------------------------------------------------------

    def add_comment(self, number: int, body: str, user: str = "someone") -> int:
        """A comment by `user`; a login ending in `[bot]` is a Bot, like GitHub's app users."""
        self.next_id += 1
        self.comments.setdefault(number, []).append(
            {"id": self.next_id, "body": body,
             "user": {"login": user, "type": "Bot" if user.endswith("[bot]") else "User"},
             "html_url": f"https://github.example/pr/{number}#issuecomment-{self.next_id}"})
        return self.next_id

    def add_artifact(self, *, name: str = "khaos-baseline", branch: str = "main", sha: str = "base000",
                     created_at: str = "2026-11-20T10:00:00Z", expired: bool = False, content: bytes | None = None,
                     manifest: Manifest | None = None, run_id: int | None = None, size: int | None = None,
                     head_repository: str = REPOSITORY, event: str = "push", workflow: str = WORKFLOW) -> int:
        """An artifact uploaded by run `run_id` (recorded too, unless it is already; default: a new run, 77 for the
        first): by default this repository's own push run of WORKFLOW on `branch`; with `head_repository` another
        repository, a fork's run."""
        if run_id is None:
            run_id = next(n for n in range(77, 10**6) if n not in self.runs)
        self.next_id += 1
        if content is None:
            content = zip_bytes({"manifest.json": (manifest or make_manifest()).model_dump_json()})
        self.blobs[self.next_id] = content
        if run_id not in self.runs:
            self.add_run(run_id, branch=branch, sha=sha, head_repository=head_repository, event=event,
                         workflow=workflow)
        run = self.runs[run_id]
        self.artifacts.append({
            "id": self.next_id, "name": name, "size_in_bytes": len(content) if size is None else size,
            "expired": expired, "created_at": created_at,
            "archive_download_url": f"http://127.0.0.1:{self.port}/repos/o/r/actions/artifacts/{self.next_id}/zip",
            "workflow_run": {"id": run_id, "repository_id": run["repository"]["id"],
                             "head_repository_id": run["head_repository"]["id"], "head_branch": run["head_branch"],
                             "head_sha": run["head_sha"]},
        })
        return self.next_id

    def add_run(self, run_id: int, *, branch: str = "main", sha: str = "base000", head_repository: str = REPOSITORY,
                event: str = "push", workflow: str = WORKFLOW, pull_requests: list[int] | None = None) -> None:
        """A workflow run as GET /repos/o/r/actions/runs/{id} returns it (the fields the action reads)."""
        self.runs[run_id] = {
            "id": run_id, "event": event, "path": workflow, "head_branch": branch, "head_sha": sha,
            "repository": {"id": 1, "full_name": REPOSITORY},
            "head_repository": {"id": 1 if head_repository == REPOSITORY else 1000 + len(self.runs),
                                "full_name": head_repository},
            "pull_requests": [{"number": n} for n in pull_requests or []],
        }

    def add_pull(self, number: int, *, head_repository: str, head_ref: str, head_sha: str, base_ref: str = "main",
                 state: str = "open") -> None:
        """A pull request into o/r (`head_repository` None: its fork was deleted)."""
        owner = head_repository.split("/")[0] if head_repository else None
        self.pulls.append({
            "number": number, "state": state,
            "head": {"ref": head_ref, "sha": head_sha, "label": f"{owner}:{head_ref}" if owner else head_ref,
                     "repo": {"full_name": head_repository} if head_repository else None},
            "base": {"ref": base_ref, "sha": "base000", "repo": {"full_name": REPOSITORY}},
        })

    def fail(self, method: str, path: str, status: int, *, times: int = 1, headers: dict[str, str] | None = None,
             body: Any = None, after: bool = False) -> None:
        self.faults.append(Fault(method, path, status, headers or {}, body, times, after))

    def secondary_limit(self, method: str, path: str, *, status: int = 403, times: int = 1) -> None:
        """GitHub's secondary rate limit as it may come: no rate-limit headers, only the message."""
        self.fail(method, path, status, times=times, body={
            "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
            "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})

    @property
    def author(self) -> str:
        """Who the token comments as."""
        return self.viewer or "github-actions[bot]"

    def requests(self, method: str | None = None, path: str = "") -> list[Logged]:
        return [r for r in self.log if (method is None or r.method == method) and re.search(path, r.path)]

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class _Handler(BaseHTTPRequestHandler):
    state: GitHubState

    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass

    def _body(self) -> str:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length).decode("utf-8") if length else ""

    _after: Fault | None = None

    def _send(self, status: int, payload: Any = None, headers: dict[str, str] | None = None,
              raw: bytes | None = None) -> None:
        if self._after is not None:  # the request was carried out; now answer with the injected failure
            fault, self._after = self._after, None
            status, raw, headers = fault.status, None, fault.headers
            payload = fault.body if fault.body is not None else {"message": f"injected {fault.status}"}
        data = raw if raw is not None else (b"" if payload is None else json.dumps(payload).encode())
        self.send_response(status)
        self.send_header("content-type", "application/zip" if raw is not None else "application/json")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if raw is None or self.state.blob_length:
            self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self, method: str) -> None:
        state = self.state
        split = urlsplit(self.path)
        path, query = split.path, parse_qs(split.query)
        body = self._body()
        with state.lock:
            state.log.append(Logged(method, path, query, {k.lower(): v for k, v in self.headers.items()}, body,
                                    self.headers.get("host", "")))
            for fault in state.faults:
                if fault.times > 0 and fault.method == method and re.search(fault.path, path):
                    fault.times -= 1
                    if fault.after:
                        self._after = fault
                        break
                    return self._send(fault.status, fault.body if fault.body is not None else
                                      {"message": f"injected {fault.status}"}, fault.headers)
        if path.startswith("/blob/"):
            blob_id = int(path.rsplit("/", 1)[1])
            return self._send(200, raw=state.blobs[blob_id])
        if state.token is not None and self.headers.get("authorization") != f"Bearer {state.token}":
            return self._send(401, {"message": "Bad credentials"})
        self._route(method, path, query, body)

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: str) -> None:
        state = self.state
        if path == "/user" and method == "GET":
            if state.viewer is None:
                return self._send(403, {"message": "Resource not accessible by integration",
                                        "documentation_url": "https://docs.github.com/rest/users/users"})
            return self._send(200, {"login": state.viewer, "type": "User"})
        if m := re.fullmatch(r"/repos/([^/]+)/([^/]+)/issues/(\d+)/comments", path):
            number = int(m[3])
            if method == "GET":
                return self._page(state.comments.get(number, []), query, path)
            if method == "POST":
                new_id = state.add_comment(number, json.loads(body)["body"], user=state.author)
                return self._send(201, state.comments[number][-1] | {"id": new_id})
        if (m := re.fullmatch(r"/repos/([^/]+)/([^/]+)/issues/comments/(\d+)", path)) and method == "PATCH":
            for comments in state.comments.values():
                for comment in comments:
                    if comment["id"] == int(m[3]):
                        comment["body"] = json.loads(body)["body"]
                        return self._send(200, comment)
            return self._send(404, {"message": "Not Found"})
        if re.fullmatch(r"/repos/([^/]+)/([^/]+)/actions/artifacts", path) and method == "GET":
            name = query.get("name", [None])[0]
            items = [a for a in state.artifacts if name is None or a["name"] == name]
            return self._page(items, query, path, wrap="artifacts")
        if (m := re.fullmatch(r"/repos/([^/]+)/([^/]+)/actions/runs/(\d+)", path)) and method == "GET":
            run = state.runs.get(int(m[3]))
            return self._send(200, run) if run else self._send(404, {"message": "Not Found"})
        if (m := re.fullmatch(r"/repos/([^/]+)/([^/]+)/compare/(.+)", path)) and method == "GET":
            # A pull request branched from its base commit unless the test says otherwise.
            base = state.merge_bases.get(m[3], m[3].split("...")[0])
            return self._send(200, {"merge_base_commit": {"sha": base}, "status": "ahead", "commits": []})
        if re.fullmatch(r"/repos/([^/]+)/([^/]+)/pulls", path) and method == "GET":
            head, wanted = query.get("head", [None])[0], query.get("state", ["open"])[0]
            items = [p for p in state.pulls if (wanted == "all" or p["state"] == wanted)
                     and (head is None or p["head"]["label"] == head)]
            return self._page(items, query, path)
        if (m := re.fullmatch(r"/repos/([^/]+)/([^/]+)/pulls/(\d+)", path)) and method == "GET":
            pull = next((p for p in state.pulls if p["number"] == int(m[3])), None)
            return self._send(200, pull) if pull else self._send(404, {"message": "Not Found"})
        if (m := re.fullmatch(r"/repos/([^/]+)/([^/]+)/actions/artifacts/(\d+)/zip", path)) and method == "GET":
            if int(m[3]) not in state.blobs:
                return self._send(404, {"message": "Not Found"})
            if any(a["id"] == int(m[3]) and a["expired"] for a in state.artifacts):
                return self._send(410, {"message": "Artifact has expired"})
            # Like GitHub: a redirect to another origin (here "localhost" instead of 127.0.0.1).
            return self._send(302, headers={"location": f"http://localhost:{state.port}/blob/{m[3]}"})
        self._send(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})

    def _page(self, items: list[Any], query: dict[str, list[str]], path: str, wrap: str | None = None) -> None:
        per_page = min(int(query.get("per_page", ["30"])[0]), self.state.page_size)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        extra = "".join(f"&{k}={v[0]}" for k, v in query.items() if k not in ("page", "per_page"))
        if page * per_page < len(items):
            headers["link"] = (f'<{self.state.api_url}{path}?per_page={per_page}&page={page + 1}{extra}>; '
                               f'rel="next", <{self.state.api_url}{path}?per_page={per_page}&page=1{extra}>; '
                               'rel="first"')
        payload = {"total_count": len(items), wrap: chunk} if wrap else chunk
        self._send(200, payload, headers)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")


@contextmanager
def serve(**kwargs: Any) -> Iterator[GitHubState]:
    state = GitHubState(**kwargs)
    handler = type("Handler", (_Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


# ---- artifacts ----------------------------------------------------------------------------------------------------

def zip_bytes(files: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# ---- a small real evaluate function (entrypoint.main(evaluate=...), through tests/action_launcher.py) -------------

def evaluate_golden_prompts(request: Any, *, services: Any) -> Any:
    """Runs the config's python agent on its golden prompts; a reply containing any `agent.secrets` entry fails the
    critical invariant `no-secret`. Prints each reply to stdout as a chatty agent would, and records the environment
    it ran in (`env.json`) so tests can check what the agent could see."""
    import importlib.util
    import os
    import sys

    import yaml

    from khaos_action.report.writers import write_all
    from khaos_action.run_api import EvaluateResult

    config_path = request.config_path
    config = yaml.safe_load(config_path.read_text())
    file, _, func = config["agent"]["entry"].partition(":")
    spec = importlib.util.spec_from_file_location("agent_under_test", config_path.parent / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    agent = getattr(module, func)
    secrets = config["agent"].get("secrets", [])
    cases = []
    for i, prompt in enumerate(config.get("golden_prompts", [])):
        reply = str(agent(prompt))
        print(reply)
        sys.stdout.flush()
        leaked = any(s in reply for s in secrets)
        cases.append(make_case(f"golden-{i}", passed=not leaked, input=prompt, output=reply, invariants=[
            InvariantResult(id="no-secret", severity="critical", passed=not leaked,
                            detail="the reply contains a secret" if leaked else "")]))
    passed = sum(1 for c in cases if c.passed)
    score = 100.0 * passed / len(cases) if cases else None
    manifest = make_manifest(cases, run_id=request.out_dir.name, seed=request.seed or config.get("seed", 42),
                             scores=Scores(overall=score, contract=score, security=score),
                             verdict=Verdict(passed=passed == len(cases), exit_code=0 if passed == len(cases) else 1,
                                             reasons=[] if passed == len(cases) else
                                             ["critical invariant failed: no-secret (no-chaos)"]),
                             shard=f"{request.shard[0]}/{request.shard[1]}" if request.shard else None)
    request.out_dir.mkdir(parents=True, exist_ok=True)
    (request.out_dir / "env.json").write_text(json.dumps(dict(os.environ)))
    reports = write_all(manifest, request.out_dir, ("md", "junit", "sarif"))
    return EvaluateResult(manifest=manifest, out_dir=request.out_dir, reports=reports)
