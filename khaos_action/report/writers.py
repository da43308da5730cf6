"""Write the run's files from the manifest: manifest.json always, then the requested report formats (the format
registry, khaos_action/reporters.py, says which file and which renderer each one has)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from khaos_action.atomic import atomic_file, write_atomic
from khaos_action.errors import output_error
from khaos_action.manifest import Manifest
from khaos_action.reporters import REPORTERS


def write_all(manifest: Manifest, out_dir: Path, formats: Sequence[str]) -> dict[str, Path]:
    """manifest.json first (every report can be rebuilt from it), then each report; each file whole or absent.
    A write that fails (disk full, `ulimit -f`, permission) is an OutputError (exit 3) saying which files were kept."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(out_dir, exc) from None
    written = {"json": out_dir / REPORTERS["json"].file}
    manifest.write(written["json"], kept=_kept(out_dir, []))
    for kind in formats:
        if kind == "json":
            continue
        reporter = REPORTERS[kind]
        path = out_dir / reporter.file
        kept = _kept(out_dir, list(written.values()))
        rendered = reporter.renderer()(manifest)
        if isinstance(rendered, str):
            write_atomic(path, rendered, kept=kept)
        else:  # chunks (junit.xml: 36 MB at 50k cases), written as they come
            with atomic_file(path, kept=kept) as out:
                for chunk in rendered:
                    out.write(chunk.encode("utf-8", "replace"))
        written[kind] = path
    return written


def _kept(out_dir: Path, written: list[Path]) -> str:
    names = ["events.jsonl"] if (out_dir / "events.jsonl").exists() else []
    names += [p.name for p in written]
    return f"kept whole in {out_dir}: {', '.join(names)}" if names else "nothing was written"
