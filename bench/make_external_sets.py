"""Writes the external judge sets (tests/fixtures/judge/external/): samples of public data labelled by others, split
once into dev and holdout. See tests/fixtures/judge/external/SOURCES.md for the sources, licences and label mapping.

Run (from checkouts of the source repositories; each option writes its own sets):
    python bench/make_external_sets.py --xstest PATH/exaggerated-safety --presidio PATH/presidio-research \
        --chatgpt-refusals PATH/chatgpt-refusals --jbb-artifacts PATH/artifacts --rbr-gold PATH/safety-rbr-code-and-data

The split is by group, not by row: every completion of one XSTest prompt, every sentence of one presidio template,
every reply of chatgpt-refusals about one person (its political-figures prompts put each of 273 names into up to
six templates) or to one prompt, every JailbreakBench artifact of one behaviour and every RBR completion of one
conversation falls on the same side, so the holdout holds prompts, people, behaviours and sentence shapes the dev
set never showed. The side is decided by a
hash of the group's id, so re-running the script gives the same files.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import ipaddress
import json
import random
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "judge" / "external"
XSTEST_MODELS = ("gpt4", "llama2new", "llama2orig", "mistralguard", "mistralinstruct")
XSTEST_PER_MODEL = 60
"""Completions per model and split: 300 rows per split."""
XSTEST_LABELS = {"1_full_compliance": False, "2_full_refusal": True, "3_partial_refusal": None}
# presidio's entity types → the kinds find_pii reports. Required kinds must be found; allowed ones may be reported
# without counting as a false positive (a date in "born on ..." is a date of birth; a ZIP code is part of an address;
# a driver's licence number is an identity number); every other type (names, places, organisations) is not a kind
# the detector covers, so text holding only those counts as clean.
PII_REQUIRED = {"EMAIL_ADDRESS": "email", "PHONE_NUMBER": "phone", "CREDIT_CARD": "credit_card", "IBAN_CODE": "iban",
                "US_SSN": "us_ssn", "IP_ADDRESS": "ip", "STREET_ADDRESS": "address"}
PII_ALLOWED = {"DATE_TIME": "date_of_birth", "ZIP_CODE": "address", "US_DRIVER_LICENSE": "national_id"}
PII_ADDRESS_ONLY = 60
"""Sentences per split whose only required kind is a street address (there are many; the rest are all kept)."""
PII_CLEAN = 150
"""Sentences per split with no required kind (the false-positive denominator)."""
SEED = 20240611
# chatgpt-refusals' hand labels ("tone") → our `refusal`. Only the two plain classes are scored: "complied" is an
# answer, "rejected" a refusal. The authors fold every other class into "rejected" for their binary classifier; we
# leave them out of the score (null, reported on their own like XSTest's partial refusals) because their names do
# not say whether the asked-for thing was given: "disclaimed" (a disclaimer, then the answer), "redirected"
# (something other than what was asked, sometimes a neutral version of it), "contradicted" (the premise rejected),
# "counseling", and the two the authors drop themselves ("dontknow", "incoherent").
CHATGPT_LABELS = {"complied": False, "rejected": True}
CHATGPT_SUBSETS = ("nyp", "political_figures", "quora_insincere_hand_labeled")
_POLITICAL = re.compile(r"^(?:Write me a poem (?:about|in praise of|criticizing)|Please write me a poem about|"
                        r"Should we (?:build|tear down) a statue of) (?P<name>.+?)[.?]$")


def side(namespace: str, group: str) -> str:
    digest = hashlib.sha256(f"{namespace}:{group}".encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "holdout"


def xstest_rows(root: Path) -> dict[str, list[dict]]:
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    rng = random.Random(SEED)
    for model in XSTEST_MODELS:
        path = root / "model_completions" / f"xstest_v2_completions_{model}.csv"
        with open(path, encoding="utf-8", newline="") as handle:
            rows = [r for r in csv.DictReader(handle) if (r["completion"] or "").strip()]
        for name in by_side:
            pool = [r for r in rows if side("xstest", r["id"]) == name]
            for r in sorted(rng.sample(pool, XSTEST_PER_MODEL), key=lambda r: int(r["id"].split("-")[1])):
                by_side[name].append({
                    "id": f"{r['id']}/{model}", "model": model, "type": r["type"], "prompt": r["prompt"],
                    "text": r["completion"], "label": r["final_label"][2:],
                    "refusal": XSTEST_LABELS[r["final_label"]], "annotators_agreed": r["agreement"] == "TRUE",
                    "lang": "en",
                })
    return by_side


def chatgpt_refusal_rows(root: Path) -> dict[str, list[dict]]:
    """Every hand-labelled reply of `data/all_hand_labeled.json` (ChatGPT, gpt-3.5-turbo), with the subset it came
    from; split by the person a political-figures prompt names, else by the prompt."""
    subset_of = {}
    for subset in CHATGPT_SUBSETS:
        with open(root / "data" / f"{subset}.json", encoding="utf-8") as handle:
            subset_of.update({r["prompt"]: subset for r in json.load(handle)})
    with open(root / "data" / "all_hand_labeled.json", encoding="utf-8") as handle:
        data = json.load(handle)
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    for i, r in enumerate(data):
        subset = subset_of[r["prompt"]]
        person = _POLITICAL.match(r["prompt"]) if subset == "political_figures" else None
        group = f"person:{person['name']}" if person else f"prompt:{r['prompt']}"
        by_side[side("chatgpt-refusals", group)].append({
            "id": f"all_hand_labeled[{i}]", "model": "gpt-3.5-turbo", "subset": subset, "group": group,
            "prompt": r["prompt"], "text": r["response"], "label": r["tone"],
            "refusal": CHATGPT_LABELS.get(r["tone"]), "lang": "en",
        })
    return by_side


def jbb_artifact_rows(root: Path) -> dict[str, list[dict]]:
    """Every non-empty response of JailbreakBench's attack artifacts (attacks × target models × 100 behaviours).
    Their `jailbroken` label is an automated judge's, not a person's: a jailbroken response is scored as an answer
    (an obeyed attack), the others are left out (a refusal, or a reply without the harmful content). `prompt` is the
    behaviour's goal (the request the attack wraps), not the attack's own text."""
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    for path in sorted((root / "attack-artifacts").glob("*/*/*.json")):
        if path.parts[-3] == "test-artifact":
            continue
        with open(path, encoding="utf-8") as handle:
            artifact = json.load(handle)
        method, model = artifact["parameters"]["method"], artifact["parameters"]["model"]
        for j in artifact["jailbreaks"]:
            if not (j.get("response") or "").strip():
                continue
            by_side[side("jbb-artifacts", str(j["index"]))].append({
                "id": f"{method}/{model}/{j['index']}", "model": model, "method": method, "behavior": j["behavior"],
                "prompt": j["goal"], "text": j["response"], "label": "jailbroken" if j["jailbroken"] else "not",
                "refusal": False if j["jailbroken"] else None, "lang": "en",
            })
    return by_side


def rbr_gold_rows(root: Path) -> dict[str, list[dict]]:
    """OpenAI's RBR gold set: 518 synthetic conversations whose last assistant turn people labelled with
    propositions. `fully_complies` is an answer; a completion that complies neither fully nor partly gives none of
    what was asked (an explicit "I can't help with that", or only a redirect, a lecture or a question back): a
    refusal; a partial compliance, and a completion labelled an illogical continuation of the conversation
    (off-topic), are left out."""
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    for split in ("train", "test"):
        with open(root / "data" / "rbr_gold_data" / f"{split}.jsonl", encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        for i, r in enumerate(rows):
            props = r["propositions"]
            conversation = json.dumps(r["prompt"], sort_keys=True)
            by_side[side("rbr-gold", conversation)].append({
                "id": f"rbr_gold_data/{split}.jsonl[{i}]", "model": "synthetic", "category": r["category"],
                "ideal": r["response_type"], "prompt": r["prompt"][-1]["content"],
                "text": r["completion"][-1]["content"], "label": _rbr_label(props),
                "refusal": _RBR_REFUSAL[_rbr_label(props)], "lang": "en",
            })
    return by_side


_RBR_REFUSAL = {"fully_complies": False, "complies_with_nothing": True, "partially_complies": None,
                "illogical_continuation": None}


def _rbr_label(props: dict) -> str:
    if props["illogical_continuation_of_prompt"]:
        return "illogical_continuation"
    if props["fully_complies"]:
        return "fully_complies"
    return "partially_complies" if props["partially_complies"] else "complies_with_nothing"


def presidio_rows(root: Path) -> dict[str, list[dict]]:
    with open(root / "data" / "synth_dataset_v2.json", encoding="utf-8") as handle:
        data = json.load(handle)
    rng = random.Random(SEED)
    by_side: dict[str, list[dict]] = {"dev": [], "holdout": []}
    for name in by_side:
        pool = [(i, r) for i, r in enumerate(data) if side("presidio", str(r["template_id"])) == name]
        required = [(i, r) for i, r in pool if _kinds(r, PII_REQUIRED)]
        address_only = [(i, r) for i, r in required if _kinds(r, PII_REQUIRED) == {"address"}]
        other = [(i, r) for i, r in required if _kinds(r, PII_REQUIRED) != {"address"}]
        clean = [(i, r) for i, r in pool if not _kinds(r, PII_REQUIRED)]
        chosen = other + rng.sample(address_only, min(PII_ADDRESS_ONLY, len(address_only))) \
            + rng.sample(clean, min(PII_CLEAN, len(clean)))
        for i, r in sorted(chosen, key=lambda pair: pair[0]):
            by_side[name].append({
                "id": f"synth_dataset_v2[{i}]", "template_id": r["template_id"], "text": r["full_text"],
                "kinds": sorted(_kinds(r, PII_REQUIRED)),
                "spans": [{"type": s["entity_type"], "kind": PII_REQUIRED.get(s["entity_type"]),
                           "allowed": PII_ALLOWED.get(s["entity_type"]),
                           "start": s["start_position"], "end": s["end_position"]}
                          for s in sorted(r["spans"], key=lambda s: s["start_position"])],
            })
    return by_side


def _kinds(row: dict, table: dict[str, str]) -> set[str]:
    return {table[s["entity_type"]] for s in row["spans"] if s["entity_type"] in table}


def no_host(value: str) -> bool:
    """An IP address that names no host (loopback, unspecified): a detector is right to leave it alone."""
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def write(name: str, rows: list[dict]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / name, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{name}: {len(rows)} rows")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--xstest", type=Path, help="a checkout of paul-rottger/exaggerated-safety")
    parser.add_argument("--presidio", type=Path, help="a checkout of microsoft/presidio-research")
    parser.add_argument("--chatgpt-refusals", type=Path, help="a checkout of maxwellreuter/chatgpt-refusals")
    parser.add_argument("--jbb-artifacts", type=Path, help="a checkout of JailbreakBench/artifacts")
    parser.add_argument("--rbr-gold", type=Path, help="a checkout of openai/safety-rbr-code-and-data")
    args = parser.parse_args()
    sources = ((args.xstest, xstest_rows, "refusal_xstest"), (args.presidio, presidio_rows, "pii_presidio"),
               (args.chatgpt_refusals, chatgpt_refusal_rows, "refusal_chatgpt"),
               (args.jbb_artifacts, jbb_artifact_rows, "refusal_jbb"),
               (args.rbr_gold, rbr_gold_rows, "refusal_rbr"))
    if not any(root for root, _, _ in sources):
        parser.error("name at least one source checkout")
    for root, rows_of, prefix in sources:
        if root:
            for split, rows in rows_of(root).items():
                write(f"{prefix}_{split}.jsonl", rows)


if __name__ == "__main__":
    main()
