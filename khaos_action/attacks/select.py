"""Attack selection: pack selectors over the corpus, filtered by the capability profile, in a deterministic order.

Selectors are a union; within one selector every given field must match (`owasp` is a prefix). An attack the agent
has no channel for is *not applicable* with a reason, never silently dropped: nothing passes untested.
`sample: N` ranks the selector's applicable matches by a seeded hash of their id and keeps the first N: the same
seed gives the same sample whatever the corpus file order, and adding an attack moves at most one sampled one.
Sampling among applicable attacks (not all matches) keeps a "sample of ten" at ten executed attacks for any agent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from khaos_action.attacks.capabilities import CapabilityProfile, missing_capabilities, not_applicable_reason
from khaos_action.config.corpus import Attack, Corpus
from khaos_action.config.models import AttackSelector
from khaos_action.config.selectors import validate_selectors
from khaos_action.plan.scheduler import Selection


def matches(attack: Attack, selector: AttackSelector) -> bool:
    """Every field the selector gives equals the attack's (`owasp` is a prefix of one of the attack's)."""
    exact = ((selector.tier, attack.tier), (selector.category, attack.category), (selector.id, attack.id),
             (selector.severity, attack.severity))
    return all(wanted is None or have == wanted for wanted, have in exact) and (
        selector.owasp is None or _owasp_match(attack, selector.owasp))


def _owasp_match(attack: Attack, prefix: str) -> bool:
    return any(o.upper().startswith(prefix.upper()) for o in attack.owasp)


def _from(attack: Attack, selector: AttackSelector, corpus: Corpus) -> bool:
    return selector.source is None or (attack.id in corpus.user_ids) == (selector.source == "user")


def _rank(seed: int, selector: AttackSelector, attack_id: str) -> str:
    key = json.dumps([seed, selector.model_dump(exclude_none=True), attack_id], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()


def select_attacks(
    corpus: Corpus, selectors: list[AttackSelector], profile: CapabilityProfile, *, seed: int,
    check: Callable[[Attack], str | None] | None = None,
) -> Selection:
    """`check`: a further reason an attack cannot apply to this agent (e.g. a forbidden-tool attack naming only
    tools it lacks), or None."""
    validate_selectors(corpus, selectors)
    why_not = _reasons(corpus, profile, check)
    chosen: set[str] = set()
    skipped: set[str] = set()
    for sel in selectors:
        runnable, blocked = _pick(corpus, sel, why_not, seed)
        chosen.update(runnable)
        skipped.update(blocked)
    return Selection(applicable=[corpus.by_id[i] for i in sorted(chosen)],
                     not_applicable=[(corpus.by_id[i], why_not.reason(i)) for i in sorted(skipped)])


def _hits(corpus: Corpus, sel: AttackSelector) -> list[Attack]:
    return [a for a in corpus.attacks if matches(a, sel) and _from(a, sel, corpus)]


def _pick(corpus: Corpus, sel: AttackSelector, why_not: _WhyNot, seed: int) -> tuple[list[str], list[str]]:
    """One selector's attacks: those that run (its sample of them, when it has one) and those that cannot."""
    hits = _hits(corpus, sel)
    runnable = [a for a in hits if not why_not.blocked(a.id)]
    if sel.sample is not None:
        runnable = sorted(runnable, key=lambda a: _rank(seed, sel, a.id))[: sel.sample]
    return [a.id for a in runnable], [a.id for a in hits if why_not.blocked(a.id)]


@dataclass(frozen=True)
class _WhyNot:
    """Why each attack cannot apply: the capabilities it misses, else the further check's reason."""

    missing: dict[str, list[str]]
    other: dict[str, str | None]

    def blocked(self, attack_id: str) -> bool:
        return bool(self.missing[attack_id] or self.other.get(attack_id))

    def reason(self, attack_id: str) -> str:
        missing = self.missing[attack_id]
        return not_applicable_reason(missing) if missing else str(self.other[attack_id])


def _reasons(corpus: Corpus, profile: CapabilityProfile, check: Callable[[Attack], str | None] | None) -> _WhyNot:
    missing = {a.id: missing_capabilities(profile, a.requires) for a in corpus.attacks}
    other = {a.id: check(a) for a in corpus.attacks if not missing[a.id]} if check else {}
    return _WhyNot(missing, other)
