"""The base branch's run: fetched from a workflow artifact (or a file), validated, and written on default-branch pushes.

Every way of not having a usable baseline is a warning and "no baseline yet": regression gates then do not fire.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from khaos_action.github.client import GitHubClient, GitHubError, GitHubGone
from khaos_action.github.event import EventInfo
from khaos_action.manifest import Manifest, ManifestError
from khaos_action.manifest_read import load_manifest, loads_json, parse_manifest

MAX_ARTIFACT_BYTES = 50 * 1024 * 1024
"""Compressed artifact size we download at most; checked against the listing and again while streaming."""
MAX_MANIFEST_BYTES = 200 * 1024 * 1024
"""Uncompressed manifest size we read at most (a zip bomb is refused, not inflated)."""
BASELINE_FILE = Path(".khaos/baseline/manifest.json")
"""Where default-branch runs leave their manifest; docs/github-action.md uploads this folder as the artifact."""


@dataclass
class Baseline:
    manifest: Manifest | None
    source: str
    """Where it came from, for the comment ("artifact khaos-baseline from main@abc1234", "no baseline yet")."""
    warnings: list[str] = field(default_factory=list)


def load_baseline(
    *,
    mode: str,
    path: str | Path | None = None,
    artifact_name: str = "khaos-baseline",
    github: GitHubClient | None = None,
    repository: str | None = None,
    event: EventInfo | None = None,
    current_run_id: str | None = None,
    config_hash: str | None = None,
    max_bytes: int = MAX_ARTIFACT_BYTES,
) -> Baseline:
    if mode == "none":
        return Baseline(None, "baseline: none")
    if mode == "path":
        baseline = _from_path(path)
    else:
        baseline = _from_artifact(github, repository, event, artifact_name, current_run_id, max_bytes)
    if baseline.manifest is not None and config_hash and baseline.manifest.config_hash != config_hash:
        baseline.warnings.append(
            f"the baseline ({baseline.source}) was produced by a different config (config_hash "
            f"{baseline.manifest.config_hash[:12]} ≠ {config_hash[:12]}); cases are paired by id where they match, "
            "but differences may come from the config change rather than the code")
    return baseline


def _none(source: str, warning: str) -> Baseline:
    return Baseline(None, source, [warning])


def _from_path(path: str | Path | None) -> Baseline:
    if not path:
        return _none("no baseline yet", "`baseline: path` needs `baseline-path`; running without a baseline")
    try:
        return Baseline(load_manifest(path), f"file {path}")
    except ManifestError as exc:
        return _none("no baseline yet", f"baseline file unusable, running without a baseline: {exc}")


def _from_artifact(
    github: GitHubClient | None, repository: str | None, event: EventInfo | None, name: str,
    current_run_id: str | None, max_bytes: int,
) -> Baseline:
    none = "no baseline yet"
    if github is None:
        return _none(none, "no `github-token`: cannot fetch the baseline artifact; running without a baseline")
    if not repository:
        return _none(none, "GITHUB_REPOSITORY is not set: cannot look up the baseline artifact")
    branch = event.base_branch if event else None
    if not branch:
        return _none(none, "no base branch known (not a pull request, and the event names no default branch); "
                           "running without a baseline")
    base_sha = event.pull_request.base_sha if event and event.pull_request else None
    try:
        artifacts = list(github.paginate(f"repos/{repository}/actions/artifacts", params={"name": name},
                                         items_key="artifacts", max_pages=10))
    except GitHubError as exc:
        return _none(none, f"cannot list baseline artifacts: {exc}")
    chosen, why_not = pick_artifact(artifacts, name=name, branch=branch, base_sha=base_sha,
                                    current_run_id=current_run_id)
    if chosen is None:
        return _none(none, why_not)
    run = chosen.get("workflow_run") or {}
    source = f"artifact {name} from {branch}@{str(run.get('head_sha') or '?')[:7]}"
    size = chosen.get("size_in_bytes")
    if isinstance(size, int) and size > max_bytes:
        return _none(none, f"baseline {source} is {size:,} bytes, over the {max_bytes:,} byte limit; not downloaded")
    try:
        data = github.download(f"repos/{repository}/actions/artifacts/{chosen['id']}/zip", max_bytes=max_bytes)
    except GitHubGone:
        # Listed as live a moment ago, but its retention period ran out before the download.
        return _none(none, f"baseline {source} has expired (GitHub answered 410 Gone); re-run the default-branch "
                           "workflow (or raise its retention-days) to create a new baseline")
    except GitHubError as exc:
        return _none(none, f"cannot download baseline {source}: {exc}")
    try:
        manifest = manifest_from_zip(data, source=source)
    except ManifestError as exc:
        return _none(none, f"baseline {source} is unusable, running without a baseline: {exc}")
    return Baseline(manifest, source)


def pick_artifact(
    artifacts: list[dict[str, Any]], *, name: str, branch: str, base_sha: str | None, current_run_id: str | None,
) -> tuple[dict[str, Any] | None, str]:
    """The newest non-expired artifact from a run on `branch`, preferring the PR's exact base commit."""
    named = [a for a in artifacts if isinstance(a, dict) and a.get("name") == name]
    on_branch = [a for a in named if (a.get("workflow_run") or {}).get("head_branch") == branch
                 and str((a.get("workflow_run") or {}).get("id")) != str(current_run_id)]
    live = [a for a in on_branch if not a.get("expired")]
    if not live:
        if on_branch:
            return None, (f"every `{name}` artifact from {branch} has expired; re-run the default-branch workflow "
                          "(or raise its retention-days) to create a new baseline")
        where = f" ({len(named)} found on other branches)" if named else ""
        return None, (f"no `{name}` artifact from a run on {branch} yet{where}; it appears after the workflow "
                      f"runs on a push to {branch} (see docs/github-action.md)")
    live.sort(key=lambda a: ((a.get("workflow_run") or {}).get("head_sha") == base_sha, a.get("created_at") or ""),
              reverse=True)
    return live[0], ""


def manifest_from_zip(data: bytes, *, source: str) -> Manifest:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ManifestError(f"{source}: not a zip archive") from None
    with archive:
        members = [i for i in archive.infolist() if Path(i.filename).name == "manifest.json" and not i.is_dir()]
        if not members:
            raise ManifestError(f"{source}: no manifest.json inside; upload the `.khaos/baseline` folder")
        info = min(members, key=lambda i: (i.filename.count("/"), i.filename))
        if info.file_size > MAX_MANIFEST_BYTES:
            raise ManifestError(f"{source}: manifest.json is {info.file_size:,} bytes uncompressed, over the "
                                f"{MAX_MANIFEST_BYTES:,} byte limit")
        try:
            with archive.open(info) as handle:
                raw = handle.read(MAX_MANIFEST_BYTES + 1)
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError) as exc:
            raise ManifestError(f"{source}: corrupt archive ({type(exc).__name__})") from None
        if len(raw) > MAX_MANIFEST_BYTES:
            raise ManifestError(f"{source}: manifest.json inflates past the {MAX_MANIFEST_BYTES:,} byte limit")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{source}: manifest.json is not valid JSON ({exc})") from None
    return parse_manifest(loads_json(text, source=source), source=source)


def write_baseline(manifest_path: Path, workspace: Path) -> Path:
    """Copy this run's manifest to where the default-branch workflow uploads the baseline artifact from."""
    target = workspace / BASELINE_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    from khaos_action.atomic import write_atomic

    write_atomic(target, Path(manifest_path).read_bytes())  # whole or absent: the next PR run reads it
    return target
