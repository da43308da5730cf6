"""How the learned refusal model generalises, measured before it is combined with the rules.

1. Leave one source out on the dev halves (bench/train_refusal_model.py's DEV_SETS): train on every other source,
   score that one; each dev row then has a probability from a model that never saw its source. The thresholds of the
   combinations are chosen on those scores only.
2. The first look on every holdout (ours and external, the locally built XSTest replication's when it is there),
   with the weights trained on all dev halves: the rules alone, the model alone, and each combination.

Combinations: "or@t" reads a reply as a refusal when the rules do or the model's probability is at least t (the
model overruling the rules' "answer" above t); "or@t+prompt" the same only when the request is known.

Run: python bench/refusal_model_eval.py PATH/dstc8-schema-guided-dialogue [--loso] [--kind-folds] [--holdouts] [--speed]
"""

from __future__ import annotations

import argparse
import difflib
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import judge as bench_judge  # noqa: E402
import train_refusal_model as trainer  # noqa: E402
from refusal_model import decline_probability  # noqa: E402

from khaos_action.detect.refusal import is_refusal  # noqa: E402
from khaos_action.detect.refusal_request import Request  # noqa: E402

THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99)


def _combos(rule: bool, p: float, prompt: str | None) -> dict[str, bool]:
    act = bool(Request.of(prompt).acts)
    out = {"rules": rule, "model@0.5": p >= 0.5}
    for t in THRESHOLDS:
        out[f"or@{t}"] = rule or p >= t
        out[f"or@{t}+prompt"] = rule or (bool(prompt) and p >= t)
        out[f"or@{t}+act"] = rule or (act and p >= t)
    return out


def _report(title: str, rows: list[tuple[dict, bool, float]]) -> dict[str, tuple[int, int, int, int, int]]:
    """rows: (row, rules' verdict, model probability). Prints and returns right/n, caught/refusals, flagged/answers."""
    tally: dict[str, Counter] = {}
    for row, rule, p in rows:
        for name, verdict in _combos(rule, p, row.get("prompt")).items():
            c = tally.setdefault(name, Counter())
            c["n"] += 1
            c["right"] += verdict == row["refusal"]
            c["refusals"] += row["refusal"]
            c["caught"] += row["refusal"] and verdict
            c["answers"] += not row["refusal"]
            c["flagged"] += (not row["refusal"]) and verdict
            c["newly_flagged"] += (not row["refusal"]) and verdict and not rule
    print(f"== {title}")
    for name, c in tally.items():
        if name in ("rules", "model@0.5") or name.endswith("+act") or name in ("or@0.9", "or@0.95", "or@0.99"):
            print(f"   {name:<14} {c['right']}/{c['n']} ({c['right'] / max(1, c['n']):.3f})  caught "
                  f"{c['caught']}/{c['refusals']}  answers read as refusals {c['flagged']}/{c['answers']} "
                  f"(new {c['newly_flagged']})")
    return {k: (c["right"], c["n"], c["caught"], c["flagged"], c["newly_flagged"]) for k, c in tally.items()}


def loso(sgd: Path) -> None:
    rows = trainer.dev_rows() + trainer.sgd_rows(sgd)
    encoded = [trainer.encode(row) for _, row in rows]
    rules = [is_refusal(row["text"], row.get("prompt")).refused for _, row in rows]
    sources = list(dict.fromkeys(source for source, _ in rows))
    scored: list[tuple[str, dict, bool, float]] = []
    for held in sources:
        keep = [i for i, (source, _) in enumerate(rows) if source != held]
        weights = trainer.train([rows[i] for i in keep], [encoded[i] for i in keep])
        for i, (source, row) in enumerate(rows):
            if source == held:
                z = sum(weights.get(index, 0.0) * count for index, count in encoded[i])
                p = 1.0 / (1.0 + 2.718281828459045 ** -max(-30.0, min(30.0, z)))
                scored.append((source, row, rules[i], p))
        _report(f"leave out {held}", [(r, rule, p) for s, r, rule, p in scored if s == held])
    _report("all dev rows, each scored by a model that never saw its source", [(r, ru, p) for _, r, ru, p in scored])
    ours = [(r, ru, p) for s, r, ru, p in scored if not s.startswith(("external/", "refusal_xstest_ext", "sgd"))]
    _report("our dev rows (agents' replies), out of source", ours)


def kind_folds(sgd: Path, source: str = "refusal_conditions_dev.jsonl", folds: int = 5) -> None:
    """Does the model learn a kind from a few dozen rows of it? `source`'s rows split by domain into folds; each fold
    scored by a model trained on every other source and the other folds."""
    rows = trainer.dev_rows() + trainer.sgd_rows(sgd)
    encoded = [trainer.encode(row) for _, row in rows]
    domains = sorted({row["domain"] for s, row in rows if s == source})
    fold_of = {domain: i % folds for i, domain in enumerate(domains)}
    scored = []
    for fold in range(folds):
        held = [i for i, (s, row) in enumerate(rows) if s == source and fold_of[row["domain"]] == fold]
        keep = [i for i in range(len(rows)) if i not in set(held)]
        weights = trainer.train([rows[i] for i in keep], [encoded[i] for i in keep])
        for i in held:
            z = sum(weights.get(index, 0.0) * count for index, count in encoded[i])
            p = 1.0 / (1.0 + 2.718281828459045 ** -max(-30.0, min(30.0, z)))
            row = rows[i][1]
            scored.append((row, is_refusal(row["text"], row.get("prompt")).refused, p))
    _report(f"{source}, {folds} folds by domain", scored)


def holdout_sets(skip: set[str]) -> dict[str, list[dict]]:
    listed = (*bench_judge.OURS, *bench_judge.PROMPTED, *bench_judge.EXTERNAL)
    found = sorted(path.name for path in trainer.FIXTURES.glob("refusal_*holdout*.jsonl"))  # also those not listed yet
    names = [n for n in dict.fromkeys((*listed, *found)) if "holdout" in n and n not in skip]
    sets = {n: [r for r in trainer._jsonl(trainer.FIXTURES / n) if r.get("topic", "on") == "on"
                and r.get("refusal") is not None] for n in names}
    for name in bench_judge.UNVENDORED:
        path = ROOT / "bench" / ".external" / name
        if "holdout" in name and path.exists():
            sets[name] = [r for r in trainer._jsonl(path) if r.get("refusal") is not None]
    sets["external/refusal_jbb_holdout.jsonl"] = [
        r for r in trainer._jsonl(trainer.FIXTURES / "external/refusal_jbb_holdout.jsonl") if r["refusal"] is False]
    return sets


def holdouts(skip: set[str]) -> None:
    total: dict[str, list[int]] = {}
    ours: dict[str, list[int]] = {}
    for name, data in holdout_sets(skip).items():
        scored = [(r, is_refusal(r["text"], r.get("prompt")).refused, decline_probability(r["text"], r.get("prompt")))
                  for r in data]
        for key, figures in _report(name, scored).items():
            for acc in (total, *((ours,) if not name.startswith(("external/", "refusal_xstest_ext")) else ())):
                acc.setdefault(key, [0, 0, 0, 0, 0])
                acc[key] = [a + b for a, b in zip(acc[key], figures)]
    for title, acc in (("every holdout", total), ("our holdouts", ours)):
        print(f"== {title}, summed")
        for key, (right, n, caught, flagged, new) in acc.items():
            print(f"   {key:<16} {right}/{n} ({right / max(1, n):.4f})  caught {caught}  answers read as refusals "
                  f"{flagged} (new {new})")


def sgd_test(sgd: Path) -> None:
    """The SGD test dialogues' system turns that answer a request for an act (the user turn before them asks for
    one), read by the rules and by the model: how many the model would newly call refusals at each threshold."""
    pairs = [(user, text) for user, text in trainer.sgd_pairs(sgd, "test") if Request.of(user).acts]
    probabilities = [(decline_probability(text, user, True), user, text) for user, text in pairs
                     if not is_refusal(text, user).refused]
    print(f"== SGD test dialogues: {len(pairs)} system turns after a request for an act, "
          f"{len(pairs) - len(probabilities)} read as refusals by the rules; newly read as refusals by the model: "
          + "  ".join(f"@{t} {sum(p >= t for p, _, _ in probabilities)}" for t in THRESHOLDS))
    for p, user, text in sorted(probabilities, reverse=True)[:10]:
        print(f"   {p:.3f}  {user[:70]!r} -> {text[:120]!r}")


def speed(skip: set[str], calls: int = 5) -> None:
    """Time per reply, each the fastest of `calls` calls, over every labelled row: the model and the rules."""
    texts = []
    for name in (*bench_judge.OURS, *bench_judge.PROMPTED, *bench_judge.EXTERNAL, *bench_judge.OBEYED):
        if name not in skip:
            texts += [(r["text"], r.get("prompt")) for r in trainer._jsonl(trainer.FIXTURES / name)]
    for name in bench_judge.UNVENDORED:
        path = ROOT / "bench" / ".external" / name
        if path.exists():
            texts += [(r["text"], r.get("prompt")) for r in trainer._jsonl(path)]
    decline_probability("warm", "up")
    for title, fn in (("model", decline_probability), ("rules", is_refusal)):
        best = []
        for text, prompt in texts:
            times = []
            for _ in range(calls):
                start = time.perf_counter()
                fn(text, prompt)
                times.append(time.perf_counter() - start)
            best.append(min(times))
        median = statistics.median(best) * 1e6
        print(f"{title}: {len(texts)} replies, sum {sum(best) * 1e3:.0f} ms, median {median:.0f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sgd", type=Path, help="a checkout of google-research-datasets/dstc8-schema-guided-dialogue")
    parser.add_argument("--loso", action="store_true")
    parser.add_argument("--holdouts", action="store_true")
    parser.add_argument("--kind-folds", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--skip", nargs="*", default=[],
                        help="labelled files not to open (a blind set kept for a later first look)")
    args = parser.parse_args()
    known = {*bench_judge.OURS, *bench_judge.PROMPTED, *bench_judge.EXTERNAL, *bench_judge.OBEYED,
             *(path.name for path in trainer.FIXTURES.glob("refusal_*.jsonl"))}
    unknown = sorted(set(args.skip) - known)
    if unknown:
        # A misspelt name would silently open the blind set it meant to keep closed.
        parser.error("; ".join(f"--skip {name}: not a labelled set" + (f" (did you mean {m[0]}?)" if m else "")
                               for name in unknown for m in [difflib.get_close_matches(name, known, n=1)]))
    if args.loso:
        loso(args.sgd)
    if args.kind_folds:
        kind_folds(args.sgd)
    if args.speed:
        speed(set(args.skip))
    if args.holdouts:
        holdouts(set(args.skip))
        sgd_test(args.sgd)


if __name__ == "__main__":
    main()
