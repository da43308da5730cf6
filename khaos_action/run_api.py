"""The request/result pair between a shell (CLI, GitHub Action) and the evaluation: one run, in and out.

Kept free of GitHub code so `khaos_action.evaluate.evaluate` can import it without pulling in the action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from khaos_action.reporters import default_formats

if TYPE_CHECKING:  # the manifest's models are built while the agent's worker starts (pipeline/preimport.py)
    from khaos_action.manifest import Manifest


@dataclass(frozen=True)
class EvaluateRequest:
    config_path: Path
    """The khaos.yaml to run (absolute, or relative to the current directory)."""
    out_dir: Path
    """Where manifest.json, events.jsonl and the reports are written."""
    packs: tuple[str, ...] = ()
    """Packs to run instead of the config's `packs` (empty: the config's own)."""
    seed: int | None = None
    """Overrides the config's seed when set."""
    concurrency: int | None = None
    """Overrides the config's concurrency when set."""
    shard: tuple[int, int] | None = None
    """(index, total), 1-based: run only this deterministic slice of the cases."""
    min_score: float | None = None
    """Overrides `gates.min_overall` when set."""
    formats: tuple[str, ...] = field(default_factory=default_formats)
    """Which reports to write, by their names in khaos_action/reporters.py (manifest.json is always written)."""
    contract_only: bool = False
    """Run only the contract over the chaos matrix (`khaos-action contract run|score`)."""
    force: bool = False
    """`out_dir` may already hold a run: replace its files (without it, that is a usage error: runs never mix)."""
    extensions: tuple[str, ...] = ()
    """Extension modules imported before the config is loaded, each a module name or a `.py` file (relative to
    the current directory): their faults, invariants, transports and formats register themselves
    (khaos_action/extensions.py). Never read from the config: an extension runs in this process."""


@dataclass(frozen=True)
class EvaluateResult:
    manifest: Manifest
    out_dir: Path
    reports: dict[str, Path] = field(default_factory=dict)
    """Report format (a REPORTERS name) → file written; formats not produced are absent."""

    @property
    def manifest_path(self) -> Path:
        return self.reports.get("json", self.out_dir / "manifest.json")
