"""The one way to talk to the GitHub REST API: retries, rate limits, pagination and safe errors over an httpx.Client."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from khaos_action.errors import KhaosError
from khaos_action.services import http_client

API_VERSION = "2022-11-28"


class GitHubError(KhaosError):
    """A GitHub API call failed; the message is safe to show (no token, GitHub's message shortened)."""

    status: int | None = None
    maybe_stored: bool = False
    """A POST that failed after GitHub may have received it (5xx, connection lost): it may have been stored."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class GitHubUnauthorized(GitHubError):
    hint = "the token is missing, invalid or expired; check the `github-token` input"


class GitHubForbidden(GitHubError):
    hint = ("the token lacks a permission: give the job `permissions: {pull-requests: write, actions: read}`; "
            "on pull requests from forks the token is read-only (see the fork-safe workflow in docs/github-action.md)")


class GitHubNotFound(GitHubError):
    hint = "not found, or the token cannot see it; check GITHUB_REPOSITORY and the token's repository access"


class GitHubUnprocessable(GitHubError):
    hint = "GitHub rejected the request content"


class GitHubServerError(GitHubError):
    hint = "GitHub is having trouble; try re-running the job later"


class GitHubGone(GitHubError):
    hint = ("GitHub answered 410 Gone: it is deleted for good (an artifact past its retention period has expired; "
            "issues may be disabled on the repository)")


class GitHubRedirected(GitHubError):
    hint = ("GitHub answered with a redirect that cannot be followed safely (only GETs are re-sent); the "
            "repository may have been renamed or moved: check GITHUB_REPOSITORY and GITHUB_API_URL")


class GitHubRateLimited(GitHubError):
    hint = ("the API rate limit is exhausted and GitHub asks for a longer wait than the `github-max-wait` input "
            "allows; re-run the job later or raise `github-max-wait`")


class GitHubUnavailable(GitHubError):
    hint = "the GitHub API could not be reached; check GITHUB_API_URL (GitHub Enterprise) and the network"


class GitHubTooLarge(GitHubError):
    hint = "the download is larger than allowed"


_BY_STATUS: dict[int, type[GitHubError]] = {
    401: GitHubUnauthorized, 403: GitHubForbidden, 404: GitHubNotFound, 410: GitHubGone, 422: GitHubUnprocessable,
}


def make_http_client(api_url: str, token: str | None, *, timeout_s: float = 30.0,
                     factory: Callable[..., httpx.Client] = http_client) -> httpx.Client:
    """The httpx.Client for GitHub, built by `factory` (the entrypoint passes its `Services.http`); only the
    entrypoint (and tests) build one. GHES: pass its GITHUB_API_URL."""
    from khaos_action import __version__

    headers = {
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": API_VERSION,
        "User-Agent": f"khaos-action/{__version__}",
    }
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return factory(
        base_url=api_url.rstrip("/") + "/", headers=headers,
        timeout=httpx.Timeout(timeout_s, connect=10.0),
    )


DEFAULT_MAX_WAIT_S = 300.0
"""Seconds the client may spend waiting on GitHub over a whole job (rate limits and retry backoff together)."""
SECONDARY_LIMIT_WAIT_S = 60.0
"""GitHub: with neither retry-after nor x-ratelimit-remaining: 0, "wait for at least one minute before retrying"."""


class GitHubClient:
    """Wraps an httpx.Client (built by the caller, so tests give it a real local server).

    Follows GitHub's "Best practices for using the REST API"
    (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api):
    - rate limits ("Handle rate limit errors appropriately"): wait `retry-after` seconds when present; else when
      `x-ratelimit-remaining` is 0 wait until `x-ratelimit-reset` (UTC epoch seconds); else (a secondary limit) wait
      at least a minute, doubling on each repeat, and give up after `max_retries`. Every wait, rate limit or 5xx
      backoff, comes out of one budget of `max_wait_s` for the client's life (the `github-max-wait` input): a wait
      that does not fit fails at once instead of stalling the job.
    - redirects ("Follow redirects"): a GET follows them (httpx drops the Authorization header when one leaves the
      API's origin); any other method gets GitHubRedirected. A 3xx is never a success.
    - a POST is never re-sent once it may have reached GitHub (5xx, or a connection lost after sending): it may
      have been stored, so the error carries `maybe_stored` and the caller re-lists before creating again.
    Every failure becomes a GitHubError subclass whose message carries no token.
    """

    def __init__(
        self,
        http: httpx.Client,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        max_wait_s: float = DEFAULT_MAX_WAIT_S,
    ) -> None:
        self.http = http
        self.sleep = sleep
        self.clock = clock
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_wait_s = max_wait_s
        self.waited_s = 0.0
        """Seconds waited so far, out of `max_wait_s`."""
        auth = http.headers.get("Authorization", "")
        self._secret = auth.split(" ", 1)[-1] if auth else ""

    # ---- JSON calls --------------------------------------------------------------------------------------------

    def get(self, url: str, *, params: dict[str, Any] | None = None) -> Any:
        return self._json(self.request("GET", url, params=params))

    def post(self, url: str, *, json: Any) -> Any:
        return self._json(self.request("POST", url, json=json))

    def patch(self, url: str, *, json: Any) -> Any:
        return self._json(self.request("PATCH", url, json=json))

    def paginate(
        self, url: str, *, params: dict[str, Any] | None = None, items_key: str | None = None, max_pages: int = 100
    ) -> Iterator[Any]:
        """Yield the items of every page, following `Link: <…>; rel="next"` (only to the API's own origin)."""
        params = {"per_page": 100, **(params or {})}
        next_url: str | None = url
        for _ in range(max_pages):
            if next_url is None:
                return
            response = self.request("GET", next_url, params=params)
            params = None  # the next link already carries the query
            data = self._json(response)
            items = data.get(items_key, []) if items_key and isinstance(data, dict) else data
            if not isinstance(items, list):
                raise GitHubError(f"GitHub API GET {_path(response.request)} returned {type(items).__name__}, "
                                  "expected a list")
            yield from items
            next_url = self._next_link(response)

    # ---- raw calls ---------------------------------------------------------------------------------------------

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return self._send(method, url, stream=False, **kwargs)

    def download(self, url: str, *, max_bytes: int) -> bytes:
        """GET a binary body, following redirects (httpx drops the Authorization header when the redirect leaves
        the API's origin, as GitHub's artifact blob URLs do), refusing bodies over `max_bytes` while streaming."""
        response = self._send("GET", url, stream=True)
        try:
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise GitHubTooLarge(f"download of {_path(response.request)} is {int(declared):,} bytes, over the "
                                     f"{max_bytes:,} byte limit", status=response.status_code)
            chunks, total = [], 0
            for chunk in response.iter_bytes():
                total += len(chunk)
                if total > max_bytes:
                    raise GitHubTooLarge(f"download of {_path(response.request)} exceeded the {max_bytes:,} byte "
                                         "limit", status=response.status_code)
                chunks.append(chunk)
            return b"".join(chunks)
        except httpx.HTTPError as exc:
            raise GitHubUnavailable(f"download of {_path(response.request)} failed: {type(exc).__name__}; "
                                    f"{GitHubUnavailable.hint}") from None
        finally:
            response.close()

    # ---- internals ---------------------------------------------------------------------------------------------

    def _send(self, method: str, url: str, *, stream: bool, **kwargs: Any) -> httpx.Response:
        tries = _Tries()
        while True:
            request = self.http.build_request(method, url, **kwargs)
            try:
                response = self.http.send(request, stream=stream, follow_redirects=method == "GET")
            except httpx.TooManyRedirects:
                raise GitHubRedirected(f"GitHub API {method} {_path(request)}: too many redirects; "
                                       f"{GitHubRedirected.hint}") from None
            except httpx.TransportError as exc:
                self._after_transport_error(method, request, exc, tries)
                continue
            if response.status_code < 300:
                return response
            if stream:
                response.read()
            response.close()
            self._after_error_status(method, response, tries)

    def _after_transport_error(self, method: str, request: httpx.Request, exc: httpx.TransportError,
                               tries: _Tries) -> None:
        """Wait before the next attempt, or raise when none is left (or a POST may have been stored)."""
        # Connect errors happen before anything is sent; any other error may come after GitHub got it.
        maybe_stored = method == "POST" and not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
        wait = None if maybe_stored or tries.attempt >= self.max_retries else self.backoff_s * 2**tries.attempt
        if wait is None or not self._fits(wait):
            error = GitHubUnavailable(
                f"GitHub API {method} {_path(request)}: {type(exc).__name__} after {tries.attempt + 1} attempt"
                f"{'s' if tries.attempt else ''}; {GitHubUnavailable.hint}")
            error.maybe_stored = maybe_stored
            raise error from None
        self._wait(wait)
        tries.attempt += 1

    def _after_error_status(self, method: str, response: httpx.Response, tries: _Tries) -> None:
        """Wait before the next attempt (a rate limit, a 5xx of a GET), or raise what the status means."""
        if response.status_code < 400:
            # A GET has followed its redirects already; what is left (304, a POST answered 3xx) is no success.
            raise self._error(response, attempts=tries.total, cls=GitHubRedirected)
        if _is_rate_limit(response):
            self._after_rate_limit(response, tries)
        elif response.status_code >= 500:
            self._after_server_error(method, response, tries)
        else:
            raise self._error(response, attempts=tries.total)

    def _after_rate_limit(self, response: httpx.Response, tries: _Tries) -> None:
        wait = self._rate_limit_wait(response, tries.limited)
        if wait is None:
            raise self._error(response, attempts=tries.total, cls=GitHubRateLimited)
        if not self._fits(wait):
            raise self._error(response, attempts=tries.total, cls=GitHubRateLimited,
                              note=f"GitHub asks to wait {wait:.0f} s, and {self._left():.0f} s of the "
                                   f"{self.max_wait_s:.0f} s `github-max-wait` budget are left")
        self._wait(wait)
        tries.limited += 1

    def _after_server_error(self, method: str, response: httpx.Response, tries: _Tries) -> None:
        if method == "POST":
            # The comment may have been stored before the error: never re-send blindly.
            error = self._error(response, attempts=tries.total)
            error.maybe_stored = True
            raise error
        wait = self.backoff_s * 2**tries.attempt
        if tries.attempt >= self.max_retries or not self._fits(wait):
            raise self._error(response, attempts=tries.total)
        self._wait(wait)
        tries.attempt += 1

    def _rate_limit_wait(self, response: httpx.Response, limited: int) -> float | None:
        """Seconds GitHub asks us to wait, or None once the retries are used up.

        https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#handle-rate-limit-errors-appropriately
        """
        if limited >= self.max_retries:
            return None
        headers = response.headers
        retry_after = headers.get("retry-after", "").strip()
        reset = headers.get("x-ratelimit-reset", "").strip()
        if retry_after.isdigit():
            return float(retry_after)
        if headers.get("x-ratelimit-remaining", "").strip() == "0" and reset.isdigit():
            return max(0.0, float(reset) - self.clock()) + 1.0
        return SECONDARY_LIMIT_WAIT_S * 2**limited

    def _fits(self, wait: float) -> bool:
        return wait <= self._left()

    def _left(self) -> float:
        return max(0.0, self.max_wait_s - self.waited_s)

    def _wait(self, seconds: float) -> None:
        self.waited_s += seconds
        self.sleep(seconds)

    def _error(self, response: httpx.Response, *, attempts: int, cls: type[GitHubError] | None = None,
               note: str = "") -> GitHubError:
        status = response.status_code
        if cls is None:
            cls = GitHubServerError if status >= 500 else _BY_STATUS.get(status, GitHubError)
        detail = self._redact(_github_message(response))
        hint = getattr(cls, "hint", "")
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        message = f"GitHub API {response.request.method} {_path(response.request)} returned {status}{tries}"
        if detail:
            message += f": {detail}"
        if note:
            message += f"; {note}"
        if hint:
            message += f" — {hint}"
        return cls(message, status=status)

    def _redact(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    def _json(self, response: httpx.Response) -> Any:
        if response.status_code == 204 or not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise GitHubError(f"GitHub API {response.request.method} {_path(response.request)} returned a non-JSON "
                              "body; check GITHUB_API_URL points at the REST API (…/api/v3 on GitHub Enterprise)",
                              status=response.status_code) from None

    def _next_link(self, response: httpx.Response) -> str | None:
        link = response.links.get("next", {}).get("url")
        if not link:
            return None
        target = httpx.URL(link)
        base = self.http.base_url
        if (target.scheme, target.host, target.port) != (base.scheme, base.host, base.port):
            raise GitHubError(f"GitHub API pagination link leaves {base.host}; refusing to follow it")
        return link


def _path(request: httpx.Request) -> str:
    # The path only: query strings may carry user data, and the token is never in a URL.
    return request.url.path


def _is_rate_limit(response: httpx.Response) -> bool:
    """429 always; 403 with the rate-limit headers, or with GitHub's secondary-limit message and no headers at all
    (a plain 403 such as "Resource not accessible by integration" is a permission problem, not a limit)."""
    status, headers = response.status_code, response.headers
    if status == 429:
        return True
    if status != 403:
        return False
    if "retry-after" in headers or headers.get("x-ratelimit-remaining", "").strip() == "0":
        return True
    return "rate limit" in _github_message(response).lower()


def _github_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return ""
    message = data.get("message", "") if isinstance(data, dict) else ""
    return str(message)[:200]


class _Tries:
    """The retries of one request so far: 5xx and connection errors (`attempt`), rate limits (`limited`)."""

    __slots__ = ("attempt", "limited")

    def __init__(self) -> None:
        self.attempt = 0
        self.limited = 0

    @property
    def total(self) -> int:
        """Attempts made, this one included."""
        return self.attempt + self.limited + 1
