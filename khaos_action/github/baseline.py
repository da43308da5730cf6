"""The base branch's run: fetched from a workflow artifact (or a file), validated, and written on default-branch runs.

Every way of not having a usable baseline is a warning and "no baseline yet": regression gates then do not fire.
Which artifacts may be used at all (this repository's own runs of the expected workflow) is github/provenance.py.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from khaos_action.github import provenance
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
    workflow: str | None = None,
    current_run_id: str | None = None,
    config_hash: str | None = None,
    max_bytes: int = MAX_ARTIFACT_BYTES,
) -> Baseline:
    """`workflow`: the workflow file whose runs may provide the artifact (provenance.expected_workflow)."""
    if mode == "none":
        return Baseline(None, "baseline: none")
    if mode == "path":
        baseline = _from_path(path)
    else:
        where = _Where(repository or "", event, workflow, current_run_id)
        baseline = _from_artifact(github, where, artifact_name, max_bytes)
    if baseline.manifest is not None and config_hash and baseline.manifest.config_hash != config_hash:
        baseline.warnings.append(
            f"the baseline ({baseline.source}) was produced by a different config (config_hash "
            f"{baseline.manifest.config_hash[:12]} ≠ {config_hash[:12]}); cases are paired by id where they match, "
            "but differences may come from the config change rather than the code")
    return baseline


@dataclass(frozen=True)
class _Where:
    repository: str
    event: EventInfo | None
    workflow: str | None
    current_run_id: str | None


def _none(source: str, warning: str, *more: str) -> Baseline:
    return Baseline(None, source, [*more, warning])


def _from_path(path: str | Path | None) -> Baseline:
    if not path:
        return _none("no baseline yet", "`baseline: path` needs `baseline-path`; running without a baseline")
    try:
        return Baseline(load_manifest(path), f"file {path}")
    except ManifestError as exc:
        return _none("no baseline yet", f"baseline file unusable, running without a baseline: {exc}")


def _expected(github: GitHubClient | None, where: _Where) -> provenance.Expected | str:
    """Who may have produced the baseline, or why the artifact cannot be looked up at all."""
    branch = where.event.base_branch if where.event else None
    for missing, why in (
        (github is None, "no `github-token`: cannot fetch the baseline artifact; running without a baseline"),
        (not where.repository, "GITHUB_REPOSITORY is not set: cannot look up the baseline artifact"),
        (not branch, "no base branch known (not a pull request, and the event names no default branch); running "
                     "without a baseline"),
        (not where.workflow, "cannot tell which workflow's runs may provide the baseline (GITHUB_WORKFLOW_REF is "
                             "not set): set the `baseline-workflow` input; running without a baseline"),
    ):
        if missing:
            return why
    return provenance.Expected(where.repository, str(branch), str(where.workflow))


def _preferred(github: GitHubClient, where: _Where) -> tuple[list[str], list[str]]:
    """Commits whose baseline is preferred, best first (the PR's merge base, then its base commit), and warnings."""
    pr = where.event.pull_request if where.event else None
    if pr is None:
        return [], []
    base, warning = provenance.merge_base(github, where.repository, pr.base_sha, pr.head_sha)
    return [sha for sha in (base, pr.base_sha) if sha], [warning] if warning else []


def _from_artifact(github: GitHubClient | None, where: _Where, name: str, max_bytes: int) -> Baseline:
    none = "no baseline yet"
    expected = _expected(github, where)
    if isinstance(expected, str):
        return _none(none, expected)
    assert github is not None  # _expected said why otherwise
    try:
        artifacts = list(github.paginate(f"repos/{expected.repository}/actions/artifacts", params={"name": name},
                                         items_key="artifacts", max_pages=10))
    except GitHubError as exc:
        return _none(none, f"cannot list baseline artifacts: {exc}")
    prefer, warnings = _preferred(github, where)
    choice = provenance.choose(github, artifacts, name=name, expected=expected, prefer=prefer,
                               current_run_id=where.current_run_id)
    warnings += choice.warnings
    if choice.artifact is None:
        return _none(none, choice.why_none, *warnings)
    baseline = _download(github, expected, choice.artifact, name, max_bytes)
    baseline.warnings[:0] = warnings
    return baseline


def _download(github: GitHubClient, expected: provenance.Expected, chosen: dict[str, Any], name: str,
              max_bytes: int) -> Baseline:
    none = "no baseline yet"
    run = chosen.get("workflow_run") or {}
    source = f"artifact {name} from {expected.branch}@{str(run.get('head_sha') or '?')[:7]} (run {run.get('id')})"
    size = chosen.get("size_in_bytes")
    if isinstance(size, int) and size > max_bytes:
        return _none(none, f"baseline {source} is {size:,} bytes, over the {max_bytes:,} byte limit; not downloaded")
    try:
        data = github.download(f"repos/{expected.repository}/actions/artifacts/{chosen['id']}/zip",
                               max_bytes=max_bytes)
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
    from khaos_action.atomic import make_dirs, write_atomic

    make_dirs(target.parent)  # through no link in the workspace (a committed one is refused, naming it)

    write_atomic(target, Path(manifest_path).read_bytes())  # whole or absent: the next PR run reads it
    return target
