"""A small learned reading of whether a reply declines: logistic regression over hashed features of the reply (its
words and word pairs, its opening words) and of the request (an act asked for, a question, none), in pure Python.

Measured beside the rules and not wired into the detector (docs/judge.md, "A learned model beside the rules"): it
learns the style of the sources it is trained on and does not carry to a source it never saw. It stays here so the
measurement can be repeated: bench/train_refusal_model.py trains it on the dev halves and writes its weights to
WEIGHTS (a gzip JSON file, one weight per CRC-32 bucket), bench/refusal_model_eval.py measures it. Scoring a reply is
one CRC and one dict lookup per feature.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from functools import cache
from pathlib import Path

from khaos_action.detect.refusal_request import Request

WEIGHTS = Path(__file__).resolve().parent / ".external" / "refusal_model.json.gz"
"""Written by bench/train_refusal_model.py (not committed: the training reproduces it bit for bit)."""
BUCKETS = 1 << 20
"""Features are hashed (CRC-32) into this many buckets: no vocabulary to ship, unseen words weigh nothing."""
OPENING = 8
"""The words a reply opens with are features of their own: where a decline stands weighs."""

_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+")
_YES = (frozenset("yes yeah yep sure done certainly absolutely gladly ja gerne klar erledigt oui volontiers sí claro "
                  "hecho listo".split()),
        frozenset({("of", "course"), ("no", "problem"), ("happy", "to"), ("bien", "sûr"), ("c'est", "fait"),
                   ("por", "supuesto")}))
"""Openings that agree or report the act done."""
_SPEAKERS = frozenset("i i've we we've ich wir j'ai nous he hemos".split())
_PAST = frozenset("sent put made set given done taken habe haben avons".split())
_NEGATIONS = frozenset("no not never none nothing nobody cannot kein keine keinen keiner keines nicht nie ne pas "
                       "jamais aucun aucune nunca ningún ninguna ninguno nada".split())
_LIMITS = {
    "only": frozenset("only nur seulement uniquement solo sólo solamente únicamente".split()),
    "until": frozenset("until till bis jusqu'à jusqu'au hasta".split()),
    "unless": frozenset("unless except außer sauf salvo excepto".split()),
}


def _words(text: str) -> list[str]:
    return ["0" if word.isdigit() else word for word in _TOKEN.findall(text.casefold().replace("’", "'"))]


def _past_act(words: list[str]) -> bool:
    """A first-person act in the past or perfect ("I've booked", "we sent", "ich habe", "j'ai", "hemos enviado")."""
    for speaker, verb in zip(words, words[1:]):
        if speaker in _SPEAKERS and (verb in _PAST or verb.endswith(("ed", "ado", "ido")) or speaker in ("j'ai",)):
            return True
    return False


def _structure(words: list[str], prompt: str | None, act: bool | None) -> list[str]:
    """The handful of features read as structure rather than as words. `act`: whether the prompt asks for an act,
    when the caller has read it already."""
    if not prompt:
        request = "none"
    else:
        request = "act" if (act if act is not None else Request.of(prompt).acts) else "question"
    marks = [f"request:{request}"]
    present = set(words)
    if words and (words[0] in _YES[0] or tuple(words[:2]) in _YES[1]):
        marks.append("opens-yes")
    if _past_act(words):
        marks.append("past-act")
    if not _NEGATIONS.isdisjoint(present) or any(word.endswith("n't") for word in present):
        marks.append("negation")
    marks += [name for name, limit in _LIMITS.items() if not limit.isdisjoint(present)]
    # The same marks against the kind of request: "fully booked" declines a booking and answers a question.
    return ["s:" + mark for mark in marks] + [f"x:{request}:{mark}" for mark in marks[1:]]


def features(text: str, prompt: str | None = None, act: bool | None = None) -> list[str]:
    """Every feature of a reply and its request, as strings (hashed by `buckets`)."""
    words = _words(text)
    feats = ["bias", f"len:{min(8, int(math.log2(len(words) + 1)))}"]
    feats += ["w:" + word for word in words]
    feats += [f"b:{a} {b}" for a, b in zip(words, words[1:])]
    feats += ["o:" + word for word in words[:OPENING]]
    return feats + _structure(words, prompt, act)


def buckets(feats: list[str]) -> list[int]:
    return [zlib.crc32(feat.encode()) % BUCKETS for feat in feats]


@cache
def _weights() -> dict[int, float]:
    with gzip.open(WEIGHTS, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    return dict(zip(data["index"], data["weight"]))


def decline_probability(text: str, prompt: str | None = None, act: bool | None = None) -> float:
    """The model's probability that `text` declines the request `prompt` (or an unknown one); `act`, whether the
    request asks for an act, when the caller has read it already."""
    weights = _weights()
    z = sum(weights.get(index, 0.0) for index in buckets(features(text, prompt, act)))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

