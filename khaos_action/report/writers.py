"""Write the run's files from the manifest: manifest.json always, then the requested report formats."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from khaos_action.atomic import atomic_file, write_atomic
from khaos_action.errors import output_error
from khaos_action.manifest import Manifest

FILES = {"json": "manifest.json", "md": "report.md", "junit": "junit.xml", "sarif": "results.sarif",
         "html": "report.html"}


def render(kind: str, manifest: Manifest) -> str:
    if kind == "md":
        from khaos_action.report.markdown import render_markdown

        return render_markdown(manifest)
    if kind == "junit":
        from khaos_action.report.junit import render_junit

        return render_junit(manifest)
    if kind == "sarif":
        from khaos_action.report.sarif import render_sarif

        return render_sarif(manifest)
    if kind == "html":
        from khaos_action.report.html import render_html

        return render_html(manifest)
    raise ValueError(kind)


def write_all(manifest: Manifest, out_dir: Path, formats: Sequence[str]) -> dict[str, Path]:
    """manifest.json first (every report can be rebuilt from it), then each report; each file whole or absent.
    A write that fails (disk full, `ulimit -f`, permission) is an OutputError (exit 3) saying which files were kept."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise output_error(out_dir, exc) from None
    written = {"json": out_dir / FILES["json"]}
    manifest.write(written["json"], kept=_kept(out_dir, []))
    for kind in formats:
        if kind == "json":
            continue
        path = out_dir / FILES[kind]
        kept = _kept(out_dir, list(written.values()))
        if kind == "junit":  # streamed: it is the one report that grows with every case (36 MB at 50k cases)
            from khaos_action.report.junit import iter_junit

            with atomic_file(path, kept=kept) as out:
                for chunk in iter_junit(manifest):
                    out.write(chunk.encode("utf-8", "replace"))
        else:
            write_atomic(path, render(kind, manifest), kept=kept)
        written[kind] = path
    return written


def _kept(out_dir: Path, written: list[Path]) -> str:
    names = ["events.jsonl"] if (out_dir / "events.jsonl").exists() else []
    names += [p.name for p in written]
    return f"kept whole in {out_dir}: {', '.join(names)}" if names else "nothing was written"
