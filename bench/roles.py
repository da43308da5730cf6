"""Accuracy of guessed tool roles on labelled tool names, descriptions and parameters in four languages and many
domains (tests/fixtures/roles: dev.yaml tuned on, heldout.yaml never). Run: `python bench/roles.py [--errors]`.

Each set is measured with the word lists alone (the default install), with the semantic backend as their fallback
(the `semantic` extra; skipped, saying so, when it is not installed), and with the semantic guess by itself. A tool
counts as right when the guessed role (or no role) is its label. Figures go to docs/roles.md.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from khaos_action.roles import guess_role, role_from_meaning, set_role_meaning  # noqa: E402

SETS = ROOT / "tests" / "fixtures" / "roles"


def load(name: str) -> list[dict]:
    return yaml.safe_load((SETS / f"{name}.yaml").read_text(encoding="utf-8"))


def guessed(row: dict, alone: bool) -> tuple[str | None, str]:
    if alone:  # the semantic guess by itself, as if no word list had matched
        return role_from_meaning(row["name"], row.get("description", ""), row.get("parameters", ())), "meaning"
    guess = guess_role(row["name"], row.get("description", ""), None, row.get("parameters", ()))
    return guess.role, guess.source


def score(rows: list[dict], show_errors: bool, alone: bool = False) -> tuple[int, Counter, Counter]:
    right, per_lang, totals = 0, Counter(), Counter()
    for row in rows:
        role, source = guessed(row, alone)
        ok = role == row["role"]
        right += ok
        per_lang[row["lang"]] += ok
        totals[row["lang"]] += 1
        if show_errors and not ok:
            print(f"    {row['lang']} {row['name']}: guessed {role} ({source}), labelled {row['role']}")
    return right, per_lang, totals


def report(label: str, show_errors: bool, alone: bool = False) -> None:
    for name in ("dev", "heldout"):
        rows = load(name)
        right, per_lang, totals = score(rows, show_errors, alone)
        langs = ", ".join(f"{lang} {per_lang[lang]}/{totals[lang]}" for lang in sorted(totals))
        print(f"{label:9} {name:8} {right}/{len(rows)} = {right / len(rows):.1%}  ({langs})")


def main() -> None:
    show_errors = "--errors" in sys.argv
    report("words", show_errors)
    try:
        from khaos_action.judge.role_meaning import semantic_role_meaning
    except ImportError as exc:
        print(f"semantic: not measured ({exc})")
        return
    meaning = semantic_role_meaning()
    if meaning is None:
        print("semantic: not measured (the `semantic` extra is not installed)")
        return
    set_role_meaning(meaning)
    try:
        report("+meaning", show_errors)
        report("meaning", show_errors, alone=True)
    finally:
        set_role_meaning(None)


if __name__ == "__main__":
    main()
