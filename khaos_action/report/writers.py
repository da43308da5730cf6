"""Write the run's files from the manifest: manifest.json always, then the requested report formats."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from khaos_action.report.manifest import Manifest

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
    out_dir.mkdir(parents=True, exist_ok=True)
    written = {"json": out_dir / FILES["json"]}
    manifest.write(written["json"])
    for kind in formats:
        if kind == "json":
            continue
        path = out_dir / FILES[kind]
        if kind == "junit":  # streamed: it is the one report that grows with every case (36 MB at 50k cases)
            from khaos_action.report.junit import iter_junit

            with path.open("w", encoding="utf-8") as out:
                out.writelines(iter_junit(manifest))
        else:
            path.write_text(render(kind, manifest), encoding="utf-8")
        written[kind] = path
    return written
