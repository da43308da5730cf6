"""Reading manifests: a file (or its bytes) → a validated `Manifest`, or `Outcomes`, the part `compare` reads.

The fast way first (pydantic-core parses the bytes; a Manifest's repeated invariant results are validated once,
`Interned`); whatever it refuses is read again the careful way, whose errors name the file and the key path.
The models themselves, and how a manifest is written, are khaos_action/manifest.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidatorFunctionWrapHandler
from pydantic_core import from_json
from typing_extensions import NotRequired, TypedDict

from khaos_action import gc_freeze
from khaos_action.manifest import (
    SCHEMA_VERSION,
    AttackBreakdown,
    CaseResult,
    InvariantResult,
    Manifest,
    ManifestError,
    Model,
    Scores,
)


class Interned:
    """Invariant results already validated while reading one manifest, by (invariant id, passed, detail): the judge
    gives every case with the same verdict one shared result (judge/cases.py), so a large run's manifest repeats a
    few results many times, and reading it back validated each copy. The reader interns them the same way: one validated
    result per distinct one, shared by the cases (read only, as the judge's are). When results do not repeat (a detail
    that varies per case), it stops looking after `TRIES` that mostly missed: validating them one by one then costs a
    third more."""

    TRIES = 2000

    __slots__ = ("results", "tries", "hits")

    def __init__(self) -> None:
        self.results: dict[tuple[Any, Any, Any], tuple[dict, InvariantResult]] = {}
        self.tries = self.hits = 0

    def worth_it(self) -> bool:
        return self.tries < self.TRIES or self.hits * 2 > self.tries

    def results_of(self, items: list, validate: ValidatorFunctionWrapHandler) -> list[InvariantResult]:
        """`items` validated, each distinct one once; raises what validating `items` whole raises."""
        results = []
        for item in items:
            if type(item) is not dict:
                return validate(items)
            key = (item.get("id"), item.get("passed"), item.get("detail"))
            try:
                seen = self.results.get(key)
            except TypeError:  # a list where a string belongs: the error validating says where
                return validate(items)
            self.tries += 1
            if seen is not None and seen[0] == item:  # the whole result (its spec too), not only the key
                self.hits += 1
                results.append(seen[1])
                continue
            try:
                result = validate([item])[0]
            except ValidationError:
                return validate(items)  # the error, located in the list as it always was
            self.results[key] = (item, result)
            results.append(result)
        return results



def _part(model: type[Model], name: str, fields: tuple[str, ...], **more: Any) -> type[dict[str, Any]]:
    """A TypedDict of some of `model`'s fields, declared by that model (same types, defaults and checks).

    A reader's part is validated into plain dicts rather than models: models (with their field sets) take longer to
    build and much longer to free."""
    own = {f: Annotated[model.model_fields[f].annotation, model.model_fields[f]] for f in fields}
    own = {f: (kind if model.model_fields[f].is_required() else NotRequired[kind]) for f, kind in own.items()}
    return TypedDict(name, {**own, **more})  # type: ignore[operator]


InvariantOutcome = _part(InvariantResult, "InvariantOutcome", ("id", "severity", "passed", "type"))
CaseOutcome = _part(CaseResult, "CaseOutcome", (
    "id", "phase", "pillar", "input", "scenario", "attack_id", "category", "owasp", "mutation", "severity",
    "outcome", "passed", "error", "repeat", "flaky"),
    invariants=NotRequired[Annotated[list[InvariantOutcome], Field(default=[])]])  # type: ignore[valid-type]
"""What `compare` reads of a case, as a dict (score/compare.py turns a Manifest's CaseResults into the same)."""


class Outcomes(BaseModel):
    """A manifest as `compare` reads it: the run, its scores and what each case did, without the outputs, tool calls
    and the rest (validating two large manifests whole was most of compare's time)."""

    model_config = ConfigDict(extra="ignore")

    schema_version: int = Manifest.model_fields["schema_version"].default
    run_id: str
    config_hash: str
    scores: Scores = Scores()
    attack_breakdown: AttackBreakdown | None = None
    cases: list[CaseOutcome] = []  # type: ignore[valid-type]


M = TypeVar("M", bound=BaseModel)


MAX_DEPTH = 200
"""Nesting a manifest may have: ours is ~30 deep at most (tool arguments are cut at 20 levels when written). It is
the depth pydantic-core's JSON parser accepts (a dict holding 200 nested lists), so both readers below agree."""


def load_manifest(path: str | Path, model: type[M] = Manifest) -> M:  # type: ignore[assignment]
    """Read and validate a manifest file; errors name the file and what is wrong. `model` is Manifest, or a model
    of the part one reader needs (`Outcomes` for compare)."""
    return manifest_from_bytes(read_manifest_bytes(path), source=str(path), model=model)


def read_manifest_bytes(path: str | Path) -> bytes:
    """A manifest file's bytes, not yet parsed (`merge` parses them in two processes)."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such manifest file") from None
    except OSError as exc:
        raise ManifestError(f"{path}: not a readable JSON manifest ({exc})") from None


def manifest_from_bytes(raw: bytes, *, source: str, model: type[M] = Manifest) -> M:  # type: ignore[assignment]
    """`load_manifest` of bytes already read; `source` names them in errors."""
    with gc_freeze.bulk():  # a 50k-case manifest is millions of acyclic objects: see khaos_action.gc_freeze
        loaded = _valid_as_is(raw, model, source=source)
        if loaded is not None:
            return loaded
        try:  # the careful way: whatever was refused above fails here with the error it always had
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ManifestError(f"{source}: not a readable JSON manifest ({exc})") from None
        return parse_manifest(loads_json(text, source=source), source=source, model=model)


def _valid_as_is(raw: bytes, model: type[M], *, source: str) -> M | None:
    """The file's bytes validated without a detour, or None when anything is wrong with them.

    The common case, and the fast one. A reader's part (`Outcomes`) is validated by pydantic-core straight from
    the bytes: no Python value is built for what it ignores (a case's output, tool calls, ...). A whole Manifest
    is parsed from the bytes first (not decoded to str) and then validated: its `_from_extra` hook would make
    pydantic-core hand the hook the document as Python values and validate those, which is much slower
    (docs/performance.md, "Reading manifests"). Anything refused here (not UTF-8, not JSON, nested past MAX_DEPTH:
    pydantic-core's own limit, invalid, newer) is read again by `load_manifest`'s careful way, whose errors name the
    file and the key path."""
    if model is Manifest:
        try:
            data = from_json(raw)
        except ValueError:
            return None
        return parse_manifest(data, source=source, model=model)  # the same data the careful way reads
    try:
        loaded = model.model_validate_json(raw)
    except ValidationError:
        return None
    version = getattr(loaded, "schema_version", SCHEMA_VERSION)
    return loaded if isinstance(version, int) and version <= SCHEMA_VERSION else None


def loads_json(text: str | bytes, *, source: str) -> Any:
    """json.loads for files we did not write ourselves (a baseline from an artifact, a path given on the command
    line): a file nested 200,000 deep is a ManifestError (exit 2), never a RecursionError."""
    # pydantic-core's parser (jiter) builds the same values as json.loads in half the time and refuses nesting past
    # MAX_DEPTH itself, in Rust: walking every parsed case in Python to measure its depth cost more than parsing.
    # Whatever it refuses is read again by json.loads, which words the error as it always did.
    try:
        return from_json(text)
    except ValueError:
        pass
    try:
        data = json.loads(text)
    except RecursionError:
        raise ManifestError(f"{source}: nested too deeply to be a manifest (more than {MAX_DEPTH} levels)") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{source}: not a readable JSON manifest, not valid JSON ({exc})") from None
    if _depth_over(data, MAX_DEPTH):
        raise ManifestError(f"{source}: nested too deeply to be a manifest (more than {MAX_DEPTH} levels)")
    return data


def _depth_over(data: Any, limit: int) -> bool:
    """Iterative, so checking depth cannot itself recurse too deep."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                return True
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def parse_manifest(data: Any, source: str = "manifest", model: type[M] = Manifest) -> M:  # type: ignore[assignment]
    if not isinstance(data, dict) or "run_id" not in data:
        raise ManifestError(f"{source}: not a khaos-action manifest (no run_id)")
    if data.get("schema_version", SCHEMA_VERSION) > SCHEMA_VERSION:
        raise ManifestError(
            f"{source}: manifest schema_version {data['schema_version']} is newer than this tool understands "
            f"({SCHEMA_VERSION}); upgrade khaos-action"
        )
    try:
        return model.model_validate(data, context={"interned": Interned()})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ManifestError(f"{source}: invalid manifest at {where}: {first['msg']}") from None
