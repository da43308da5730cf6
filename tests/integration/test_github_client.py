"""GitHubClient against the local GitHub stand-in: retries, rate limits, pagination, and safe errors."""

from __future__ import annotations

import httpx
import pytest

from khaos_action.github.client import (
    GitHubClient,
    GitHubError,
    GitHubForbidden,
    GitHubGone,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubRedirected,
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


def client(api, *, token: str = TOKEN, now: float = 1_000.0, **options) -> tuple[GitHubClient, list[float]]:
    """A client whose waits are recorded instead of slept (the clock and the sleep are passed in)."""
    waits: list[float] = []
    return GitHubClient(make_http_client(api.api_url, token), sleep=waits.append, clock=lambda: now,
                        **options), waits


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


# ---- rate limits as GitHub documents them --------------------------------------------------------------------------

@pytest.mark.parametrize("status", [403, 429])
def test_a_secondary_limit_without_headers_waits_a_minute_then_doubles(api, status: int) -> None:
    api.secondary_limit("GET", "/comments$", status=status, times=2)
    gh, waits = client(api)
    assert gh.get(COMMENTS) == []
    assert waits == [60.0, 120.0] and len(api.requests("GET")) == 3


def test_a_429_without_any_body_or_header_is_still_a_rate_limit(api) -> None:
    api.fail("GET", "/comments$", 429, body={})
    gh, waits = client(api)
    assert gh.get(COMMENTS) == [] and waits == [60.0]


def test_a_plain_403_is_a_permission_error_and_not_waited_for(api) -> None:
    api.fail("POST", "/comments$", 403, body={"message": "Resource not accessible by integration"})
    gh, waits = client(api)
    with pytest.raises(GitHubForbidden, match="pull-requests: write"):
        gh.post(COMMENTS, json={"body": "x"})
    assert waits == []


def test_a_secondary_limit_that_persists_gives_up_after_the_retries(api) -> None:
    api.secondary_limit("GET", "/comments$", times=99)
    gh, waits = client(api, max_wait_s=10_000)
    with pytest.raises(GitHubRateLimited, match="secondary rate limit"):
        gh.get(COMMENTS)
    assert waits == [60.0, 120.0, 240.0] and len(api.requests("GET")) == 4


def test_every_wait_comes_out_of_one_total_budget(api) -> None:
    gh, waits = client(api, max_wait_s=100)
    api.fail("GET", "/comments$", 429, headers={"retry-after": "30"})
    assert gh.get(COMMENTS) == []
    api.secondary_limit("GET", "/comments$")  # asks for 60 s; only 70 s are left
    assert gh.get(COMMENTS) == []
    api.secondary_limit("GET", "/comments$")  # 60 s more would pass the budget: fail now, do not stall the job
    with pytest.raises(GitHubRateLimited, match=r"wait 60 s, and 10 s of the 100 s `github-max-wait` budget") as info:
        gh.get(COMMENTS)
    assert "raise `github-max-wait`" in str(info.value)
    assert waits == [30.0, 60.0] and gh.waited_s == 90.0


def test_the_primary_limit_waits_until_the_reset_by_the_injected_clock(api) -> None:
    api.fail("GET", "/comments$", 429, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1100"})
    gh, waits = client(api, now=1_000.0)
    assert gh.get(COMMENTS) == [] and waits == [101.0]


def test_retry_after_takes_precedence_over_the_reset(api) -> None:
    api.fail("GET", "/comments$", 403, headers={"retry-after": "5", "x-ratelimit-remaining": "0",
                                                "x-ratelimit-reset": "5000"})
    gh, waits = client(api)
    assert gh.get(COMMENTS) == [] and waits == [5.0]


def test_backoff_for_5xx_is_bounded_by_the_budget_too(api) -> None:
    api.fail("GET", "/comments$", 503, times=99)
    gh, waits = client(api, max_wait_s=2.5)
    with pytest.raises(GitHubServerError, match="returned 503 after 2 attempts"):
        gh.get(COMMENTS)
    assert waits == [1.0]  # 1 s fits, 2 s more (3 in all) would not


# ---- redirects: followed for a GET, an error otherwise, never a success --------------------------------------------

def test_a_get_follows_a_permanent_redirect(api) -> None:
    api.add_comment(1, "hello")
    api.fail("GET", "^/repos/old/r/issues/1/comments$", 301,
             headers={"location": f"{api.api_url}/repos/o/r/issues/1/comments"})
    gh, _ = client(api)
    assert [c["body"] for c in gh.get("repos/old/r/issues/1/comments")] == ["hello"]
    assert [r.path for r in api.requests("GET")] == ["/repos/old/r/issues/1/comments", "/repos/o/r/issues/1/comments"]


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_post_answered_with_a_redirect_is_an_error_and_not_resent(api, status: int) -> None:
    api.fail("POST", "/comments$", status, headers={"location": f"{api.api_url}/repos/o/r/issues/2/comments"})
    gh, _ = client(api)
    with pytest.raises(GitHubRedirected, match=f"returned {status}"):
        gh.post(COMMENTS, json={"body": "x"})
    assert len(api.requests("POST")) == 1 and api.comments == {}


def test_a_304_is_not_a_success(api) -> None:
    api.fail("GET", "/comments$", 304)
    gh, _ = client(api)
    with pytest.raises(GitHubRedirected, match="returned 304"):
        gh.get(COMMENTS)


def test_a_redirect_loop_is_an_error(api) -> None:
    api.fail("GET", "/comments$", 302, times=99, headers={"location": f"{api.api_url}/{COMMENTS}"})
    gh, _ = client(api)
    with pytest.raises(GitHubRedirected, match="too many redirects"):
        gh.get(COMMENTS)


# ---- a POST is never blindly re-sent ------------------------------------------------------------------------------

def test_a_post_answered_5xx_is_not_resent_and_says_it_may_be_stored(api) -> None:
    api.fail("POST", "/comments$", 502, after=True)
    gh, waits = client(api)
    with pytest.raises(GitHubServerError, match="returned 502") as info:
        gh.post(COMMENTS, json={"body": "x"})
    assert info.value.maybe_stored and waits == []
    assert len(api.requests("POST")) == 1 and len(api.comments[1]) == 1  # stored once, never twice


def test_a_post_that_could_not_connect_is_retried_it_was_never_sent() -> None:
    waits: list[float] = []
    gh = GitHubClient(make_http_client("http://127.0.0.1:9", TOKEN, timeout_s=1), sleep=waits.append)
    with pytest.raises(GitHubUnavailable) as info:
        gh.post(COMMENTS, json={"body": "x"})
    assert not info.value.maybe_stored and len(waits) == 3


def test_a_patch_answered_5xx_is_retried_it_is_idempotent(api) -> None:
    comment = api.add_comment(1, "old", user="github-actions[bot]")
    api.fail("PATCH", "/comments/", 502, after=True)
    gh, waits = client(api)
    gh.patch(f"repos/o/r/issues/comments/{comment}", json={"body": "new"})
    assert waits == [1.0] and api.comments[1][0]["body"] == "new"


def test_410_on_an_artifact_says_it_expired(api) -> None:
    artifact = api.add_artifact(expired=True)
    gh, waits = client(api)
    with pytest.raises(GitHubGone, match="returned 410: Artifact has expired .*has expired"):
        gh.download(f"repos/o/r/actions/artifacts/{artifact}/zip", max_bytes=10_000)
    assert waits == []
