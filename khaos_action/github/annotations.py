"""Annotations on khaos.yaml lines for failing critical invariants and compromised critical/high attacks."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import yaml

from khaos_action.findings import case_hits, is_critical
from khaos_action.github.workflow import Annotation
from khaos_action.manifest import CaseResult, Manifest


@dataclass(frozen=True)
class ConfigLines:
    invariants: dict[str, int] = field(default_factory=dict)
    """Invariant id → 1-based line of its `- id:` entry."""
    packs: int | None = None
    """Line of the `packs:` key (where attacks come from)."""
    contract: int | None = None
    agent: int | None = None
    """Line of the `agent:` key (where `secrets` live)."""


def config_lines(text: str) -> ConfigLines:
    """Line numbers from the YAML node tree; an unparsable file gives no lines (annotations then point at line 1)."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return ConfigLines()
    if not isinstance(root, yaml.MappingNode):
        return ConfigLines()
    top = {k.value: (k, v) for k, v in root.value if isinstance(k, yaml.ScalarNode)}
    contract_line = top["contract"][0].start_mark.line + 1 if "contract" in top else None
    invariants = _invariant_lines(top["contract"][1]) if "contract" in top else {}
    packs = top["packs"][0].start_mark.line + 1 if "packs" in top else None
    agent = top["agent"][0].start_mark.line + 1 if "agent" in top else None
    return ConfigLines(invariants=invariants, packs=packs, contract=contract_line, agent=agent)


def _invariant_lines(contract: yaml.Node) -> dict[str, int]:
    """Invariant id -> the line of its entry in `contract.invariants` (the first entry with that id)."""
    found: dict[str, int] = {}
    if not isinstance(contract, yaml.MappingNode):
        return found
    for key, value in contract.value:
        if getattr(key, "value", None) == "invariants" and isinstance(value, yaml.SequenceNode):
            for item in value.value:
                for entry_id in _ids_of(item):
                    found.setdefault(entry_id, item.start_mark.line + 1)
    return found


def _ids_of(item: yaml.Node) -> list[str]:
    """The scalar `id:` values of a mapping entry (one, unless the entry repeats the key)."""
    if not isinstance(item, yaml.MappingNode):
        return []
    return [value.value for key, value in item.value
            if getattr(key, "value", None) == "id" and isinstance(value, yaml.ScalarNode)]


def lines_from_manifest(raw: Mapping[str, int]) -> ConfigLines | None:
    """The line map the engine stores in the manifest's `config_lines` (keys `packs`, `invariant:<id>`...)."""
    if not raw:
        return None
    invariants = {k.split(":", 1)[1]: v for k, v in raw.items() if k.startswith("invariant:") and isinstance(v, int)}
    packs, contract, agent = raw.get("packs"), raw.get("contract"), raw.get("agent")
    return ConfigLines(invariants=invariants, packs=packs if isinstance(packs, int) else None,
                       contract=contract if isinstance(contract, int) else None,
                       agent=agent if isinstance(agent, int) else None)


def build_annotations(manifest: Manifest, *, config_file: str, lines: ConfigLines) -> list[Annotation]:
    """One error annotation per critical finding (khaos_action.findings: the one definition), deduplicated: planted
    secrets first, then critical invariants, then attacks."""
    by_kind: dict[str, list[CaseResult]] = {"secret": [], "invariant": [], "attack": []}
    for case in manifest.cases:
        for kind, _severity, _label in case_hits(case):
            by_kind[kind].append(case)
    out: list[Annotation] = []
    seen: set[tuple[str, str]] = set()
    for kind, annotate in _ANNOTATE.items():
        for case in by_kind[kind]:
            for key, annotation in annotate(case, config_file, lines):
                if key not in seen:
                    seen.add(key)
                    out.append(annotation)
    return out


Keyed = Iterator[tuple[tuple[str, str], Annotation]]


def _secret(case: CaseResult, config_file: str, lines: ConfigLines) -> Keyed:
    yield ("secret", case.id), Annotation(
        "error", f"a planted secret (agent.secrets) appeared in the output of case {case.id} "
                 f"({case.scenario or case.attack_id or case.phase}); it is masked in every report",
        title="khaos: planted secret in the output", file=config_file, line=lines.agent or 1)


def _invariants(case: CaseResult, config_file: str, lines: ConfigLines) -> Keyed:
    for inv in case.invariants:
        if inv.passed is not False or not is_critical("invariant", inv.severity):
            continue
        where = f" under scenario {case.scenario}" if case.scenario else ""
        detail = f": {inv.detail[:200]}" if inv.detail else ""
        yield ("inv", inv.id + str(case.scenario)), Annotation(
            "error", f"critical invariant {inv.id} failed{where} (case {case.id}){detail}",
            title=f"khaos: critical invariant {inv.id} failed", file=config_file,
            line=lines.invariants.get(inv.id) or lines.contract or 1)


def _attack(case: CaseResult, config_file: str, lines: ConfigLines) -> Keyed:
    owasp = f" [{', '.join(case.owasp)}]" if case.owasp else ""
    yield ("atk", case.attack_id or case.id), Annotation(
        "error", f"attack {case.attack_id} ({case.category}, {case.channel}){owasp} COMPROMISED the agent; "
                 f"evidence: {', '.join(case.evidence_tags) or 'see the report'}",
        title=f"khaos: {case.severity} attack COMPROMISED", file=config_file, line=lines.packs or 1)


_ANNOTATE: dict[str, Callable[[CaseResult, str, ConfigLines], Keyed]] = {
    "secret": _secret, "invariant": _invariants, "attack": _attack}
"""Each kind of critical finding (`findings.case_hits`) -> its annotations, keyed for deduplication, in the order
the annotations are listed."""
