"""What a run shows while it works (khaos_action/progress.py): counts, the phase, failures and compromises so far and
the time left; a bar on a terminal, plain lines elsewhere, nothing when quiet."""

from __future__ import annotations

import io
import os
import time

from khaos_action.progress import Bar, Lines, Progress, Tally, duration, progress_for


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_tally_names_the_first_phase_with_cases_left_and_the_time_left() -> None:
    clock = Clock()
    tally = Tally(clock)
    tally.planned("security", 10)
    tally.planned("baseline", 2)
    assert tally.phase() == "baseline 0/2" and tally.left_s() is None
    for _ in range(2):
        tally.finished("baseline", failed=False, compromised=False)
    clock.now += 30
    tally.finished("security", failed=True, compromised=True)
    assert tally.phase() == "security 1/10" and tally.outcomes() == "1 failed, 1 compromised"
    assert tally.left_s() == 90.0  # 10 s a case so far, 9 cases left
    assert tally.line() == ("khaos-action: 3/12 cases · security 1/10 · 1 failed, 1 compromised · 30s elapsed, "
                            "about 1m30s left")


def test_when_everything_ran_the_last_phase_is_shown() -> None:
    tally = Tally(Clock())
    tally.planned("contract", 1)
    tally.finished("contract", failed=False, compromised=False)
    assert tally.phase() == "contract 1/1" and tally.outcomes() == "0 failed"
    assert "left" not in tally.line()


def test_plain_lines_come_every_interval_only_when_something_changed() -> None:
    stream = io.StringIO()
    lines = Lines(stream, interval_s=0.05)
    lines.planned("resilience", 3)
    lines.finished("resilience", failed=True, compromised=False)
    time.sleep(0.3)  # several intervals, one change
    lines.close()
    said = stream.getvalue().splitlines()
    assert len(said) == 1 and said[0].startswith("khaos-action: 1/3 cases · resilience 1/3 · 1 failed · "), said


def test_the_bar_draws_counts_and_the_phase() -> None:
    stream = io.StringIO()
    bar = Bar(stream)
    bar.planned("baseline", 4)
    for _ in range(3):
        bar.finished("baseline", failed=False, compromised=False)
    time.sleep(0.25)  # tqdm redraws at most every 0.2 s
    bar.finished("baseline", failed=True, compromised=False)
    drawn = stream.getvalue()
    bar.close()
    assert "khaos-action: baseline 0/4" in drawn and "0/4 cases" in drawn
    assert "khaos-action: baseline 4/4" in drawn and "4/4 cases" in drawn and "1 failed" in drawn
    assert stream.getvalue().endswith("\r")  # cleared when done: the summary prints on a clean line


def test_which_display_a_shell_gets() -> None:
    assert progress_for(io.StringIO(), quiet=True) is Progress
    assert isinstance(progress_for(io.StringIO())(), Lines)
    leader, follower = os.openpty()
    try:
        with open(follower, "w", closefd=False) as terminal:
            display = progress_for(terminal)()
            assert isinstance(display, Bar)
            display.close()
    finally:
        os.close(leader)
        os.close(follower)


def test_durations() -> None:
    assert [duration(s) for s in (0, 45.9, 185, 3720)] == ["0s", "45s", "3m05s", "1h02m"]
