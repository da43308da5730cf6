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

from khaos_action.attacks.capabilities import CapabilityProfile, missing_capabilities, not_applicable_reason
from khaos_action.config.corpus import Attack, Corpus
from khaos_action.config.models import AttackSelector
from khaos_action.config.selectors import validate_selectors
from khaos_action.plan.scheduler import Selection


def matches(attack: Attack, selector: AttackSelector) -> bool:
    return (
        (selector.tier is None or attack.tier == selector.tier)
        and (selector.category is None or attack.category == selector.category)
        and (selector.id is None or attack.id == selector.id)
        and (selector.severity is None or attack.severity == selector.severity)
        and (selector.owasp is None or any(o.upper().startswith(selector.owasp.upper()) for o in attack.owasp))
    )


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
    missing = {a.id: missing_capabilities(profile, a.requires) for a in corpus.attacks}
    other = {a.id: check(a) for a in corpus.attacks if not missing[a.id]} if check else {}
    chosen: set[str] = set()
    skipped: set[str] = set()
    for sel in selectors:
        hits = [a for a in corpus.attacks if matches(a, sel) and _from(a, sel, corpus)]
        runnable = [a for a in hits if not missing[a.id] and not other.get(a.id)]
        if sel.sample is not None:
            runnable = sorted(runnable, key=lambda a: _rank(seed, sel, a.id))[: sel.sample]
        chosen.update(a.id for a in runnable)
        skipped.update(a.id for a in hits if missing[a.id] or other.get(a.id))
    return Selection(
        applicable=[corpus.by_id[i] for i in sorted(chosen)],
        not_applicable=[(corpus.by_id[i], not_applicable_reason(missing[i]) if missing[i] else str(other[i]))
                        for i in sorted(skipped)],
    )
