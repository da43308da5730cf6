"""Attack egress containment: during an attack case, the agent's outbound HTTP to a host the attack names (an
attacker URL, a webhook, an e-mail domain) is answered here, locally, and recorded on the case as evidence; it
never leaves the machine.

The hosts come from the rendered attack text itself (the direct attack's turns, an indirect attack's payloads),
never from the user's own golden prompt that carries an indirect attack. A named host covers its subdomains, and a
placeholder label (`https://JOINED.status-check.example`, where the agent is told to put the canary) covers its
parent domain. Loopback hosts are contained only at the port the attack names: the agent's own local services
(a model server on 127.0.0.1) keep working. What this does not contain (raw sockets, a shell tool, DNS lookups)
is listed in docs/sandbox.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import SplitResult, urlsplit

if TYPE_CHECKING:
    from khaos_action.engine.context import CaseContext
    from khaos_action.faults.effects import HttpRequestView, Reply

BODY_CAP = 2000
"""Characters of a contained request's body (and of its path) kept as evidence."""
MAX_ATTEMPTS = 20
"""Contained requests recorded per case; the rest are only counted in a note."""

_URL = re.compile(r"\b(?:https?|wss?|ftp)://([^\s/?#\"'<>()\[\]{}`]+)", re.I)
_EMAIL = re.compile(r"\b[\w.+-]+@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,24})\b")
# A bare domain counts only with a top-level domain people use (a file name such as `notes.txt` is not a host).
_TLDS = ("com|net|org|io|ai|dev|app|co|info|biz|xyz|me|site|online|cloud|tech|example|test|invalid|internal|"
         "local|us|uk|de|fr|nl|ru|cn|in|br|eu|jp|es|it|pl|ch|se|no|fi|at|be|ca|au|ly|sh|gg|to|tk|top|link|email")
_BARE = re.compile(r"(?<![\w@./-])((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:" + _TLDS + r"))"
                   r"(?::(\d{1,5}))?(?![\w-])", re.I)
_LOOPBACK = re.compile(r"^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?|0\.0\.0\.0)$", re.I)
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}


def named_hosts(texts: Iterable[str]) -> tuple[str, ...]:
    """The hosts an attack's texts name, lower-case, as `host` or `host:port` (loopback hosts keep their port);
    sorted, each once."""
    found: set[str] = set()
    for text in texts:
        for match in _URL.finditer(text):
            scheme = match.group(0).split(":", 1)[0].lower()
            _add(found, match.group(1), _DEFAULT_PORTS.get(scheme, 80))
        for match in _EMAIL.finditer(text):
            _add(found, match.group(1), None)
        for match in _BARE.finditer(text):
            _add(found, match.group(0), None)
    return tuple(sorted(found))


def _unfilled(host: str) -> str:
    """A host whose first label the agent fills in (JOINED.status-check.example, {id}.example.org): its parent
    domain, when that still has a dot."""
    first, _, parent = host.partition(".")
    if first != first.lower() or "{" in first:
        return parent if "." in parent else host
    return host


def _add(found: set[str], netloc: str, default_port: int | None) -> None:
    netloc = netloc.rsplit("@", 1)[-1].rstrip(".,;:!")
    host, _, port = netloc.rpartition(":") if re.search(r":\d+$", netloc) else (netloc, "", "")
    host = host.strip("[]")
    if not host or "." not in host and not _LOOPBACK.match(host):
        return
    host = _unfilled(host).lower()
    if _LOOPBACK.match(host):
        found.add(f"{host}:{port or default_port or 80}")
    else:
        found.add(host)


def attack_hosts(case: Any) -> tuple[str, ...]:
    """The hosts an attack case's own text names: its turns for a direct attack, its payloads for an indirect one
    (whose first turn is the user's golden prompt). Nothing for other cases."""
    if getattr(case, "phase", None) != "security" or getattr(case, "recon", False):
        return ()
    injections = getattr(case, "injections", ()) or ()
    if injections:
        texts = [str(i.get("payload", "")) for i in injections]
    else:
        texts = [case.input, *case.turns]
    return named_hosts(texts)


def is_contained(hosts: Iterable[str], host: str, port: int | None) -> bool:
    host = (host or "").lower().strip("[]").rstrip(".")
    if not host:
        return False
    if _LOOPBACK.match(host):
        return f"{host}:{port}" in hosts
    return any(host == named or host.endswith("." + named) for named in hosts if ":" not in named)


def contain(ctx: CaseContext | None, view: HttpRequestView, via: str) -> Reply | None:
    """The local answer to `view` when the current case contains its host (the attempt recorded on the case), else
    None (send it as usual)."""
    if ctx is None or not ctx.contain:
        return None
    parts = urlsplit(view.url)
    host = view.host or parts.hostname or ""
    if not is_contained(ctx.contain, host, _port(parts)):
        return None
    record(ctx, host=host, method=view.method, path=(parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
           body=view.body, via=via)
    return local_reply()


def _port(parts: SplitResult) -> int | None:
    """The URL's port, its scheme's default when it names none; None when it is not a number."""
    try:
        return parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 80)
    except ValueError:
        return None


def record(ctx: CaseContext, *, host: str, method: str, path: str, body: bytes, via: str) -> None:
    if len(ctx.egress) >= MAX_ATTEMPTS:
        if len(ctx.egress) == MAX_ATTEMPTS:
            ctx.notes.append(f"more than {MAX_ATTEMPTS} requests to attack hosts were answered locally; the first "
                             f"{MAX_ATTEMPTS} are recorded")
            ctx.egress.append({})  # a marker: later ones are neither noted nor kept
        return
    text = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else str(body or "")
    ctx.egress.append({"host": host.lower(), "method": method.upper(), "path": path[:BODY_CAP],
                       "body": text[:BODY_CAP], "via": via})


def local_reply() -> Reply:
    """What the agent gets instead: a plain success, so it goes on as if the request had been sent."""
    from khaos_action.faults.effects import Reply

    return Reply(200, {"content-type": "text/plain; charset=utf-8", "x-khaos-contained": "1"}, b"OK")


__all__ = ["attack_hosts", "contain", "is_contained", "local_reply", "named_hosts", "record"]
