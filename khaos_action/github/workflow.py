"""Workflow commands and files: outputs, step summary, annotations, masking, and keeping untrusted text inert.

Escaping follows the runner's own rules (actions/toolkit `command.ts`): data escapes `%`, CR, LF; properties also
escape `:` and `,`. https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/workflow-commands-for-github-actions
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

SUMMARY_LIMIT = 1024 * 1024
"""Bytes a step summary may hold; GitHub drops the whole summary above this."""
ANNOTATION_CAP = 10
"""Annotations GitHub shows per type and step; the rest go to the summary."""


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def format_command(name: str, message: str = "", **properties: object) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def output_block(name: str, value: str, make_delimiter: Callable[[], str] | None = None) -> str:
    """`name<<DELIM\\nvalue\\nDELIM\\n`, with a random delimiter that does not occur in the value."""
    make_delimiter = make_delimiter or (lambda: f"ghadelimiter_{secrets.token_hex(16)}")
    for _ in range(100):
        delimiter = make_delimiter()
        if delimiter not in value and delimiter not in name:
            return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"
    raise ValueError("could not find an output delimiter absent from the value")


def set_outputs(path: str | Path | None, outputs: dict[str, str]) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.writelines(output_block(name, value) for name, value in outputs.items())


def fit_summary(text: str, *, already: int = 0, limit: int = SUMMARY_LIMIT, link: str | None = None) -> str:
    """Cut `text` at a line boundary so the summary file stays under `limit` bytes, and say where the rest is."""
    data = text.encode("utf-8")
    if already + len(data) <= limit:
        return text
    where = (
        f" The full report is in the run's artifacts: {link}" if link else " The full report is in the `.khaos` folder."
    )
    note = f"\n\n> **Summary truncated** at GitHub's 1 MiB step-summary limit.{where}\n"
    room = limit - already - len(note.encode("utf-8"))
    if room <= 0:
        return ""
    cut = data[:room].decode("utf-8", errors="ignore")
    newline = cut.rfind("\n")
    return (cut[:newline] if newline > 0 else cut) + note


def append_summary(path: str | Path | None, text: str, *, link: str | None = None) -> None:
    if not path:
        return
    target = Path(path)
    already = target.stat().st_size if target.exists() else 0
    fitted = fit_summary(text, already=already, link=link)
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(fitted)


@dataclass(frozen=True)
class Annotation:
    level: str
    """error | warning | notice"""
    message: str
    title: str | None = None
    file: str | None = None
    line: int | None = None

    def command(self) -> str:
        return format_command(self.level, self.message, file=self.file, line=self.line, title=self.title)


def cap_annotations(
    annotations: Sequence[Annotation], cap: int = ANNOTATION_CAP
) -> tuple[list[Annotation], list[Annotation]]:
    """(shown, overflow): at most `cap` per level are shown, in order; the overflow belongs in the summary."""
    shown, overflow, counts = [], [], {}
    for annotation in annotations:
        counts[annotation.level] = counts.get(annotation.level, 0) + 1
        (shown if counts[annotation.level] <= cap else overflow).append(annotation)
    return shown, overflow


class WorkflowLog:
    """Writes the job log. Everything not ours goes through `untrusted()` so it can never issue a command."""

    def __init__(self, stream: TextIO | None = None, *, make_token: Callable[[], str] | None = None) -> None:
        self.stream = stream or sys.stdout
        self.make_token = make_token or (lambda: secrets.token_hex(16))
        self.warnings: list[str] = []
        self._masked: set[str] = set()

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def info(self, message: str) -> None:
        for line in message.splitlines() or [""]:
            self._write(line if not line.startswith("::") else " " + line)

    def warning(self, message: str, **props: object) -> None:
        self.warnings.append(message)
        self._write(format_command("warning", message, **props))

    def error(self, message: str, **props: object) -> None:
        self._write(format_command("error", message, **props))

    def mask(self, value: str | None) -> None:
        if value and value not in self._masked:
            self._masked.add(value)
            self._write(format_command("add-mask", value))

    def annotate(self, annotation: Annotation) -> None:
        self._write(annotation.command())

    def untrusted(self, text: str) -> None:
        with self.commands_stopped():
            self.stream.write(text if text.endswith("\n") else text + "\n")

    @contextmanager
    def commands_stopped(self) -> Iterator[str]:
        """While inside, the runner ignores workflow commands; the end token is random so text cannot guess it."""
        token = self.make_token()
        self._write(f"::stop-commands::{token}")
        try:
            yield token
        finally:
            self.stream.flush()
            self._write(f"::{token}::")

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        self._write(f"::group::{escape_data(title)}")
        try:
            yield
        finally:
            self._write("::endgroup::")
