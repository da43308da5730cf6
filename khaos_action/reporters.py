"""The report-format registry: one entry per `--format` name, owning its file name, its renderer and its docs.

`--format` (cli.py), the run API's default formats (run_api.py), the writers (report/writers.py), `merge`, the files
a run directory holds (main.claim_out_dir) and the GitHub Action's outputs all read `REPORTERS`; none lists formats.
Bottom layer (beside transports.py): the shells, the run API and report/ all import it, and it imports none of them.

Cheap to import (`khaos-action --help` reads it): built-in entries name their renderer as `"module:function"`,
imported only when that report is written. A format from outside the package registers itself with
`@register_reporter(...)` on its renderer (docs/architecture.md "Add a report format").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

from khaos_action.errors import UsageError
from khaos_action.registry import Registry

if TYPE_CHECKING:
    from khaos_action.manifest import Manifest

Renderer = Callable[["Manifest"], str | Iterable[str]]
"""`render(manifest) -> str`, or an iterable of text chunks for a report that grows with every case (streamed)."""


class Reporter(NamedTuple):  # not a dataclass: `--help` reads this module, and dataclasses imports inspect
    name: str
    """The `--format` name."""
    file: str
    """The file it writes in the run directory."""
    summary: str
    """One line for `--help` and the docs: what the report is for."""
    render: str | Renderer | None = None
    """The renderer, or `"module:function"` naming it. None for `json`: the manifest writes itself, always first."""
    default: bool = False
    """Written when no format is asked for (`--format` omitted, the run API's and merge's defaults)."""
    action_output: str | None = None
    """The GitHub Action output that names this file (declared in action.yml), if any."""

    def renderer(self) -> Renderer:
        if self.render is None:
            raise ValueError(f"the {self.name} report is the manifest itself; it has no renderer")
        if callable(self.render):
            return self.render
        module, _, attr = self.render.partition(":")
        return getattr(importlib.import_module(module), attr)


def _one_format_per_file(registry: Registry[Reporter], name: str, entry: Reporter) -> None:
    clash = next((other.name for other in registry.values() if other.name != name and other.file == entry.file), None)
    if clash is not None:
        raise ValueError(f"report format {name!r} would write {entry.file}, which the {clash} report writes")


REPORTERS: Registry[Reporter] = Registry("report format", error=UsageError, check=_one_format_per_file)
"""`--format` name -> its entry, in the order `--help` lists them."""


def register_reporter(name: str, *, file: str, summary: str, default: bool = False,
                      action_output: str | None = None) -> Callable[[Renderer], Renderer]:
    """Decorator on a renderer: `--format <name>` writes `file` with it from then on."""
    return REPORTERS.decorator(name, lambda render: Reporter(
        name=name, file=file, summary=summary, render=render, default=default, action_output=action_output))


def default_formats() -> tuple[str, ...]:
    return tuple(name for name, entry in REPORTERS.items() if entry.default)


def parse_formats(text: str) -> tuple[str, ...]:
    """`--format md,junit` -> ("md", "junit"); a UsageError listing the valid names for any other."""
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    unknown = [k for k in kinds if k not in REPORTERS]
    if unknown:
        raise UsageError(f"--format: unknown {', '.join(unknown)}; expected a comma list of {', '.join(REPORTERS)}")
    return kinds


def run_files() -> tuple[str, ...]:
    """Every file a run writes in its directory: events.jsonl, the manifest, then each report."""
    return ("events.jsonl", REPORTERS["json"].file,
            *(entry.file for entry in REPORTERS.values() if entry.name != "json"))


def action_outputs() -> tuple[str, ...]:
    """The GitHub Action outputs that name report files (besides manifest-path)."""
    return tuple(entry.action_output for entry in REPORTERS.values() if entry.action_output)


_R = "khaos_action.report"
for _entry in (
    Reporter("md", "report.md", "Markdown report (the job summary shows it)", f"{_R}.markdown:render_markdown",
             default=True, action_output="report-path"),
    Reporter("junit", "junit.xml", "JUnit XML, one test case per case (streamed: it grows with every case)",
             f"{_R}.junit:iter_junit", default=True, action_output="junit-path"),
    Reporter("sarif", "results.sarif", "SARIF 2.1.0 for GitHub code scanning", f"{_R}.sarif:render_sarif",
             default=True, action_output="sarif-path"),
    Reporter("json", "manifest.json", "the run's manifest: every report can be rebuilt from it (always written)",
             default=True),
    Reporter("html", "report.html", "self-contained HTML report with a per-case drill-down", f"{_R}.html:render_html",
             default=True),
):
    REPORTERS.add(_entry.name, _entry)
del _entry
