"""The one way to talk to the GitHub REST API: retries, rate limits, pagination and safe errors over an httpx.Client."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

from khaos_action.errors import KhaosError

API_VERSION = "2022-11-28"


class GitHubError(KhaosError):
    """A GitHub API call failed; the message is safe to show (no token, GitHub's message shortened)."""

    status: int | None = None

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
    hint = "GitHub is having trouble; it was retried, try re-running the job later"


class GitHubRateLimited(GitHubError):
    hint = "the API rate limit is exhausted and the reset is too far away to wait for; re-run the job later"


class GitHubUnavailable(GitHubError):
    hint = "the GitHub API could not be reached; check GITHUB_API_URL (GitHub Enterprise) and the network"


class GitHubTooLarge(GitHubError):
    hint = "the download is larger than allowed"


_BY_STATUS: dict[int, type[GitHubError]] = {
    401: GitHubUnauthorized, 403: GitHubForbidden, 404: GitHubNotFound, 410: GitHubNotFound, 422: GitHubUnprocessable,
}


def make_http_client(api_url: str, token: str | None, *, timeout_s: float = 30.0) -> httpx.Client:
    """The httpx.Client for GitHub; only the entrypoint (and tests) build one. GHES: pass its GITHUB_API_URL."""
    from khaos_action import __version__

    headers = {
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": API_VERSION,
        "User-Agent": f"khaos-action/{__version__}",
    }
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.Client(
        base_url=api_url.rstrip("/") + "/", headers=headers,
        timeout=httpx.Timeout(timeout_s, connect=10.0),
    )


class GitHubClient:
    """Wraps an httpx.Client (built by the caller, so tests give it a real local server).

    Retries 5xx and connection errors with exponential backoff; on 403/429 it honours `retry-after` and
    `x-ratelimit-reset` when the wait is at most `max_wait_s`. Every failure becomes a GitHubError subclass.
    """

    def __init__(
        self,
        http: httpx.Client,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        max_wait_s: float = 60.0,
    ) -> None:
        self.http = http
        self.sleep = sleep
        self.clock = clock
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_wait_s = max_wait_s
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
        response = self._send(method, url, stream=False, **kwargs)
        return response

    def download(self, url: str, *, max_bytes: int) -> bytes:
        """GET a binary body, following redirects (httpx drops the Authorization header when the redirect leaves
        the API's origin, as GitHub's artifact blob URLs do), refusing bodies over `max_bytes` while streaming."""
        response = self._send("GET", url, stream=True, follow_redirects=True)
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

    def _send(self, method: str, url: str, *, stream: bool, follow_redirects: bool = False,
              **kwargs: Any) -> httpx.Response:
        attempt = 0
        while True:
            request = self.http.build_request(method, url, **kwargs)
            try:
                response = self.http.send(request, stream=stream, follow_redirects=follow_redirects)
            except httpx.TransportError as exc:
                if attempt >= self.max_retries:
                    raise GitHubUnavailable(
                        f"GitHub API {method} {_path(request)}: {type(exc).__name__} after {attempt + 1} attempts; "
                        f"{GitHubUnavailable.hint}") from None
                self.sleep(self.backoff_s * 2**attempt)
                attempt += 1
                continue
            if response.status_code < 400:
                return response
            wait = self._retry_wait(response, attempt)
            if stream:
                response.read()
            if wait is None:
                raise self._error(response, attempts=attempt + 1)
            response.close()
            self.sleep(wait)
            attempt += 1

    def _retry_wait(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before retrying, or None when the failure is final."""
        if attempt >= self.max_retries:
            return None
        status = response.status_code
        headers = response.headers
        if status >= 500:
            return self.backoff_s * 2**attempt
        if status not in (403, 429):
            return None
        # https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit
        wait: float | None = None
        if headers.get("retry-after", "").strip().isdigit():
            wait = float(headers["retry-after"].strip())
        elif headers.get("x-ratelimit-remaining") == "0" and headers.get("x-ratelimit-reset", "").isdigit():
            wait = max(0.0, float(headers["x-ratelimit-reset"]) - self.clock()) + 1.0
        elif status == 429:
            wait = self.backoff_s * 2**attempt
        if wait is None or wait > self.max_wait_s:
            return None  # a plain 403 is a permission problem; a far reset is not worth blocking the job for
        return wait

    def _error(self, response: httpx.Response, *, attempts: int) -> GitHubError:
        status = response.status_code
        rate_limited = status == 429 or (status == 403 and (
            "retry-after" in response.headers or response.headers.get("x-ratelimit-remaining") == "0"))
        if rate_limited:
            cls: type[GitHubError] = GitHubRateLimited
        elif status >= 500:
            cls = GitHubServerError
        else:
            cls = _BY_STATUS.get(status, GitHubError)
        detail = self._redact(_github_message(response))
        hint = getattr(cls, "hint", "")
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        message = f"GitHub API {response.request.method} {_path(response.request)} returned {status}{tries}"
        if detail:
            message += f": {detail}"
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


def _github_message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return ""
    message = data.get("message", "") if isinstance(data, dict) else ""
    return str(message)[:200]
