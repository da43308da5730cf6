"""A fault entry of khaos.yaml or a pack as cases carry it: its stable id, its target and mode, its parameters,
and the fault registry's validated form of it.

Validated once, when the config or pack is checked (preflight/config_checks.py asks first, so a bad entry is reported
with its file, line and key); every case the entry goes into reuses that validation (`FaultSpec.validated`). Here,
in config/, because checking a config needs it and planning builds on it: neither borrows the other's code.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from khaos_action.config.models import FaultSpec
    from khaos_action.faults.registry import BoundFaultSpec


@dataclass(frozen=True, slots=True)
class CaseFault:
    """One fault of a case: the entry as written, with its stable id and target, and the fault registry's
    validated form of it (validated once, when the config or pack was checked: `case_fault`)."""

    id: str
    """Stable: `<tool or target>:<mode>:<digest of the entry>`; results and reports name the fault by it."""
    target: str
    """tool | llm | http | context | mcp"""
    mode: str
    """As written (an alias stays as written)."""
    params: Mapping[str, Any]
    """The entry's other keys as written (tool, delay_ms, ...), nulls left out."""
    bound: BoundFaultSpec = field(compare=False, repr=False)
    """The registry's validated form: the fault class and its parsed parameters, what binding builds from."""

    def as_dict(self) -> dict[str, Any]:
        """The plain entry `{"id", "target", "mode", ...params}`: what case ids hash and the worker pipe carries."""
        return {"id": self.id, "target": self.target, "mode": self.mode, **self.params}


def entry_id(*parts: Any) -> str:
    """A short stable digest of `parts` (plan/cases.py `case_id` is the same digest)."""
    blob = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def fault_entry(spec: FaultSpec, target: str) -> dict[str, Any]:
    """A fault spec as plain data with a stable id and its target (the id digests the entry, so case ids that
    include it stay the same from run to run)."""
    data = spec.model_dump(exclude_none=True)
    data.pop("target", None)
    if "type" in data and "mode" not in data:
        data["mode"] = data.pop("type")
    digest = entry_id("fault", target, data)[:6]
    label = data.get("tool") if target == "tool" and data.get("tool") not in (None, "*") else target
    return {"id": f"{label}:{data['mode']}:{digest}", "target": target, **data}


def parse_fault(entry: Mapping[str, Any]) -> CaseFault:
    """A case fault from its plain entry `{"id", "target", "mode", ...params}`, validated by the fault registry
    (a FaultConfigError naming the problem when it is not a valid fault)."""
    from khaos_action.faults.registry import validate_fault

    bound = validate_fault(entry)
    params = {k: v for k, v in entry.items() if k not in ("id", "target", "mode")}
    return CaseFault(id=str(entry["id"]), target=bound.target, mode=str(entry["mode"]), params=params, bound=bound)


def case_fault(spec: FaultSpec, target: str) -> CaseFault:
    """A config or pack fault entry as cases carry it. Validated once: the load-time check (preflight/config_checks.py)
    asks first and reports what is wrong with the file, line and key; every case the entry goes into reuses it."""
    return spec.validated(target, lambda: parse_fault(fault_entry(spec, target)))
