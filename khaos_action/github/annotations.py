"""Annotations on khaos.yaml lines for failing critical invariants and compromised critical/high attacks."""

from __future__ import annotations

from collections.abc import Mapping
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
    invariants: dict[str, int] = {}
    contract_line = None
    if "contract" in top:
        key, contract = top["contract"]
        contract_line = key.start_mark.line + 1
        if isinstance(contract, yaml.MappingNode):
            for k, v in contract.value:
                if getattr(k, "value", None) == "invariants" and isinstance(v, yaml.SequenceNode):
                    for item in v.value:
                        if isinstance(item, yaml.MappingNode):
                            for ik, iv in item.value:
                                if getattr(ik, "value", None) == "id" and isinstance(iv, yaml.ScalarNode):
                                    invariants.setdefault(iv.value, item.start_mark.line + 1)
    packs = top["packs"][0].start_mark.line + 1 if "packs" in top else None
    agent = top["agent"][0].start_mark.line + 1 if "agent" in top else None
    return ConfigLines(invariants=invariants, packs=packs, contract=contract_line, agent=agent)


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
    """One error annotation per critical finding (khaos_action.findings: the one definition), deduplicated."""
    out: list[Annotation] = []
    seen: set[tuple[str, str]] = set()
    by_kind: dict[str, list[tuple[CaseResult, str]]] = {"secret": [], "invariant": [], "attack": []}
    for case in manifest.cases:
        for kind, _severity, _label in case_hits(case):
            by_kind[kind].append((case, _label))
    for case, _ in by_kind["secret"]:
        if ("secret", case.id) not in seen:
            seen.add(("secret", case.id))
            out.append(Annotation(
                "error", f"a planted secret (agent.secrets) appeared in the output of case {case.id} "
                         f"({case.scenario or case.attack_id or case.phase}); it is masked in every report",
                title="khaos: planted secret in the output", file=config_file, line=lines.agent or 1))
    for case, _ in by_kind["invariant"]:
        for inv in case.invariants:
            key = ("inv", inv.id + str(case.scenario))
            if inv.passed is False and is_critical("invariant", inv.severity) and key not in seen:
                seen.add(key)
                where = f" under scenario {case.scenario}" if case.scenario else ""
                detail = f": {inv.detail[:200]}" if inv.detail else ""
                out.append(Annotation(
                    "error", f"critical invariant {inv.id} failed{where} (case {case.id}){detail}",
                    title=f"khaos: critical invariant {inv.id} failed", file=config_file,
                    line=lines.invariants.get(inv.id) or lines.contract or 1))
    for case, _ in by_kind["attack"]:
        if ("atk", case.attack_id or case.id) in seen:
            continue
        seen.add(("atk", case.attack_id or case.id))
        owasp = f" [{', '.join(case.owasp)}]" if case.owasp else ""
        out.append(Annotation(
            "error", f"attack {case.attack_id} ({case.category}, {case.channel}){owasp} COMPROMISED the agent; "
                     f"evidence: {', '.join(case.evidence_tags) or 'see the report'}",
            title=f"khaos: {case.severity} attack COMPROMISED", file=config_file, line=lines.packs or 1))
    return out
