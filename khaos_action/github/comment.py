"""The sticky pull-request comment: our marker, fitting GitHub's size limit, update-in-place, and the fork fallback."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from khaos_action.github.client import GitHubClient, GitHubError, GitHubForbidden
from khaos_action.github.event import EventInfo

BODY_LIMIT = 65_536
"""Characters GitHub accepts in an issue comment body."""
MARKER_PREFIX = "<!-- khaos-action:"
COMMENT_FILE = Path(".khaos/comment.md")


def instance_id(config_path: str) -> str:
    """A stable id per config (several configs in one repo comment separately); safe inside an HTML comment."""
    normalized = str(Path(config_path).as_posix()).removeprefix("./")
    cleaned = re.sub(r"[^A-Za-z0-9._/-]", "_", normalized).replace("--", "-_")
    return cleaned.strip("-") or "khaos.yaml"


def marker(instance: str) -> str:
    return f"{MARKER_PREFIX}{instance} -->"


def fit_body(sections: Sequence[str], *, marker_line: str, footer: str = "", run_url: str | None = None,
             limit: int = BODY_LIMIT) -> str:
    """Marker, sections, footer; whole sections are dropped from the end until the body fits, with a note saying so.

    The marker and the footer are always kept; `sections[0]` (the verdict) is cut at a line boundary if it alone
    is still too long.
    """
    def note(omitted: int) -> str:
        if not omitted:
            return ""
        where = f" The full report is on the run page: {run_url}" if run_url else " See the job summary."
        return (f"> **{omitted} section{'s' if omitted != 1 else ''} omitted** to stay under GitHub's "
                f"{limit:,}-character comment limit.{where}")

    def join(parts: Sequence[str]) -> str:
        return marker_line + "\n" + "\n\n".join(p for p in parts if p) + "\n"

    for keep in range(len(sections), 0, -1):
        body = join([*sections[:keep], note(len(sections) - keep), footer])
        if len(body) <= limit:
            return body
    tail = [note(len(sections) - 1), footer]
    room = limit - len(join(["", *tail])) - 2
    first = sections[0][: max(0, room)] if sections else ""
    if len(sections[0] if sections else "") > room and "\n" in first:
        first = first[: first.rfind("\n")]
    return join([first, *tail])


@dataclass(frozen=True)
class CommentResult:
    action: str
    """created | updated | skipped | file"""
    detail: str = ""
    url: str | None = None
    file: Path | None = None


GITHUB_ACTIONS_BOT = "github-actions[bot]"
"""Who comments with the workflow's GITHUB_TOKEN: "an installation access token for a GitHub App" that GitHub
installs for Actions (https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication);
its comments are authored by this bot (type "Bot"). Square brackets cannot occur in a user's login, so no person
can take this name."""


@dataclass(frozen=True)
class Author:
    login: str
    bot: bool


def token_author(github: GitHubClient) -> Author:
    """The user the token comments as.

    GET /user (https://docs.github.com/en/rest/users/users#get-the-authenticated-user) names a personal token's
    user; installation tokens, GITHUB_TOKEN among them, are refused it with 403 "Resource not accessible by
    integration", and then we are the Actions bot. Other failures (401, a rate limit) propagate.
    """
    try:
        data = github.get("user")
    except GitHubForbidden:
        return Author(GITHUB_ACTIONS_BOT, bot=True)
    login = data.get("login") if isinstance(data, dict) else None
    if not isinstance(login, str) or not login:
        raise GitHubError("GitHub API GET /user returned no login; cannot tell which comment is ours")
    return Author(login, bot=data.get("type") == "Bot")


def is_ours(comment: object, author: Author, marker_line: str) -> bool:
    """Our sticky comment: written by the token's own user AND starting with our marker. Anyone can paste the
    marker into a comment of theirs; that comment is never the one we edit."""
    if not isinstance(comment, dict):
        return False
    user = comment.get("user") if isinstance(comment.get("user"), dict) else {}
    if user.get("login") != author.login or (author.bot and user.get("type") != "Bot"):
        return False
    return str(comment.get("body") or "").startswith(marker_line)


def find_comment(github: GitHubClient, repository: str, number: int, marker_line: str,
                 author: Author | None = None) -> int | None:
    """Our comment's id among every page of the PR's comments (ours may well be on page 2+)."""
    author = author or token_author(github)
    found = None
    for comment in github.paginate(f"repos/{repository}/issues/{number}/comments"):
        if is_ours(comment, author, marker_line):
            found = comment.get("id")  # keep the last one: it is the most recently created
    return found


def upsert_comment(github: GitHubClient, repository: str, number: int, body: str, marker_line: str) -> CommentResult:
    author = token_author(github)
    existing = find_comment(github, repository, number, marker_line, author)
    if existing is None:
        try:
            data = github.post(f"repos/{repository}/issues/{number}/comments", json={"body": body})
            return CommentResult("created", url=(data or {}).get("html_url"))
        except GitHubError as exc:
            if not exc.maybe_stored:
                raise
            # The POST failed after GitHub may have stored it: look before creating, so a retry never leaves two.
            if find_comment(github, repository, number, marker_line, author) is not None:
                return CommentResult("created", f"GitHub stored it despite answering an error ({exc.status})")
            data = github.post(f"repos/{repository}/issues/{number}/comments", json={"body": body})
            return CommentResult("created", "on the second attempt", url=(data or {}).get("html_url"))
    data = github.patch(f"repos/{repository}/issues/comments/{existing}", json={"body": body})
    return CommentResult("updated", url=(data or {}).get("html_url"))


def _to_file(reason: str, body: str, fallback_dir: Path) -> tuple[CommentResult, list[str]]:
    """The comment written to `.khaos/comment.md` for a `workflow_run` workflow to post, with why."""
    path = fallback_dir / COMMENT_FILE
    from khaos_action.atomic import make_dirs, write_atomic

    try:  # through no link in the workspace: a committed `.khaos/comment.md` link is refused (exit 3)
        make_dirs(path.parent)
        write_atomic(path, body)
    except OSError as exc:
        return CommentResult("skipped", reason), [f"{reason}; could not write {path} either: {exc}"]
    warning = (f"{reason}; the comment was written to {COMMENT_FILE} (output `comment-file`) — post it from a "
               "`workflow_run` workflow, see docs/github-action.md")
    return CommentResult("file", reason, file=path), [warning]


def _post(github: GitHubClient, repository: str, number: int, body: str, marker_line: str,
          passed_on_failure: bool) -> CommentResult:
    """The sticky comment posted or updated; with `comment: on-failure` and a passing run (`passed_on_failure`) no
    new comment, but an earlier failure comment shows the pass (a stale failure is not left standing)."""
    if not passed_on_failure:
        return upsert_comment(github, repository, number, body, marker_line)
    existing = find_comment(github, repository, number, marker_line)
    if existing is None:
        return CommentResult("skipped", "comment: on-failure and the run passed")
    github.patch(f"repos/{repository}/issues/comments/{existing}", json={"body": body})
    return CommentResult("updated", "the earlier failure comment now shows the pass")


def publish(
    *,
    body: str,
    policy: str,
    passed: bool,
    event: EventInfo,
    github: GitHubClient | None,
    repository: str | None,
    marker_line: str,
    fallback_dir: Path,
) -> tuple[CommentResult, list[str]]:
    """Post or update the comment per `policy`; never raises. Returns the result and warnings to show.

    When the token cannot comment (a fork's read-only token, a 403, no token) the body goes to
    `.khaos/comment.md` for the two-workflow pattern in docs/github-action.md.
    """
    pr = event.pull_request
    if policy == "never":
        return CommentResult("skipped", "comment: never"), []
    if pr is None:
        return CommentResult("skipped", f"event {event.name or 'unknown'} is not a pull request"), []
    if event.name == "pull_request" and pr.is_fork:
        return _to_file("pull request from a fork: the token is read-only", body, fallback_dir)
    if github is None or not repository:
        return _to_file("no `github-token`: cannot comment", body, fallback_dir)
    return _posted(github, repository, pr.number, body, marker_line, policy == "on-failure" and passed, fallback_dir)


def _posted(github: GitHubClient, repository: str, number: int, body: str, marker_line: str,
            passed_on_failure: bool, fallback_dir: Path) -> tuple[CommentResult, list[str]]:
    """The comment posted; a token that may not comment writes it to the file instead, any other failure is a
    warning (the verdict is unchanged)."""
    try:
        return _post(github, repository, number, body, marker_line, passed_on_failure), []
    except GitHubForbidden as exc:
        return _to_file(f"the token may not comment ({exc})", body, fallback_dir)
    except GitHubError as exc:
        return CommentResult("skipped", str(exc)), [f"could not post the PR comment (the verdict is unchanged): {exc}"]
