"""What a run shows while it works: the phase, cases done of those planned, failures and compromises so far, and the
time left.

A security pack against a real model takes tens of minutes; without this nothing is printed until the end. It goes
to stderr only, never to stdout (the summary, anything machine-readable), and says only counts and our own phase
names, never agent text. The shells choose (`progress_for`): a live bar on a terminal (tqdm: small, no dependencies,
well kept), a plain line every few seconds elsewhere (CI logs, the GitHub Action), nothing with `--quiet`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from khaos_action.outcome import Phase

PHASES = (Phase.BASELINE, Phase.RESILIENCE, Phase.CONTRACT, Phase.MUTATION, Phase.REPLAY, Phase.SECURITY)
"""The order a run's phases are shown in: the first one with cases left is "the" phase."""
INTERVAL_S = 10.0
"""Seconds between two plain lines."""


class Progress:
    """Told what a run plans and finishes; this one shows nothing (`--quiet`, the run API by default)."""

    shows = False
    """Whether anything is shown (the run only judges cases as they end for a display that shows them)."""

    def planned(self, phase: Phase, count: int) -> None:
        """`count` more cases of `phase` were handed to the engine."""

    def finished(self, phase: Phase, *, failed: bool, compromised: bool) -> None:
        """One case of `phase` ended (`failed`: its call failed or it was judged failed; `compromised`: an attack
        judged COMPROMISED)."""

    def close(self) -> None:
        """The run's cases are done (or it stopped): clear what is shown."""


class Tally(Progress):
    """The counts every display reads (updated from the run's event loop thread, read from any)."""

    shows = True

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.plan: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.failed = 0
        self.compromised = 0

    def planned(self, phase: Phase, count: int) -> None:
        self.plan[phase] = self.plan.get(phase, 0) + count

    def finished(self, phase: Phase, *, failed: bool, compromised: bool) -> None:
        self.done[phase] = self.done.get(phase, 0) + 1
        self.failed += failed
        self.compromised += compromised

    @property
    def total(self) -> int:
        return sum(self.plan.values())

    @property
    def count(self) -> int:
        return sum(self.done.values())

    def phase(self) -> str:
        """`security 34/120`: the first phase (in PHASES order) with cases left, else the last one that ran."""
        order = sorted(self.plan, key=lambda p: PHASES.index(p) if p in PHASES else len(PHASES))
        current = next((p for p in order if self.done.get(p, 0) < self.plan[p]), order[-1] if order else "")
        return f"{current} {self.done.get(current, 0)}/{self.plan.get(current, 0)}" if current else "starting"

    def outcomes(self) -> str:
        said = f"{self.failed} failed"
        return said + (f", {self.compromised} compromised" if self.compromised else "")

    def left_s(self) -> float | None:
        """Seconds left at the pace so far; None before the first case ends."""
        count = self.count
        if not count:
            return None
        return (self.clock() - self.started) / count * max(self.total - count, 0)

    def line(self) -> str:
        elapsed = self.clock() - self.started
        left = self.left_s()
        eta = f", about {duration(left)} left" if left is not None and self.count < self.total else ""
        return (f"khaos-action: {self.count}/{self.total} cases · {self.phase()} · {self.outcomes()} · "
                f"{duration(elapsed)} elapsed{eta}")


class Lines(Tally):
    """A plain line on `stream` every `interval_s` while cases run (and only if something changed, or a minute
    passed): readable in a CI log, where a redrawn bar is noise."""

    def __init__(self, stream: IO[str], interval_s: float = INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock)
        self.stream = stream
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._said: tuple[int, int] | None = None
        self._said_at = self.started
        self._thread = threading.Thread(target=self._run, name="khaos-progress", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            state = (self.count, self.total)
            if state != self._said or self.clock() - self._said_at >= 60:
                self._said, self._said_at = state, self.clock()
                self._say(self.line())

    def _say(self, text: str) -> None:
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # the log is gone: progress is never worth failing the run for
            self._stop.set()

    def close(self) -> None:
        self._stop.set()


class Bar(Tally):
    """A live bar on a terminal (tqdm), cleared when the run's cases are done."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        from tqdm import tqdm

        # A terminal that reports no size (a bare pty) gets 100 × 20: tqdm would draw nothing in 0 × 0.
        width = {"dynamic_ncols": True} if _columns(stream) > 0 else {"ncols": 100, "nrows": 20}
        self.bar: Any = tqdm(total=0, file=stream, unit="case", leave=False, mininterval=0.2, **width,
                             desc="khaos-action: starting",
                             bar_format="{desc} {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} cases "
                                        "[{elapsed}<{remaining}{postfix}]")

    def planned(self, phase: Phase, count: int) -> None:
        super().planned(phase, count)
        self.bar.total = self.total
        self._show()
        self.bar.refresh()

    def finished(self, phase: Phase, *, failed: bool, compromised: bool) -> None:
        super().finished(phase, failed=failed, compromised=compromised)
        self._show()
        self.bar.update(1)

    def _show(self) -> None:
        self.bar.set_description_str(f"khaos-action: {self.phase()}", refresh=False)
        self.bar.set_postfix_str(self.outcomes(), refresh=False)

    def close(self) -> None:
        self.bar.close()


def progress_for(stream: IO[str], *, quiet: bool = False) -> Callable[[], Progress]:
    """The display a shell gives its run: nothing (`quiet`), a bar on a terminal, else plain lines."""
    if quiet:
        return Progress
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    return (lambda: Bar(stream)) if terminal else (lambda: Lines(stream))


def _columns(stream: IO[str]) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 0


def duration(seconds: float) -> str:
    """`45s`, `3m05s`, `1h02m`."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
