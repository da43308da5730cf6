"""`khaos-action merge`: shard manifests → one run, re-scored from the union of their judged cases.

Shards of one run share config_hash and seed and hold disjoint cases; anything else is refused, because merged
scores would then describe no run that exists. So is a manifest whose digest is missing or does not match its bytes
(edited after the run wrote it). A missing shard fails the merged run (an `incomplete` finding) unless
`allow_partial`, and the verdict says what it was decided without either way. Gates and weights are taken from the
shards' own manifests (they record them), or from khaos.yaml when given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from khaos_action import gc_freeze
from khaos_action.atomic import stamp
from khaos_action.errors import ExitCode, Interrupted
from khaos_action.findings import Finding
from khaos_action.gates_and_weights import Gates, Weights
from khaos_action.manifest import CaseResult, Manifest, ManifestError, Telemetry, check_digest
from khaos_action.manifest_read import manifest_from_bytes, read_manifest_bytes
from khaos_action.outcome import Outcome, Phase
from khaos_action.report.writers import write_scored
from khaos_action.reporters import REPORTERS, default_formats
from khaos_action.run_api import EvaluateResult
from khaos_action.score.gates import verdict_of
from khaos_action.score.statistics import mark_flaky
from khaos_action.score.summary import GoalSpec, Summary, summarise


def merge_manifests(paths: Sequence[Path], *, out_dir: Path, config_path: Path | None = None,
                    formats: Sequence[str] | None = None, expect: int | None = None,
                    allow_partial: bool = False) -> EvaluateResult:
    """`formats`: the reports to write (default: every default format of khaos_action/reporters.py, as a run writes).
    `expect`: how many shards the run was split into (every manifest must then be one of them); `allow_partial`:
    decide on the shards there are when some are missing, instead of failing the merged run."""
    formats = default_formats() if formats is None else formats
    before = _files(out_dir, formats)
    try:
        # Read here, parsed in both of write_scored's processes: each builds its own objects from the same bytes.
        shards = [(read_manifest_bytes(path), str(path)) for path in paths]
        sources = [source for _, source in shards]
        configured = _gates(config_path)

        def loaded() -> list[Manifest]:
            manifests = [manifest_from_bytes(raw, source=source) for raw, source in shards]
            shards.clear()  # each process's bytes (tens of MB for a large run) are freed once parsed
            return manifests

        def scored() -> Manifest:
            for raw, source in shards:  # here only: a refusal stops the run before the other process's files are kept
                check_digest(raw, source=source)
            manifests = loaded()
            cases = union_of_cases(manifests)
            split = shard_split(manifests, sources, expect=expect)
            flaky = mark_flaky(cases)
            gates, weights = configured or (manifests[0].gates, manifests[0].weights)
            merged = _merged(manifests, cases, gates=gates, weights=weights, flaky=flaky)
            return with_missing_shards(merged, split, allow_partial=allow_partial)

        def written_cases() -> list[CaseResult]:
            # The same cases scored() makes, unchecked: shards scored() refuses stop the run before anything is kept.
            cases = [case for manifest in loaded() for case in manifest.cases]
            mark_flaky(cases)
            return cases

        with gc_freeze.bulk():
            merged, reports = write_scored(written_cases, scored, out_dir, formats)
    except KeyboardInterrupt:
        raise Interrupted(_interrupted(out_dir, before, _files(out_dir, formats))) from None
    return EvaluateResult(manifest=merged, out_dir=out_dir, reports=reports)


def _files(out_dir: Path, formats: Sequence[str]) -> dict[str, tuple[int, int] | None]:
    """The files merge writes, each with its `atomic.stamp` (None when absent)."""
    return {name: stamp(out_dir / name)
            for name in dict.fromkeys(REPORTERS[kind].file for kind in ("json", *formats) if kind in REPORTERS)}


def _interrupted(out_dir: Path, before: dict, after: dict) -> str:
    """What an interrupted merge left: merge has no events.jsonl; its files are written whole or not at all."""
    wrote = [name for name, stat in after.items() if stat is not None and stat != before.get(name)]
    missing = [name for name in after if name not in wrote]
    if not wrote:
        kept = " (the files already there are as they were)" if any(before.values()) else ""
        return f"merge interrupted: nothing was written to {out_dir}{kept}; run merge again"
    if not missing:
        return f"merge interrupted after it wrote every file ({', '.join(wrote)} in {out_dir})"
    return (f"merge interrupted: wrote {', '.join(wrote)} in {out_dir} but not {', '.join(missing)}; run merge "
            f"again for the whole set")


def merge(manifests: Sequence[Manifest], *, gates: Gates, weights: Weights, expect: int | None = None,
          allow_partial: bool = False) -> Manifest:
    """Manifests already read (and their digests checked) → the merged run."""
    cases = union_of_cases(manifests)
    split = shard_split(manifests, [m.run_id for m in manifests], expect=expect)
    merged = _merged(manifests, cases, gates=gates, weights=weights)
    return with_missing_shards(merged, split, allow_partial=allow_partial)


@dataclass(frozen=True)
class ShardSplit:
    """Which shards of an `I/N` split were given."""

    total: int
    given: tuple[int, ...]

    @property
    def missing(self) -> list[int]:
        return [index for index in range(1, self.total + 1) if index not in self.given]

    def describe(self) -> str:
        missing = self.missing
        return (f"merged {len(self.given)} of {self.total} shards; missing: "
                + ", ".join(f"{index}/{self.total}" for index in missing))


def shard_split(manifests: Sequence[Manifest], sources: Sequence[str], *, expect: int | None) -> ShardSplit | None:
    """The split the manifests are shards of (None: none of them is a shard and `expect` is not set). Refused, naming
    the file: a manifest that is not a shard among shards, shards of different splits, a shard given twice, a split
    other than `expect`."""
    given: dict[int, str] = {}
    total = expect
    sharded = expect is not None or any(m.shard for m in manifests)
    for manifest, source in zip(manifests, sources, strict=True):
        index, of = _shard_of(manifest.shard, source, sharded=sharded)
        if index is not None:
            _check_shard(index, of, source, given, total, expect)
            total, given[index] = of, source
    if total is None:
        return None
    return ShardSplit(total, tuple(sorted(given)))


def _check_shard(index: int, of: int, source: str, given: dict[int, str], total: int | None,
                 expect: int | None) -> None:
    """Shard `index`/`of` belongs with the shards `given` so far: the same split, given once."""
    if total is not None and of != total:
        raise ManifestError(f"{source} is shard {index}/{of}, but the run was split into {total} shards "
                            f"({'--expect' if expect else given[min(given)]}); merge the shards of one run")
    if index in given:
        raise ManifestError(f"{given[index]} and {source} are both shard {index}/{of}: give each shard once")


def _shard_of(shard: str | None, source: str, *, sharded: bool) -> tuple[int | None, int]:
    if not shard:
        if sharded:
            raise ManifestError(f"{source} is not a shard (its manifest has no `shard`): merge only the shard "
                                "manifests of one run (`run --shard I/N`)")
        return None, 0
    index, _, of = shard.partition("/")
    if not (index.isdigit() and of.isdigit() and 1 <= int(index) <= int(of)):
        raise ManifestError(f"{source}: `shard` is {shard!r}, not I/N")
    return int(index), int(of)


def with_missing_shards(merged: Manifest, split: ShardSplit | None, *, allow_partial: bool) -> Manifest:
    """A run merged from some of its shards: an `incomplete` finding fails it, unless `allow_partial`; either way
    its verdict says what it was decided without."""
    if split is None or not split.missing:
        return merged
    partial = split.describe() + (" (--allow-partial)" if allow_partial else "")
    verdict = merged.verdict
    if allow_partial:
        verdict = verdict.model_copy(update={"partial": partial})
    else:
        missing = Finding(gate="incomplete", kind="coverage", text=(
            f"the run is incomplete: shard{'s' if len(split.missing) > 1 else ''} "
            f"{', '.join(f'{i}/{split.total}' for i in split.missing)} missing; upload every shard's manifest "
            "(`if: always()`), or pass --allow-partial to decide on the shards there are"))
        verdict = verdict_of([missing, *verdict.findings], max(verdict.exit_code, ExitCode.GATE_FAILED))
        verdict.partial = partial
    return merged.model_copy(update={"verdict": verdict})


def union_of_cases(manifests: Sequence[Manifest]) -> list[CaseResult]:
    """Every shard's cases, in the order given; shards of different runs, or holding the same case, are refused."""
    if not manifests:
        raise ManifestError("merge needs at least one manifest")
    _one_run(manifests)
    cases = [case for manifest in manifests for case in manifest.cases]
    _known_outcomes(cases)
    if len({case.id for case in cases}) == len(cases) or len({(c.id, c.repeat) for c in cases}) == len(cases):
        return cases  # (ids alone first: no tuple per case when there are no repeats)
    _refuse_twice(cases)
    return cases


def _one_run(manifests: Sequence[Manifest]) -> None:
    first = manifests[0]
    for other in manifests[1:]:
        if (other.config_hash, other.seed) != (first.config_hash, first.seed):
            raise ManifestError(
                f"cannot merge run {other.run_id} (config {other.config_hash}, seed {other.seed}) with run "
                f"{first.run_id} (config {first.config_hash}, seed {first.seed}): shards must come from one config "
                f"and seed")


def _known_outcomes(cases: list[CaseResult]) -> None:
    """Merging re-scores every case: an outcome this version cannot score (a shard written by another version) is
    refused by name, never counted as something it is not."""
    odd = next((case for case in cases if case.outcome is not None and not isinstance(case.outcome, Outcome)), None)
    if odd is not None:
        known = ", ".join(outcome.value for outcome in Outcome)
        raise ManifestError(f"case {odd.id} has the outcome {str(odd.outcome)!r}, which this khaos-action cannot score "
                            f"(it knows {known}): merge the shards with the khaos-action version that wrote them")


def _refuse_twice(cases: list[CaseResult]) -> None:
    seen: set[tuple[str, int]] = set()
    for case in cases:  # which one: the first seen twice
        key = (case.id, case.repeat)
        if key in seen:
            raise ManifestError(f"case {case.id} appears in more than one manifest: were the same shard's "
                                f"results given twice?")
        seen.add(key)


def _merged(manifests: Sequence[Manifest], cases: list[CaseResult], *, gates: Gates, weights: Weights,
            flaky: list[str] | None = None) -> Manifest:
    first = manifests[0]
    skipped = list({s.attack_id: s for m in manifests for s in m.skipped}.values())
    not_run = sorted({case_id for m in manifests for case_id in m.not_run})
    summary = _summary(manifests, cases, gates=gates, weights=weights, flaky=flaky, skipped=len(skipped))
    summary.counts.not_run = len(not_run)
    return first.model_copy(update={
        "run_id": first.run_id.split("-shard")[0] + "-merged", "shard": None, **_span(manifests),
        "cases": cases, "scores": summary.scores, "score_notes": summary.score_notes, "metrics": summary.metrics,
        "goals": summary.goals, "counts": summary.counts, "verdict": summary.verdict,
        "warnings": sorted({w for m in manifests for w in m.warnings}), "alerts": summary.alerts,
        "stats": summary.stats, "flaky": summary.flaky, "coverage": _merged_coverage(manifests),
        "skipped": skipped, "not_run": not_run, "attack_breakdown": _breakdown(manifests, cases, skipped),
        "merged_from": [m.run_id for m in manifests], "telemetry": _merged_telemetry(manifests, cases),
    })


def _summary(manifests: Sequence[Manifest], cases: list[CaseResult], *, gates: Gates, weights: Weights,
             flaky: list[str] | None, skipped: int) -> Summary:
    """The merged cases scored again, against every shard's goals."""
    goals = {(g.phase, g.metric, g.operator, g.threshold) for m in manifests for g in m.goals}
    return summarise(cases, goals=[GoalSpec(*g) for g in sorted(goals)], gates=gates, weights=weights,
                     attacks_skipped=skipped, security_planned=any(g[0] == Phase.SECURITY for g in goals), flaky=flaky)


def _breakdown(manifests: Sequence[Manifest], cases: list[CaseResult], skipped: list) -> Any:
    """Attack success per channel and objective, made again from the merged cases; shards written before the
    breakdown have none, and neither has their merge."""
    if not any(m.attack_breakdown for m in manifests):
        return None
    from khaos_action.score.breakdown import attack_breakdown

    return attack_breakdown(cases, skipped)


def _span(manifests: Sequence[Manifest]) -> dict[str, Any]:
    return {"started_at": min(m.started_at for m in manifests),
            "finished_at": max((m.finished_at or m.started_at) for m in manifests)}


def _merged_telemetry(manifests: Sequence[Manifest], cases: Sequence) -> Telemetry | None:
    """LLM usage recomputed from every shard's recorded calls; each shard's own budget stays beside it (budgets
    are per shard)."""
    if not any(m.telemetry is not None for m in manifests):
        return None
    from khaos_action.llm.telemetry import summarise_calls

    telemetry = summarise_calls(call for case in cases for call in case.llm_calls)
    telemetry.shard_budgets = [m.telemetry.budget for m in manifests if m.telemetry is not None]
    return telemetry


def _merged_coverage(manifests: Sequence[Manifest]) -> dict:
    """Every shard selects the same attacks (selection does not depend on the shard) and executes a disjoint part
    of them: selected / not applicable come from any shard, executed is the sum over shards."""
    tables = [m.coverage for m in manifests if m.coverage]
    if not tables:
        return {}
    merged = {**tables[0], "totals": _sum_rows([t["totals"] for t in tables])}
    for section in ("categories", "owasp"):
        merged[section] = _sum_section([t[section] for t in tables])
    merged["uncovered_owasp"] = [oid for oid, row in merged["owasp"].items() if row["executed"] == 0]
    return merged


def _sum_section(sections: list[dict[str, dict[str, int]]]) -> dict[str, dict[str, int]]:
    """Each key of the first shard's section, summed over the shards that have it."""
    return {key: _sum_rows([section[key] for section in sections if key in section]) for key in sections[0]}


def _sum_rows(rows: list[dict[str, int]]) -> dict[str, int]:
    first = rows[0]
    executed = sum(r["executed"] for r in rows)
    return {"selected": first["selected"], "executed": executed, "not_applicable": first["not_applicable"],
            "not_executed": first["selected"] - executed - first["not_applicable"]}


def _gates(path: Path | None) -> tuple[Gates, Weights] | None:
    """khaos.yaml's gates and weights, when it is given: they replace the ones the shards recorded."""
    if path is None:
        return None
    from khaos_action.config.loader import load_gates

    return load_gates(path)
