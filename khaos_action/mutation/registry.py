"""The mutation registry and `mutate`: seeded, reproducible variants of a golden prompt.

Determinism: each variant's random stream is derived from sha256 of (seed, prompt, type, index),
never from `hash()` (which PYTHONHASHSEED changes per process) and never from a shared generator (which would make a
prompt's variants depend on the prompts mutated before it).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from khaos_action.errors import ConfigError
from khaos_action.mutation import framing, paraphrase, text, wrappers
from khaos_action.registry import Registry

Mutator = Callable[[str, random.Random], str]

MUTATORS: Registry[Mutator] = Registry("mutation type")
"""Every mutation type, in the order `types: all` cycles through them: the built-ins, then any an extension adds
(`@register_mutator`)."""


def register_mutator(name: str) -> Callable[[Mutator], Mutator]:
    """Decorator on `mutate(prompt, rng) -> str`: `mutation.types: [<name>]` uses it from then on. It must depend
    on `prompt` and `rng` alone (a variant is reproduced from the seed in any process)."""
    return MUTATORS.decorator(name)


for _name, _mutator in (
    ("paraphrase", paraphrase.paraphrase),
    ("typos", text.typos),
    ("casing", text.casing),
    ("whitespace_punctuation", text.whitespace_punctuation),
    ("homoglyphs", text.homoglyphs),
    ("leetspeak", text.leetspeak),
    ("base64_wrap", wrappers.base64_wrap),
    ("rot13_wrap", wrappers.rot13_wrap),
    ("language_mix", framing.language_mix),
    ("verbose_padding", framing.verbose_padding),
    ("length_short", paraphrase.length_short),
    ("length_long", framing.length_long),
    ("format_markdown", wrappers.format_markdown),
    ("format_json", wrappers.format_json),
    ("tone_shift", framing.tone_shift),
    ("injection_suffix", wrappers.injection_suffix),
    ("roleplay_frame", wrappers.roleplay_frame),
):
    MUTATORS.add(_name, _mutator)
del _name, _mutator


_RETRIES = 8
"""Extra rng streams tried when a variant equals the prompt or an earlier variant (e.g. casing on "OK")."""


@dataclass(frozen=True, slots=True)
class Mutated:
    type: str
    text: str
    index: int
    """The variant's slot (0 .. per_prompt-1); stable, so case ids derived from it are stable too."""


def resolve_types(types: Sequence[str] | Literal["all"]) -> list[str]:
    """The configured mutation types as a list, or a ConfigError naming the unknown ones and the valid ones."""
    if types == "all":
        return list(MUTATORS)
    if isinstance(types, str):
        types = [types]
    chosen = list(dict.fromkeys(types))
    if not chosen:
        raise ConfigError(f"mutation.types is empty; use `all` or some of: {', '.join(MUTATORS)}")
    unknown = [t for t in chosen if t not in MUTATORS]
    if unknown:
        raise ConfigError(
            f"unknown mutation type{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} in "
            f"mutation.types. Expected one of: {', '.join(MUTATORS)}"
        )
    return chosen


def rng_for(seed: int, prompt: str, mutation_type: str, index: int, attempt: int = 0) -> random.Random:
    """A random stream that depends only on its arguments, identical in every process."""
    key = json.dumps([seed, prompt, mutation_type, index, attempt], ensure_ascii=False)
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def mutate(prompt: str, *, types: Sequence[str] | Literal["all"], per_prompt: int, seed: int) -> list[Mutated]:
    """`per_prompt` variants of `prompt`, cycling through `types` (each repeat of a type gets its own stream).

    Deterministic: the same (prompt, types, per_prompt, seed) gives the same list in any process, whatever other
    prompts are mutated. A slot whose variant would equal the prompt or an earlier variant is retried on a few
    other streams and then left out (a "mutation" that changes nothing tests nothing), so the list can be shorter
    than `per_prompt` for degenerate prompts; indexes of the kept variants do not shift.
    """
    chosen = resolve_types(types)
    if per_prompt < 1:
        raise ConfigError(f"mutation.per_prompt must be at least 1, got {per_prompt}")
    out: list[Mutated] = []
    seen = {prompt}
    for index in range(per_prompt):
        name = chosen[index % len(chosen)]
        for attempt in range(_RETRIES + 1):
            variant = MUTATORS[name](prompt, rng_for(seed, prompt, name, index, attempt))
            if variant not in seen:
                seen.add(variant)
                out.append(Mutated(type=name, text=variant, index=index))
                break
    return out
