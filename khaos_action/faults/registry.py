"""The fault registry: one visible dict of fault classes, the `@register_fault` decorator, parameter validation,
and the one resolver of a fault entry's target (`fault_target`): a fault registered here is planned, validated and
bound with no other module knowing its name.

`FAULTS` is keyed by `"<target>:<name>"` (e.g. `"tool:error"`, `"llm:rate_limit"`) because some names exist for
several targets (`timeout` is a tool, llm and http fault; `empty` a tool and llm fault). Aliases are further keys
pointing to the same class (`FAULTS["tool:call_failure"] is FAULTS["tool:error"]`). Look faults up through
`validate_fault`, which resolves the target, the alias and the parameters and raises a `ConfigError` that lists
the valid choices.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from khaos_action.bounds import sane_number
from khaos_action.errors import ConfigError
from khaos_action.registry import Registry

TARGETS = ("tool", "llm", "http", "context", "mcp")


class FaultConfigError(ConfigError):
    """A fault entry names an unknown mode, an unknown parameter, or a bad value."""

    def __init__(self, message: str, *, kind: Literal["entry", "unknown_mode", "parameter"] = "entry",
                 key: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        """unknown_mode: no fault of that name (config checks then suggest the closest one); parameter: `key` is
        the parameter at fault; entry: anything else about the entry."""
        self.key = key


class UnknownFaultMode(FaultConfigError):
    """No fault of that name (for that target): config checks then suggest the closest one."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="unknown_mode")


class FaultParams(BaseModel):
    """Options every fault understands. Subclass it (as `Params` on the fault class) to add parameters."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @field_validator("*", mode="after")
    @classmethod
    def _sane_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        # `delay_ms: 1e300` would overflow asyncio.sleep mid-run: durations are bounded here (config/limits.py).
        return sane_number(info.field_name or "", value)

    probability: float = Field(1.0, ge=0, le=1)
    """Chance that a matching call is hit (drawn from the case's seeded rng)."""
    after_calls: int = Field(0, ge=0)
    """Let this many matching calls through before the fault starts firing."""


class Fault:
    """One configured fault, bound for a case. Target bases (tool/llm/http/context) add `applies_to` and effects.

    Subclasses set `Params` (a FaultParams subclass); `name`, `target` and `aliases` are set by `@register_fault`.
    """

    name: ClassVar[str] = ""
    target: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    Params: ClassVar[type[FaultParams]] = FaultParams

    def __init__(self, id: str, params: FaultParams, rng: random.Random | None = None) -> None:
        self.id = id
        self.params = params
        self.rng = rng or random.Random(id)
        """For payloads (garbage bytes); the *decision* to fire uses the case rng so it is per-case."""

    def fires(self, ctx: Any) -> bool:
        """Count one matching call and decide whether the fault answers it (after_calls, then probability)."""
        key = f"fault:{self.id}"
        ctx.calls[key] += 1
        if ctx.calls[key] <= self.params.after_calls:
            return False
        probability = self.params.probability
        return probability >= 1.0 or ctx.rng.random() < probability

    def hit(self, ctx: Any) -> None:
        ctx.hits[self.id] += 1

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.target}:{self.name} id={self.id!r}>"


FAULTS: Registry[type[Fault]] = Registry("fault", error=UnknownFaultMode,
                                         unknown="Unknown fault mode {name!r}. Expected one of {choices}.")
"""`"<target>:<name or alias>"` -> fault class. The built-ins register when `khaos_action.faults` is imported (its
`__init__` imports them; this module imports none of them); any other module registers by importing this one."""


def register_fault(name: str, *, target: str, aliases: tuple[str, ...] = ()):
    """Class decorator: register a Fault subclass under `target:name` and `target:alias` for each alias."""
    if target not in TARGETS:
        raise ValueError(f"fault target must be one of {', '.join(TARGETS)}, not {target!r}")

    def entry(cls: type[Fault]) -> type[Fault]:
        if not (isinstance(cls, type) and issubclass(cls, Fault)):
            raise TypeError(f"@register_fault({name!r}) decorates Fault subclasses, not {cls!r}")
        if getattr(cls, "target", "") not in ("", target):
            raise TypeError(f"{cls.__name__} is a {cls.target} fault; it cannot be registered as a {target} fault")
        cls.name, cls.target, cls.aliases = name, target, tuple(aliases)
        return cls

    return FAULTS.decorator(f"{target}:{name}", entry, aliases=[f"{target}:{alias}" for alias in aliases])


def fault_names(target: str | None = None) -> list[str]:
    """Sorted fault names (aliases included) for one target or all."""
    return sorted({key.split(":", 1)[1] for key in FAULTS if target is None or key.startswith(f"{target}:")})


@dataclass(frozen=True)
class BoundFaultSpec:
    """A validated fault entry: its resolved target and canonical mode, and its parsed parameters."""

    target: str
    mode: str
    """The canonical name (aliases resolved)."""
    written: str
    """The name as written in the config (may be an alias)."""
    params: FaultParams
    cls: type[Fault]
    id: str | None = None

    def build(self, id: str | None = None, rng: random.Random | None = None) -> Fault:
        return self.cls(id or self.id or f"{self.target}:{self.mode}", self.params, rng)


# Keys a fault entry may carry that are not parameters of the fault itself.
_ENVELOPE_KEYS = ("id", "target", "mode", "type")
# When a name exists for several targets and none is given, these keys say which one is meant.
_TARGET_HINTS = (("tool", "tool"), ("match", "tool"), ("host", "http"), ("path", "http"))


def validate_fault(spec: Any, target: str | None = None) -> BoundFaultSpec:
    """Resolve and validate one fault entry (a FaultSpec model or a dict)."""
    data = _as_dict(spec)
    mode = data.pop("mode", None) or data.pop("type", None)
    data.pop("type", None)
    fault_id = data.pop("id", None)
    declared = data.pop("target", None)
    data.update(data.pop("params", None) or {})
    if not isinstance(mode, str) or not mode:
        raise FaultConfigError("A fault entry needs `mode` (or `type`): the fault to inject, e.g. `mode: error`.")
    target = _target(mode, target or declared, data)
    cls = FAULTS[f"{target}:{mode}"]
    params = _parse_params(cls, target, mode, data)
    return BoundFaultSpec(target=target, mode=cls.name, written=mode, params=params, cls=cls, id=fault_id)


def _target(mode: str, target: str | None, data: dict[str, Any]) -> str:
    """The fault's target: as given (a known target with a fault of that mode), else the one its mode and
    params say."""
    if target is not None and target not in TARGETS:
        raise FaultConfigError(f"Unknown fault target {target!r}. Expected one of {', '.join(TARGETS)}.")
    candidates = [t for t in TARGETS if f"{t}:{mode}" in FAULTS]
    if not candidates:
        raise FAULTS.unknown(mode, fault_names(target))
    if target is None:
        return _resolve_target(mode, candidates, data)
    if target not in candidates:
        raise FaultConfigError(
            f"{mode!r} is not a {target} fault (it is a {' / '.join(candidates)} fault). "
            f"Expected one of {', '.join(fault_names(target))}."
        )
    return target


def fault_target(spec: Any, default: str = "tool") -> str:
    """The target a fault entry hits when the place it is listed does not say (a pack phase's `faults:`).

    A declared `target:` wins; else the one target that registers the mode; else, for a name several targets
    register (`timeout`, `empty`) or none does, `default`: Khaos packs list `timeout` meaning the tool, and an
    unknown name is then reported by `validate_fault` with that target's modes.
    """
    data = _as_dict(spec)
    declared = data.get("target")
    if declared:
        return str(declared)
    mode = data.get("mode") or data.get("type")
    candidates = [t for t in TARGETS if f"{t}:{mode}" in FAULTS]
    return candidates[0] if len(candidates) == 1 else default


def _as_dict(spec: Any) -> dict[str, Any]:
    if isinstance(spec, BaseModel):
        # Defaults left unset (tool="*", match=None, ...) are dropped so they do not trip a fault's own defaults.
        return spec.model_dump(exclude_unset=True)
    if isinstance(spec, dict):
        return dict(spec)
    raise FaultConfigError(f"A fault entry must be a mapping, not {type(spec).__name__}.")


def _resolve_target(mode: str, candidates: list[str], data: dict[str, Any]) -> str:
    if len(candidates) == 1:
        return candidates[0]
    for key, hinted in _TARGET_HINTS:
        if key in data and hinted in candidates:
            return hinted
    raise FaultConfigError(
        f"Fault {mode!r} exists for several targets ({', '.join(candidates)}); say which one with "
        f"`target: {candidates[0]}` (or list it under tool_faults / llm_faults / http_faults)."
    )


def _parse_params(cls: type[Fault], target: str, mode: str, data: dict[str, Any]) -> FaultParams:
    try:
        return cls.Params.model_validate(data)
    except ValidationError as exc:
        allowed = ", ".join(cls.Params.model_fields)
        problems = []
        errors = exc.errors()
        for err in errors:
            where = ".".join(str(part) for part in err["loc"]) or "(parameters)"
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown parameter `{where}` (expected one of {allowed})")
            else:
                problems.append(f"`{where}`: {str(err['msg']).removeprefix('Value error, ')}")
        first = ".".join(str(part) for part in errors[0]["loc"]) or None
        raise FaultConfigError(f"{target} fault {mode!r}: " + "; ".join(problems) + ".", kind="parameter",
                               key=first) from None
