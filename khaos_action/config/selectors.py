"""The security phases' attack selectors of the packs, and their check against the corpus: a selector value the
corpus has never heard of is a config error before anything runs (config checking; attacks/select.py selects)."""

from __future__ import annotations

from collections.abc import Iterable

from khaos_action.config.corpus import Corpus
from khaos_action.config.models import AttackSelector, Pack
from khaos_action.errors import ConfigError


class SelectorError(ConfigError):
    """A pack's attack selector names something the corpus does not have."""


def security_selectors(packs: Iterable[Pack]) -> list[AttackSelector]:
    """Every attack selector of the packs' security phases, in order."""
    return [sel for pack in packs for phase in pack.phases if phase.type == "security" for sel in phase.attacks]


def validate_selectors(corpus: Corpus, selectors: list[AttackSelector]) -> None:
    """A selector value the corpus has never heard of is a typo, not an empty selection."""
    for index, sel in enumerate(selectors):
        where = f"attacks[{index}]"
        if sel.source == "user" and not corpus.user_ids:
            raise SelectorError(f"{where}: `source: user` selects the attacks of `attacks:` files, and none is "
                                "named; add `attacks: [path/to/attacks/]` to khaos.yaml or to this pack")
        if sel.id is not None and sel.id not in corpus.by_id:
            close = [i for i in corpus.by_id if i.split("-")[0] == sel.id.split("-")[0]][:10]
            raise SelectorError(f"{where}: no attack with id {sel.id!r} in corpus {corpus.version}"
                                + (f"; ids like it: {', '.join(close)}" if close else ""))
        if sel.category is not None and sel.category not in corpus.categories:
            raise SelectorError(f"{where}: unknown attack category {sel.category!r}. "
                                f"Expected one of: {', '.join(corpus.categories)}")
        if sel.owasp is not None and not any(
            o.upper().startswith(sel.owasp.upper()) for a in corpus.attacks for o in a.owasp
        ):
            raise SelectorError(f"{where}: no attack is mapped to an OWASP id starting with {sel.owasp!r}; "
                                "use e.g. `ASI`, `ASI03`, `LLM` or `LLM01`")
