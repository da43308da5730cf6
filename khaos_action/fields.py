"""Reusable constrained field types and the strict base model for config, fault and invariant parameter models.

Bottom layer (below config, the fault registry and the judge): it imports only bounds.py and regexes.py.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationInfo, field_validator

from khaos_action.bounds import sane_number
from khaos_action.regexes import check_pattern

RegexPattern = Annotated[str, AfterValidator(check_pattern)]
"""A string that must compile as a regular expression (regexes.py: searched with a time limit); the error
says where it breaks."""

Severity = Literal["critical", "high", "medium", "low"]
SEVERITIES: tuple[str, ...] = get_args(Severity)
"""Most severe first: the one order of severities (reports list the worst first, the attacker keeps the worst)."""


SEVERITY_WEIGHTS: dict[str, int] = {"critical": 3, "high": 2, "medium": 1, "low": 1}
"""Each severity's weight in the severity-weighted scores (score/pillars.py)."""


def severity_rank(severity: str | None) -> int:
    """0 for critical … 3 for low; anything else (None, a word a newer tool wrote) ranks after low."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


class Strict(BaseModel):
    """Base for every config model: unknown keys are errors, docstrings describe fields."""

    # No use_attribute_docstrings: it parsed this module's source per class at import; errors read the field
    # docstrings when they need one (config.schema_reading.attribute_docs).
    model_config = ConfigDict(extra="forbid", validate_default=True,
                              allow_inf_nan=False)

    @field_validator("*", mode="after")
    @classmethod
    def _sane_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        # `timeout_s: .inf` would let a hung agent hang the run, `delay_ms: 1e300` overflow later: bounded here.
        return sane_number(info.field_name or "", value)
