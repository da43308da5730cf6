"""Invariant checkers: one registry entry per invariant type (`registry.py`: `CHECKERS`, `@register_checker`, the
`Invariant` base and `check_invariant`), and the built-ins (`text`, `meaning`, `call`). Importing this package
registers the built-ins; the registry module imports none of them."""

from khaos_action.checkers import call, meaning, text  # noqa: F401  # the built-ins register themselves
from khaos_action.checkers.registry import (
    CHECKERS,
    CheckContext,
    Invariant,
    NotExercised,
    Verdict,
    check_invariant,
    invariant_verdict,
    register_checker,
)

__all__ = ["CHECKERS", "CheckContext", "Invariant", "NotExercised", "Verdict", "check_invariant", "invariant_verdict",
           "register_checker"]
