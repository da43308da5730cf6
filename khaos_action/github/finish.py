"""What every exit of the action leaves behind: a workspace the runner's user owns, and a summary and outputs even
when no verdict was reached (exit 2, 3, 4, an interrupt).

`Finish` is the action's `on_exit` hook of the one error boundary (khaos_action/errors.py `guard`, which
entrypoint.py puts around set-up and the whole flow), so it runs whatever happened.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from khaos_action.errors import ExitCode
from khaos_action.github.workflow import append_summary, set_outputs
from khaos_action.report.escape import md_code
from khaos_action.reporters import action_outputs

if TYPE_CHECKING:
    from khaos_action.github.settings import ActionSettings, Places

EMPTY_OUTPUTS = ("score", "security-score", "resilience-score", *action_outputs(), "manifest-path", "comment-file")

WHAT_TO_FIX = {
    ExitCode.CONFIG: "the configuration or an action input: change what the message names (`khaos-action validate` "
                     "checks a khaos.yaml locally) and re-run.",
    ExitCode.AGENT: "the agent could not be run, or its results could not be written: check the `install` command, "
                    "the agent's `entry`/`url`/`command` in khaos.yaml and free disk space; the job log has the "
                    "details.",
    ExitCode.INTERNAL: "nothing on your side: this is a bug in khaos-action. The traceback is in the job log; please "
                       "report it.",
    ExitCode.INTERRUPTED: "the job was cancelled or interrupted; re-run it.",
}
TITLES = {
    ExitCode.CONFIG: "the configuration or an input is wrong",
    ExitCode.AGENT: "the agent could not run",
    ExitCode.INTERNAL: "internal error",
    ExitCode.INTERRUPTED: "interrupted",
}


@dataclass(slots=True)
class Finish:
    """Where every exit leaves its summary and outputs, and which workspace goes back to its owner. Made from the
    runner's environment before the settings are read (an input error still gets its summary), then pointed at the
    settings' places (`settle`) once they are known."""

    workspace: str | Path | None
    summary_path: str | None
    output_path: str | None
    run_url: str | None = None

    @classmethod
    def of_environ(cls, environ: Mapping[str, str], cwd: str) -> Finish:
        return cls(workspace=environ.get("GITHUB_WORKSPACE") or cwd, summary_path=environ.get("GITHUB_STEP_SUMMARY"),
                   output_path=environ.get("GITHUB_OUTPUT"))

    def settle(self, settings: ActionSettings, places: Places) -> None:
        self.workspace, self.run_url = places.workspace, settings.run_url

    def __call__(self, code: int, message: str | None) -> None:
        finish(code, message, workspace=self.workspace, summary_path=self.summary_path, output_path=self.output_path,
               run_url=self.run_url)


def finish(code: int, message: str | None, *, workspace: str | Path | None, summary_path: str | None,
           output_path: str | None, run_url: str | None = None) -> None:
    """On exit 0/1 the report already wrote summary and outputs; otherwise say why there is no verdict. Always hand
    the workspace back to its owner."""
    try:
        if code not in (ExitCode.PASSED, ExitCode.GATE_FAILED):
            append_summary(summary_path, failure_summary(code, message), link=run_url)
            set_outputs(output_path, {"passed": "false", **dict.fromkeys(EMPTY_OUTPUTS, "")})
    finally:
        if workspace:
            hand_back(Path(workspace))


def failure_summary(code: int, message: str | None) -> str:
    """Markdown for the step summary: the error (inert: it may quote agent output) and what to fix."""
    try:
        known = ExitCode(code)
    except ValueError:
        known = None
    title = TITLES.get(known, "stopped") if known is not None else "stopped"
    lines = [f"### ❌ khaos-action: no verdict, {title} (exit {code})", ""]
    if message:
        lines += [md_code(message, limit=4000), ""]
    if known in WHAT_TO_FIX:
        lines += [f"**What to fix:** {WHAT_TO_FIX[known]}", ""]
    return "\n".join(lines) + "\n"


def hand_back(workspace: Path) -> int:
    """The container runs as root; whatever we, `install` or the agent left in the workspace must belong to the
    workspace's owner (the runner's user), or later steps cannot clean it up. Returns how many entries changed.

    Every entry not owned by the owner is given to it, without following symlinks (a link is re-owned, never its
    target). A regular file with more than one hard link is left alone: it may be a link to a file outside the
    workspace, and re-owning that inode would re-own the outside file too.
    """
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return 0  # not root: every file we created is already ours, and we could not chown anyway
    try:
        owner = workspace.stat()
    except OSError:
        return 0
    if owner.st_uid == 0:
        return 0
    changed = 0
    for root, dirs, files in os.walk(workspace, followlinks=False):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
                if info.st_uid == owner.st_uid:
                    continue
                if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                    continue
                os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
                changed += 1
            except OSError:
                pass  # best effort: a file we cannot re-own is not worth failing the verdict for
    return changed
