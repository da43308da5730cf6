"""Time the refusal detector on every labelled refusal row with this round's new checks stubbed out and in,
alternated in one process: the rules asked for, the question's own verb, the act agreed to (compliance checks), the
limit on a kind of content (a decline rule) and the consequence of a condition (a look-alike). Each reply is the
fastest of three calls; the sum and the median per reply are printed for each pass.

    python bench/refusal_checks_cost.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from refusal_verdicts import labelled_rows  # noqa: E402

from khaos_action.detect import refusal_compliance, refusal_decline, refusal_hypothetical  # noqa: E402
from khaos_action.detect.refusal import is_refusal  # noqa: E402

STUBS = ((refusal_compliance, "rules_told", lambda *_: (0.0, None)),
         (refusal_compliance, "own_verb_denied", lambda *_: (0.0, None)),
         (refusal_compliance, "agreed_first", lambda *_: (0.0, None)),
         (refusal_decline, "content_limit", lambda *_: None),
         (refusal_hypothetical, "HINTS", ()))


def timed(rows: list[dict]) -> tuple[float, float]:
    times = []
    for row in rows:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            is_refusal(row["text"], row.get("prompt"))
            best = min(best, time.perf_counter() - start)
        times.append(best)
    return sum(times) * 1e3, statistics.median(times) * 1e6


def main() -> None:
    rows = [row for rows in labelled_rows(frozenset()).values() for row in rows]
    kept = [getattr(module, name) for module, name, _ in STUBS]
    for _ in range(2):
        on = timed(rows)
        for module, name, stub in STUBS:
            setattr(module, name, stub)
        off = timed(rows)
        for (module, name, _), value in zip(STUBS, kept, strict=True):
            setattr(module, name, value)
        print(f"without: sum {off[0]:.1f} ms, median {off[1]:.1f} µs | with: sum {on[0]:.1f} ms, median {on[1]:.1f} µs")
    print(f"{len(rows)} rows")


if __name__ == "__main__":
    main()
