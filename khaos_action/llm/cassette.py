"""The LLM cassette: real LLM replies stored on disk, keyed by what was asked, and served back without the network.

Key: sha256 of (method, endpoint, normalised body). The endpoint is the URL path plus its query string minus
credentials, never the host (a local server's port changes every run; the same request to a gateway or to the
provider is the same question). The body is the JSON request with sorted keys and without the fields that do not
change the answer: `user`, `metadata` (end-user ids), `stream_options` (only adds a usage chunk) and `store`.
`model`, `stream`, messages, tools and sampling parameters all stay in the key.

Modes (`llm_cache.mode`):
- `replay`: every LLM call is answered from the cassette; a request that is not in it is a per-case error naming
  the request (the agent gets a 502 it is told not to retry), never a silent live call.
- `auto`: hits are replayed, misses go to the provider and are recorded.
- `record`: the first time a request is seen in a run it goes to the provider and is (re)written; the same request
  later in the run is answered from that recording, so replaying the cassette reproduces the recorded run.

Files: one reviewable JSON file per entry, `<model>-<key>.json`, with the request (method, endpoint, normalised
body) and the reply (status, content type, body as JSON or text). Request headers are never written; credentials
seen in the request (Authorization, x-api-key, api-key, `?key=`...) are redacted wherever else they appear.
`agent.secrets` values are masked everywhere in the document too (a cassette is a file users commit), in the forms
khaos_action.redact masks: a verbatim value becomes `[agent.secrets[i] masked]`, which replay turns back into the
configured value (so a replayed leak is still a leak: the key is the real request's, and the agent sees the real
reply); any other form becomes redact.MASK for good.
Only replies that are answers are recorded: 2xx and 4xx except 408/429; 5xx, timeouts and rate limits are
conditions, not answers (use chaos faults to test them).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl, urlencode

from khaos_action.atomic import make_dirs, write_atomic
from khaos_action.errors import ExitCode, KhaosError

if TYPE_CHECKING:
    from khaos_action.manifest import CassetteStats

Mode = Literal["record", "replay", "auto"]
MODES: tuple[str, ...] = ("record", "replay", "auto")
FORMAT_VERSION = 1
VOLATILE_FIELDS = ("user", "metadata", "stream_options", "store")
SECRET_HEADERS = ("authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key")
SECRET_QUERY = frozenset({"key", "api_key", "api-key", "apikey", "access_token", "token", "sig", "signature"})
KEPT_RESPONSE_HEADERS = ("content-type",)
REDACTED = "[REDACTED]"
_NOT_RECORDED = frozenset({408, 429})


class CassetteError(KhaosError):
    exit_code = ExitCode.CONFIG


@dataclass(frozen=True, slots=True)
class CassetteRequest:
    method: str
    endpoint: str
    model: str | None
    body: Any
    """The normalised JSON body, or {"sha256": ...} for a body that is not JSON."""
    key: str

    @property
    def filename(self) -> str:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", self.model or "request").strip("._")[:60] or "request"
        return f"{slug}-{self.key}.json"

    def describe(self) -> str:
        return f"{self.method} {self.endpoint} model={self.model or '?'} (cassette key {self.key})"


@dataclass(frozen=True, slots=True)
class Recorded:
    status: int
    headers: dict[str, str]
    body: bytes


def endpoint_of(path: str, query: str) -> str:
    """The path plus the query string without credentials, parameters sorted."""
    pairs = sorted((k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k.lower() not in SECRET_QUERY)
    return path + ("?" + urlencode(pairs) if pairs else "")


def normalised_body(body: bytes) -> Any:
    try:
        parsed = json.loads(body) if body else None
    except (ValueError, UnicodeDecodeError):
        return {"sha256": hashlib.sha256(body).hexdigest()}
    if isinstance(parsed, dict):
        parsed = {k: v for k, v in parsed.items() if k not in VOLATILE_FIELDS}
    return parsed


def cassette_request(method: str, path: str, query: str, body: bytes) -> CassetteRequest:
    endpoint = endpoint_of(path, query)
    normal = normalised_body(body)
    canonical = json.dumps([method.upper(), endpoint, normal], sort_keys=True, separators=(",", ":"),
                           ensure_ascii=False)
    key = hashlib.sha256(canonical.encode()).hexdigest()[:24]
    model = normal.get("model") if isinstance(normal, dict) else None
    return CassetteRequest(method.upper(), endpoint, str(model) if model is not None else None, normal, key)


def credentials(headers: dict[str, str], query: str) -> list[str]:
    """Secret values a request carried (header values, bearer tokens, credential query parameters)."""
    found: list[str] = []
    for name in SECRET_HEADERS:
        value = headers.get(name, "").strip()
        if value:
            found.append(value)
            scheme, _, token = value.partition(" ")
            if token and scheme.lower() in ("bearer", "basic", "token"):
                found.append(token.strip())
    found += [v for k, v in parse_qsl(query, keep_blank_values=True) if k.lower() in SECRET_QUERY and v]
    return sorted({s for s in found if len(s) >= 6}, key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        for form in (secret, json.dumps(secret)[1:-1]):
            text = text.replace(form, REDACTED)
    return text


def entry_document(request: CassetteRequest, reply: Recorded) -> dict[str, Any]:
    content_type = reply.headers.get("content-type", "")
    response: dict[str, Any] = {"status": reply.status,
                                "headers": {k: v for k, v in reply.headers.items() if k in KEPT_RESPONSE_HEADERS}}
    try:
        text = reply.body.decode("utf-8")
    except UnicodeDecodeError:
        response["base64"] = base64.b64encode(reply.body).decode()
    else:
        parsed: Any = None
        if "json" in content_type:
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
        if parsed is not None:
            response["json"] = parsed
        else:
            response["text"] = text
    return {"khaos_cassette": FORMAT_VERSION, "key": request.key,
            "request": {"method": request.method, "endpoint": request.endpoint, "model": request.model,
                        "body": request.body},
            "response": response}


def reply_of(document: dict[str, Any], source: str) -> Recorded:
    try:
        response = document["response"]
        headers = {str(k).lower(): str(v) for k, v in response.get("headers", {}).items()}
        if "json" in response:
            body = json.dumps(response["json"], ensure_ascii=False).encode()
        elif "text" in response:
            body = str(response["text"]).encode()
        else:
            body = base64.b64decode(response.get("base64", ""))
        return Recorded(int(response["status"]), headers, body)
    except (KeyError, TypeError, ValueError) as exc:
        raise CassetteError(f"{source}: not a khaos-action cassette entry ({type(exc).__name__}: {exc}); delete it "
                            "and record again with `llm_cache.mode: record`") from None


class Masks:
    """`agent.secrets` in a cassette document: masked when written, the verbatim ones put back when read."""

    def __init__(self, secrets: Sequence[str]) -> None:
        from khaos_action.redact import Redactor  # only a run with secrets and a cassette pays for the patterns

        self.redactor = Redactor(secrets)
        # longest first: a secret that contains another is replaced whole
        self.verbatim = sorted(enumerate(self.redactor.secrets), key=lambda item: -len(item[1]))

    def mask(self, document: Any) -> Any:
        from khaos_action.redact import map_strings

        return map_strings(document, self._mask_text)

    def restore(self, document: Any) -> Any:
        from khaos_action.redact import map_strings

        return map_strings(document, self._restore_text)

    def _mask_text(self, text: str) -> str:
        for index, secret in self.verbatim:
            text = text.replace(secret, _placeholder(index))
        return self.redactor.text(text)

    def _restore_text(self, text: str) -> str:
        if "[agent.secrets[" not in text:
            return text
        for index, secret in self.verbatim:
            text = text.replace(_placeholder(index), secret)
        return text


def _placeholder(index: int) -> str:
    return f"[agent.secrets[{index}] masked]"


class Cassette:
    """Entries under `directory`, read lazily and cached; thread-safe (sync agents call from worker threads).
    `secrets`: the run's `agent.secrets`, masked in what is written (see the module's docstring)."""

    def __init__(self, directory: Path, mode: Mode, *, secrets: Sequence[str] = ()) -> None:
        if mode not in MODES:
            raise CassetteError(f"llm_cache.mode {mode!r} is not one of {', '.join(MODES)}")
        self.directory = Path(directory)
        self.mode = mode
        self._masks = Masks(secrets) if secrets else None
        self._lock = threading.Lock()
        self._memory: dict[str, Recorded] = {}
        self._missing: set[str] = set()
        self.hits = 0
        self.misses = 0
        self.recorded = 0
        self.missed: list[str] = []
        """Descriptions of requests a `replay` run could not answer (first 50)."""

    def lookup(self, request: CassetteRequest) -> Recorded | None:
        """The recorded reply, or None: a miss (replay mode: the caller must fail the case) or, in record mode,
        a request not yet recorded in this run."""
        with self._lock:
            found = self._memory.get(request.key)
            if found is None and self.mode != "record" and request.key not in self._missing:
                found = self._read(request)
                if found is None:
                    self._missing.add(request.key)
                else:
                    self._memory[request.key] = found
            if found is not None:
                self.hits += 1
            elif self.mode == "replay":
                self.misses += 1
                if len(self.missed) < 50:
                    self.missed.append(request.describe())
            return found

    def _read(self, request: CassetteRequest) -> Recorded | None:
        path = self.directory / request.filename
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CassetteError(f"{path}: cannot read the cassette entry ({exc})") from None
        try:
            document = json.loads(text)
        except ValueError as exc:
            raise CassetteError(f"{path}: not valid JSON ({exc}); fix the merge or record again") from None
        return reply_of(self._unmasked(document), str(path))

    def _unmasked(self, document: Any) -> Any:
        return self._masks.restore(document) if self._masks is not None else document

    def wants(self, status: int) -> bool:
        """Whether a live reply with this status is recorded (answers, not transient conditions)."""
        return self.mode != "replay" and 200 <= status < 500 and status not in _NOT_RECORDED

    def store(self, request: CassetteRequest, reply: Recorded, secrets: list[str]) -> Path:
        """Write the entry (atomically) and serve it to later identical requests of this run."""
        document = entry_document(request, reply)
        if self._masks is not None:
            document = self._masks.mask(document)
        text = redact(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False), secrets) + "\n"
        path = self.directory / request.filename
        with self._lock:
            make_dirs(self.directory)  # through no link in the action's workspace
            write_atomic(path, text)
            self._memory[request.key] = reply_of(self._unmasked(json.loads(text)), str(path))
            self._missing.discard(request.key)
            self.recorded += 1
        return path

    def stats(self) -> CassetteStats:
        from khaos_action.manifest import CassetteStats  # here: the agent's worker replays without the manifest

        return CassetteStats(mode=self.mode, path=str(self.directory), hits=self.hits, misses=self.misses,
                             recorded=self.recorded, missed=list(self.missed))
