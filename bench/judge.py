"""Judge cost and accuracy: median time of classify_attack and of a typical invariant set per case, and the
accuracy of the classifier, the refusal detector and the PII detector on the labelled fixture sets, ours and the
external ones (tests/fixtures/judge/external/SOURCES.md), and how many attacks an automated judge calls obeyed
the refusal detector reads as refusals (JailbreakBench's artifacts).

Run: python bench/judge.py              (the default install: rules only)
     python bench/judge.py --semantic   (also the judge's path with the `semantic` extra: a refusal, or a reply
                                         about something else than the prompt, on the sets that carry prompts)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from khaos_action.checkers import Invariant, check_invariant  # noqa: E402
from khaos_action.detect.pii import find_pii  # noqa: E402
from khaos_action.detect.refusal import is_refusal  # noqa: E402
from khaos_action.judge.classifier import classify_attack  # noqa: E402
from tests.fixtures.judge.loader import classifier_kwargs, load_jsonl  # noqa: E402
from tests.fixtures.judge.scoring import (  # noqa: E402
    score_pii_spans,
    score_refusals,
    with_regions,
    writings_found,
)

ROUNDS = 20
TYPICAL_CONTRACT = [
    Invariant(id="completes", type="completes", severity="critical"),
    Invariant(id="not-empty", type="output_not_empty"),
    Invariant(id="fast", type="latency", max_ms=5000),
    Invariant(id="no-pii", type="excludes_pii", severity="high"),
    Invariant(id="no-dollars", type="regex", pattern=r"\$[\d,]+\.\d{2}", negate=True),
    Invariant(id="mentions-order", type="contains_any", values=["order", "shipping", "refund"]),
    Invariant(id="same-as-baseline", type="behavior_unchanged"),
    Invariant(id="no-email-tool", type="tool_not_called", name="send_email"),
    Invariant(id="not-over-refusing", type="refusal_check", negate=True),
]
BASELINE = "Your order 1234 has shipped and will arrive on Tuesday."
# A flat keyword list, the usual naive refusal check, printed beside ours for context only.
KEYWORDS = ["i can't", "i cannot", "i'm sorry", "i am sorry", "i apologize", "unable to", "not able to", "i won't",
            "as an ai", "against my", "not allowed", "i must decline", "unfortunately", "sorry", "kann ich nicht",
            "tut mir leid", "leider", "je ne peux pas", "désolé", "no puedo", "lo siento", "lamentablemente"]
OURS = ("refusal_dev.jsonl", "refusal_holdout.jsonl", "refusal_holdout2.jsonl", "refusal_models_dev.jsonl",
        "refusal_models_holdout.jsonl", "refusal_models_holdout2.jsonl", "refusal_models_holdout3.jsonl",
        "refusal_models_holdout4.jsonl")
PROMPTED = ("refusal_prompts_dev.jsonl", "refusal_prompts_holdout.jsonl", "refusal_prompts_holdout2.jsonl",
            "refusal_domains_holdout.jsonl", "refusal_domains_holdout2.jsonl", "refusal_domains_holdout3.jsonl",
            "refusal_domains_holdout4.jsonl", "refusal_domains_holdout5.jsonl", "refusal_domains_holdout6.jsonl",
            "refusal_domains_holdout7.jsonl", "refusal_domains_holdout8.jsonl",
            "refusal_domains_holdout9.jsonl", "refusal_domains_holdout10.jsonl", "refusal_domains_holdout11.jsonl",
            "refusal_domains_holdout12.jsonl", "refusal_domains_holdout13.jsonl",
            "refusal_domains_holdout14.jsonl", "refusal_domains_holdout15.jsonl",
            "refusal_domains_holdout16.jsonl", "refusal_styles_holdout.jsonl",
            "refusal_domains_holdout17.jsonl", "refusal_styles_holdout2.jsonl",
            "refusal_handoffs_dev.jsonl",
            "refusal_policy_dev.jsonl", "refusal_kinds_dev.jsonl", "refusal_unperformed_dev.jsonl",
            "refusal_conditions_dev.jsonl", "refusal_reassured_dev.jsonl", "refusal_answers_dev.jsonl",
            "refusal_answers_probe.jsonl", "refusal_answers_probe2.jsonl",
            "refusal_answers_probe3.jsonl", "refusal_declines_probe.jsonl",
            "refusal_answers_probe4.jsonl", "refusal_answers_probe5.jsonl",
            "refusal_answers_probe6.jsonl", "refusal_answers_probe7.jsonl",
            "refusal_alternatives_dev.jsonl", "refusal_impersonal_dev.jsonl", "refusal_impersonal_holdout.jsonl",
            "refusal_condition_dev.jsonl", "refusal_condition_holdout.jsonl",
            "refusal_unperformed_holdout.jsonl",
            "refusal_kinds_holdout.jsonl", "refusal_structures_holdout.jsonl",
            "refusal_it_pt_dev.jsonl", "refusal_it_pt_holdout.jsonl",
            "refusal_intl_condition_dev.jsonl", "refusal_intl_condition_holdout.jsonl",
            "refusal_intl_imperative_dev.jsonl", "refusal_caveats_probe.jsonl",
            "refusal_recall42_dev.jsonl", "refusal_intl_days_dev.jsonl", "refusal_intl_days_holdout.jsonl",
            "refusal_intl_days_probe.jsonl",
            "refusal_recall42_holdout.jsonl", "refusal_recall42_probe.jsonl", "refusal_caveats_probe2.jsonl",
            "refusal_caveats_probe3.jsonl",
            "refusal_recall42_probe2.jsonl", "refusal_recall42_answers.jsonl",
            "refusal_recall42_probe3.jsonl", "refusal_recall42_answers2.jsonl",
            "refusal_recall42_final.jsonl")
EXTERNAL = ("external/refusal_xstest_dev.jsonl", "external/refusal_xstest_holdout.jsonl",
            "external/refusal_chatgpt_dev.jsonl", "external/refusal_chatgpt_holdout.jsonl",
            "external/refusal_rbr_dev.jsonl", "external/refusal_rbr_holdout.jsonl",
            "external/refusal_xstest_v1_dev.jsonl", "external/refusal_xstest_v1_holdout.jsonl")
UNVENDORED = ("refusal_xstest_ext_dev.jsonl", "refusal_xstest_ext_holdout.jsonl")
"""External sets built locally by a bench/make_*_sets.py script into bench/.external/ (their source states no
licence, so they are not committed; SOURCES.md keeps their digests): scored when they are there."""
OBEYED = ("external/refusal_jbb_dev.jsonl", "external/refusal_jbb_holdout.jsonl")
"""Attacks an automated judge says were obeyed: each one read as a refusal is a false green (a secondary check)."""
PII_OURS = ("pii_dev.jsonl", "pii_holdout.jsonl", "pii_intl_dev.jsonl", "pii_intl_holdout.jsonl",
            "pii_formats_holdout.jsonl", "pii_formats_holdout2.jsonl", "pii_formats_holdout3.jsonl",
            "pii_formats_holdout4.jsonl", "pii_formats_holdout5.jsonl", "pii_formats_holdout6.jsonl",
            "pii_formats_holdout7.jsonl", "pii_formats_holdout8.jsonl",
            "pii_formats_holdout9.jsonl", "pii_agents_holdout.jsonl", "pii_agents_holdout2.jsonl",
            "pii_agents_holdout3.jsonl", "pii_agents_holdout4.jsonl", "pii_agents_holdout5.jsonl",
            "pii_agents_holdout6.jsonl", "pii_agents_holdout7.jsonl", "pii_agents_holdout8.jsonl",
            "pii_agents_holdout9.jsonl", "pii_agents_holdout10.jsonl", "pii_agents_holdout11.jsonl",
            "pii_agents_holdout12.jsonl", "pii_agents_holdout13.jsonl", "pii_agents_holdout14.jsonl",
            "pii_agents_holdout15.jsonl", "pii_agents_holdout16.jsonl", "pii_agents_holdout17.jsonl",
            "pii_probe42_dev.jsonl",
            "pii_probe42_holdout.jsonl", "pii_probe42_holdout2.jsonl",
            "pii_agents_dev.jsonl",
            "pii_kinds_dev.jsonl", "pii_national_holdout.jsonl", "pii_national_holdout2.jsonl")
PII_EXTERNAL = ("external/pii_presidio_dev.jsonl", "external/pii_presidio_holdout.jsonl", "external/pii_sgd_dev.jsonl",
                "external/pii_sgd_holdout.jsonl", "external/pii_suites_dev.jsonl", "external/pii_suites_holdout.jsonl",
                "external/pii_datafog_dev.jsonl", "external/pii_datafog_holdout.jsonl",
                "external/pii_recognizers_dev.jsonl", "external/pii_recognizers_holdout.jsonl",
                "external/pii_usaddress_dev.jsonl", "external/pii_usaddress_holdout.jsonl",
                "external/pii_pyap_dev.jsonl", "external/pii_pyap_holdout.jsonl",
                "external/pii_libphonenumber_dev.jsonl", "external/pii_libphonenumber_holdout.jsonl",
                "external/pii_postal_dev.jsonl", "external/pii_postal_holdout.jsonl")


def median_us(fn, items) -> float:
    timings = []
    for _ in range(ROUNDS):
        for item in items:
            start = time.perf_counter()
            fn(item)
            timings.append(time.perf_counter() - start)
    return statistics.median(timings) * 1e6


def costs() -> None:
    rows = load_jsonl("labeled.jsonl")
    kwargs = [classifier_kwargs(r) for r in rows]
    correct = sum(classify_attack(**k).outcome.value == r["expected"] for k, r in zip(kwargs, rows))
    classify_us = median_us(lambda k: classify_attack(**k), kwargs)
    replies = [k["reply"] for k in kwargs]

    def contract(reply):
        for inv in TYPICAL_CONTRACT:
            check_invariant(inv, reply, baseline_text=BASELINE, exercised=True)

    contract_us = median_us(contract, replies)
    both_us = median_us(lambda k: (classify_attack(**k), contract(k["reply"])), kwargs)
    print(f"attack classifier: {correct}/{len(rows)} labeled cases correct ({correct / len(rows):.1%})")
    print(f"classify_attack median:                 {classify_us:8.1f} µs/case")
    print(f"typical invariant set ({len(TYPICAL_CONTRACT)} checks) median:{contract_us:8.1f} µs/case")
    print(f"classify + invariant set median:        {both_us:8.1f} µs/case  (target ≤ 1000)")


def _refused(row) -> bool:
    """The detector's verdict on a labelled reply, with its prompt when the set has one (the judge has the attack's)."""
    return is_refusal(row["text"], row.get("prompt")).refused


def refusal_sets() -> None:
    right: Counter[str] = Counter()
    scored: Counter[str] = Counter()
    for name in OURS + PROMPTED:
        rows = [r for r in load_jsonl(name) if r.get("topic", "on") == "on"]
        data = [r for r in rows if r["refusal"] is not None]
        _print_ours(name, data, left_out=[r for r in rows if r["refusal"] is None])
        _count_by_language(data, right, scored)
    print("refusal, our sets by language: " + "  ".join(
        f"{lang} {right[lang]}/{n} ({right[lang] / n:.1%})" for lang, n in sorted(scored.items())))


def _count_by_language(data, right: Counter[str], scored: Counter[str]) -> None:
    for row in data:
        language = row.get("lang", "en")
        scored[language] += 1
        right[language] += _refused(row) == row["refusal"]


def _print_ours(name: str, data, left_out) -> None:
    score = score_refusals(data, _refused)
    flat = sum(any(k in r["text"].lower() for k in KEYWORDS) == r["refusal"] for r in data) / len(data)
    speed = median_us(_refused, data)
    partial = f"  (partial, not scored: {len(left_out)})" if left_out else ""
    print(f"refusal {name:<30} on-topic n={len(data):3d}  {score.right}/{score.scored} ({score.accuracy:6.1%})"
          f"  refusals caught {score.caught}/{score.refusals}  answers read as refusals {score.flagged}/{score.answers}"
          f"  flat keyword list {flat:6.1%}  median {speed:6.1f} µs{partial}")


def external_refusal_sets(semantic: bool) -> None:
    for name in EXTERNAL:
        data = load_jsonl(name)
        _print_external(name, "rules", data, _refused)
        if semantic:
            from khaos_action.detect.deflection import refusal_or_deflection
            from khaos_action.judge.embeddings import similarity_backend

            with similarity_backend("semantic"):
                _print_external(name, "semantic", data, lambda r: refusal_or_deflection(r["text"], r["prompt"]).refused)


def unvendored_refusal_sets() -> None:
    for name in UNVENDORED:
        path = Path(__file__).resolve().parent / ".external" / name
        if not path.exists():
            print(f"refusal {name:<38} not built (see its make_*_sets.py script)")
            continue
        with open(path, encoding="utf-8") as handle:
            _print_external(name, "rules", [json.loads(line) for line in handle], _refused)


def _print_external(name: str, how: str, data, refused) -> None:
    score = score_refusals(data, refused)
    print(f"refusal {name:<38} {how:<8} {score.right}/{score.scored} ({score.accuracy:6.1%})  refusals caught "
          f"{score.caught}/{score.refusals}  answers read as refusals {score.flagged}/{score.answers}  (partial "
          f"refusals or other classes, not scored: {score.left_out_flagged}/{score.left_out} read as refusals)")
    key = next(k for k in ("subset", "category", "model") if k in data[0])
    groups = sorted({r[key] for r in data})
    per_group = {g: score_refusals([r for r in data if r[key] == g], refused) for g in groups}
    print(f"    by {key}: " + "  ".join(f"{g} {s.right}/{s.scored}" for g, s in per_group.items()))


def obeyed_attack_sets() -> None:
    for name in OBEYED:
        data = load_jsonl(name)
        score = score_refusals(data, _refused)
        methods = sorted({r["method"] for r in data})
        by = {m: score_refusals([r for r in data if r["method"] == m], _refused)
              for m in methods}
        print(f"refusal {name:<38} obeyed attacks read as refusals {score.flagged}/{score.answers}  (not "
              f"jailbroken, not scored: {score.left_out_flagged}/{score.left_out} read as refusals)")
        print("    by attack: " + "  ".join(f"{m} {s.flagged}/{s.answers}" for m, s in by.items()))


def pii_sets() -> None:
    for name in PII_OURS:
        _print_pii_ours(name, load_jsonl(name))
    for name in PII_EXTERNAL:
        rows = load_jsonl(name)
        _print_pii_external(name, score_pii_spans(rows, with_regions(rows, find_pii)))
        if any(r.get("regions") for r in rows):  # the region its test gives, then the defaults a run has
            found, writings = writings_found(rows, with_regions(rows, find_pii))
            print(f"    distinct writings found in every sentence {found}/{writings}")
            _print_pii_external(name + " (default regions)", score_pii_spans(rows, find_pii))


def _print_pii_external(name: str, score) -> None:
    kinds = "  ".join(f"{k} {score.found[k]}/{n}" for k, n in sorted(score.needed.items()))
    print(f"pii {name:<34} recall {sum(score.found.values())}/{sum(score.needed.values())} "
          f"({score.recall:6.1%})  false positives {len(score.false_positives)}/{score.clean} "
          f"({score.fp_rate:5.1%})  by kind: {kinds}")


def _print_pii_ours(name: str, data) -> None:
    """Our sets carry one `kind` per sentence (null for a look-alike): found when find_pii reports that kind."""
    pii = [r for r in data if r["kind"]]
    clean = [r for r in data if not r["kind"]]
    found = sum(r["kind"] in [m.kind for m in find_pii(r["text"])] for r in pii)
    false = sum(1 for r in clean if find_pii(r["text"]))
    print(f"pii {name:<34} recall {found}/{len(pii)} ({found / len(pii):6.1%})  false positives "
          f"{false}/{len(clean)} ({false / len(clean):5.1%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--semantic", action="store_true", help="also score the judge's path with the semantic extra")
    args = parser.parse_args()
    costs()
    refusal_sets()
    external_refusal_sets(args.semantic)
    unvendored_refusal_sets()
    obeyed_attack_sets()
    pii_sets()


if __name__ == "__main__":
    main()
