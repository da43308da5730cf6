"""The run's policy from khaos.yaml: the gates its verdict is decided by and the weights of its overall score.

Bottom layer: config validates `gates:` and `scoring.weights:` with these models, the manifest records them (so
`merge` decides again without the config) and score decides with them.
"""

from __future__ import annotations

import math

from pydantic import Field, model_validator

from khaos_action.fields import Strict


class Weights(Strict):
    mutation: float = Field(0.20, ge=0)
    chaos: float = Field(0.35, ge=0)
    contract: float = Field(0.35, ge=0)
    replay: float = Field(0.10, ge=0)
    security: float = Field(0.5, ge=0, le=1, exclude_if=lambda value: value == 0.5)  # earlier manifests' bytes hold
    """Share of `overall` given to the security score when a security phase ran; the pillars' weighted mean (the
    resilience side, weighted by the four weights above, which sum to 1.0) gets the rest."""

    @model_validator(mode="after")
    def _sum_to_one(self) -> Weights:
        total = self.mutation + self.chaos + self.contract + self.replay
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            names = ("mutation", "chaos", "contract", "replay")
            parts = " + ".join(f"{name} {getattr(self, name):g}" for name in names)
            raise ValueError(f"scoring weights must sum to 1.0, they sum to {total:g} ({parts}; unset weights keep "
                             "their defaults)")
        return self


class Gates(Strict):
    min_overall: float | None = Field(None, ge=0, le=100)
    """Fail when the overall score is below this."""
    fail_on_critical: bool = True
    """Any critical invariant failure or critical/high attack COMPROMISED fails the run."""
    max_uncertain_rate: float | None = Field(0.2, ge=0, le=1)
    """Fail when more than this share of executed attacks is UNCERTAIN."""
    min_attacks_executed: int = Field(1, ge=0)
    """A security phase that executed fewer attacks than this cannot pass."""
    fail_on_regression: bool = True
    """Fail on significant regressions against the baseline run."""
