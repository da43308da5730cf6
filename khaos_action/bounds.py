"""Bounds on the numbers every model accepts (config, fault and invariant parameters): finite, 64-bit, at most a day.

Bottom layer: khaos_action.fields' `Strict` and the fault registry's parameter models run `sane_number` on every
field; it imports nothing of the package.
"""

from __future__ import annotations

MAX_INT = 2**63 - 1
"""Integers past this cannot reach a C call (sleep, read sizes) without OverflowError."""
MAX_SECONDS = 86_400.0
"""Any `*_s` setting (timeouts, wall-clock budgets): at most a day, so no setting can make a run hang for good."""
MAX_MS = MAX_SECONDS * 1000
"""Any `*_ms` setting (fault delays, latency invariants)."""


def sane_number(name: str, value: object) -> object:
    """A pydantic field validator's body: finite numbers (models also set `allow_inf_nan=False`), integers that fit
    64 bits, and durations no longer than a day, by the field's unit suffix (`_s`, `_ms`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise ValueError("must be a finite number")
    if name.endswith("_s") and value > MAX_SECONDS:
        raise ValueError(f"is more than a day (at most {MAX_SECONDS:g} seconds)")
    if name.endswith("_ms") and value > MAX_MS:
        raise ValueError(f"is more than a day (at most {MAX_MS:g} milliseconds)")
    if abs(value) > MAX_INT:
        raise ValueError(f"is too large (at most {MAX_INT})")
    return value
