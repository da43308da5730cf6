"""Time the refusal detector per reply over every labelled refusal row (bench/refusal_verdicts.py's sets, each row
with its prompt when the set has one): each reply the fastest of several calls, summed and as a median, for the
English, German, French and Spanish rows and for the Italian and Portuguese ones apart (a row's `lang` when the set
gives one, else the language the detector reports).

Run it from two checkouts, alternated, to compare two detectors:
    python bench/refusal_speed.py --calls 5 [--skip SET ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from refusal_verdicts import labelled_rows  # noqa: E402

from khaos_action.detect.refusal import is_refusal  # noqa: E402

NEW = frozenset({"it", "pt"})


def fastest(text: str, prompt: str | None, calls: int) -> float:
    best = float("inf")
    for _ in range(calls):
        start = time.perf_counter()
        is_refusal(text, prompt)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=5, help="calls per reply; the fastest counts")
    parser.add_argument("--skip", action="append", default=[], metavar="SET", help="leave a labelled set out")
    args = parser.parse_args()
    groups: dict[str, list[float]] = {"en/de/fr/es": [], "it/pt": []}
    for rows in labelled_rows(frozenset(args.skip)).values():
        for row in rows:
            lang = row.get("lang") or is_refusal(row["text"]).language
            seconds = fastest(row["text"], row.get("prompt"), args.calls)
            groups["it/pt" if lang in NEW else "en/de/fr/es"].append(seconds)
    for name, times in groups.items():
        if times:
            print(f"{name}: {len(times)} replies, sum {sum(times) * 1e3:.1f} ms, "
                  f"median {statistics.median(times) * 1e6:.1f} µs per reply")


if __name__ == "__main__":
    main()
