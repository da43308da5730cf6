"""GitHubClient against the local GitHub stand-in: retries, rate limits, pagination, and safe errors."""

from __future__ import annotations

import httpx
import pytest

from khaos_action.github.client import (
    GitHubClient,
    GitHubError,
    GitHubForbidden,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubServerError,
    GitHubTooLarge,
    GitHubUnauthorized,
    GitHubUnavailable,
    GitHubUnprocessable,
    make_http_client,
)
from tests.github_api import TOKEN, serve

COMMENTS = "repos/o/r/issues/1/comments"


@pytest.fixture
def api():
    with serve() as state:
        yield state


def client(api, *, token: str = TOKEN, now: float = 1_000.0) -> tuple[GitHubClient, list[float]]:
    waits: list[float] = []
    return GitHubClient(make_http_client(api.api_url, token), sleep=waits.append, clock=lambda: now), waits


def test_sends_the_auth_and_api_version_headers(api) -> None:
    gh, _ = client(api)
    assert gh.get(COMMENTS) == []
    headers = api.log[0].headers
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["x-github-api-version"] == "2022-11-28" and headers["accept"] == "application/vnd.github+json"


def test_5xx_is_retried_with_exponential_backoff(api) -> None:
    api.fail("GET", "/comments$", 502, times=2)
    gh, waits = client(api)
    assert gh.get(COMMENTS) == []
    assert waits == [1.0, 2.0] and len(api.requests("GET")) == 3


def test_5xx_that_persists_gives_up_after_the_bounded_retries(api) -> None:
    api.fail("GET", "/comments$", 500, times=99)
    gh, waits = client(api)
    with pytest.raises(GitHubServerError, match="returned 500 after 4 attempts"):
        gh.get(COMMENTS)
    assert waits == [1.0, 2.0, 4.0]


def test_429_honours_retry_after(api) -> None:
    api.fail("GET", "/comments$", 429, headers={"retry-after": "7"})
    gh, waits = client(api)
    assert gh.get(COMMENTS) == [] and waits == [7.0]


def test_403_rate_limit_waits_for_the_reset(api) -> None:
    api.fail("GET", "/comments$", 403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1030"})
    gh, waits = client(api, now=1_000.0)
    assert gh.get(COMMENTS) == [] and waits == [31.0]


def test_a_reset_too_far_away_is_not_waited_for(api) -> None:
    api.fail("GET", "/comments$", 403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "99999"})
    gh, waits = client(api)
    with pytest.raises(GitHubRateLimited, match="re-run the job later"):
        gh.get(COMMENTS)
    assert waits == []


@pytest.mark.parametrize("status,error,hint", [
    (401, GitHubUnauthorized, "github-token"),
    (403, GitHubForbidden, "pull-requests: write"),
    (404, GitHubNotFound, "GITHUB_REPOSITORY"),
    (422, GitHubUnprocessable, "rejected"),
])
def test_client_errors_are_not_retried_and_say_what_to_do(api, status: int, error: type, hint: str) -> None:
    api.fail("POST", "/comments$", status, body={"message": f"nope {TOKEN}"})
    gh, waits = client(api)
    with pytest.raises(error) as info:
        gh.post(COMMENTS, json={"body": "x"})
    message = str(info.value)
    assert hint in message and f"POST /{COMMENTS} returned {status}" in message
    assert TOKEN not in message and "nope ***" in message  # GitHub's message is shown, the token never
    assert waits == [] and len(api.requests("POST")) == 1


def test_bad_credentials_from_the_server(api) -> None:
    gh, _ = client(api, token="wrong")
    with pytest.raises(GitHubUnauthorized, match="Bad credentials"):
        gh.get(COMMENTS)


def test_pagination_follows_link_headers(api) -> None:
    api.page_size = 2
    for i in range(5):
        api.add_comment(1, f"c{i}")
    gh, _ = client(api)
    assert [c["body"] for c in gh.paginate(COMMENTS)] == [f"c{i}" for i in range(5)]
    assert [r.query.get("page", ["1"])[0] for r in api.requests("GET")] == ["1", "2", "3"]


def test_pagination_refuses_links_to_another_origin() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[1], headers={"link": '<https://evil.example/x?page=2>; rel="next"'})

    http = httpx.Client(base_url="https://api.github.com/", transport=httpx.MockTransport(handler))
    with pytest.raises(GitHubError, match="leaves api.github.com"):
        list(GitHubClient(http).paginate("repos/o/r/issues/1/comments"))


def test_unreachable_api_is_retried_then_reported() -> None:
    waits: list[float] = []
    gh = GitHubClient(make_http_client("http://127.0.0.1:9", TOKEN, timeout_s=1), sleep=waits.append)
    with pytest.raises(GitHubUnavailable, match="GITHUB_API_URL"):
        gh.get(COMMENTS)
    assert len(waits) == 3


def test_non_json_answer_points_at_the_api_url(api) -> None:
    gh = GitHubClient(make_http_client(api.api_url + "/blob", TOKEN))
    api.blobs[5] = b"<html>"
    with pytest.raises(GitHubError, match="non-JSON"):
        gh.get("5")


def test_download_follows_the_redirect_without_the_token_and_caps_the_size(api) -> None:
    artifact = api.add_artifact(content=b"z" * 5000)
    gh, _ = client(api)
    assert gh.download(f"repos/o/r/actions/artifacts/{artifact}/zip", max_bytes=10_000) == b"z" * 5000
    blob = api.requests("GET", "^/blob/")[0]
    assert blob.host.startswith("localhost") and "authorization" not in blob.headers
    with pytest.raises(GitHubTooLarge, match="4,000 byte limit"):
        gh.download(f"repos/o/r/actions/artifacts/{artifact}/zip", max_bytes=4000)
