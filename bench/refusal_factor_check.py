"""Every pattern the refusal detector compiles through refusal_grammar.rx, as written and factored
(detect/refusal_factor.py): the same matches (span and groups) on every labelled text and prompt, and optionally on
the Schema-Guided Dialogue turns bench/refusal_verdicts.py reads. A check of the rewrite on the detector's own
patterns; tests/unit/test_refusal_factor.py checks it on random ones.

Run:
    python bench/refusal_factor_check.py [--sgd PATH/dstc8-schema-guided-dialogue] [--files N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from khaos_action.detect import refusal_grammar  # noqa: E402

WRITTEN: dict[tuple[str, int], str] = {}


def _recording(pattern: str, flags: int = 0) -> str:
    new = refusal_grammar_factored(pattern, flags)
    WRITTEN[(pattern, flags)] = new
    return new


# recorded before any rule module is imported, so every rx() call passes through it
refusal_grammar_factored = refusal_grammar.factored
refusal_grammar.factored = _recording

from refusal_verdicts import labelled_rows  # noqa: E402 (imports the detector, through the recording rx)


def _matches(pattern: re.Pattern[str], text: str) -> list:
    found: list = [(m.span(), m.groups()) for m in pattern.finditer(text)]
    match = pattern.match(text)
    found.append(match and (match.span(), match.groups()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sgd", type=Path, help="a checkout of dstc8-schema-guided-dialogue: its dev turns too")
    parser.add_argument("--files", type=int, default=3, help="dialogue files of the dev split read with --sgd")
    args = parser.parse_args()
    texts = [t for rows in labelled_rows().values() for row in rows for t in (row["text"], row.get("prompt")) if t]
    if args.sgd:
        for path in sorted((args.sgd / "dev").glob("dialogues_*.json"))[:args.files]:
            texts += [turn["utterance"] for dialogue in json.loads(path.read_text()) for turn in dialogue["turns"]]
    texts = list(dict.fromkeys(texts))
    start, rewritten, differing = time.perf_counter(), 0, 0
    for (pattern, flags), new in WRITTEN.items():
        if new == pattern:
            continue
        rewritten += 1
        written, factored = re.compile(pattern, flags), re.compile(new, flags)
        same = factored.groupindex == written.groupindex and all(
            _matches(written, text) == _matches(factored, text) for text in texts)
        if not same:
            differing += 1
            print(f"DIFFERS: {pattern[:120]}")
    print(f"{len(WRITTEN)} patterns, {rewritten} rewritten, {differing} matching otherwise, on {len(texts)} texts "
          f"({time.perf_counter() - start:.0f} s)")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
