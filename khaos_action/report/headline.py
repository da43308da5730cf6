"""The one line every view opens with: the verdict, why it failed, and security beside overall.

`overall` is resilience and security together (score/pillars.py); the headline still shows security beside it and
names the first failing finding, so a FAILED run always says why. Every view colours it by the verdict, never by
the score.
"""

from __future__ import annotations

from typing import Any

from khaos_action.findings import ordered
from khaos_action.report.escape import md_escape


def score_text(value: float | None) -> str:
    return "not run" if value is None else f"{value:.1f}"


def why(manifest: Any) -> str:
    """The first reason the run failed (critical findings first), with how many more there are."""
    findings = list(getattr(manifest.verdict, "findings", []) or [])
    texts = [f.text for f in ordered(findings)] or list(manifest.verdict.reasons)
    if not texts:
        return ""
    more = f" (+{len(texts) - 1} more)" if len(texts) > 1 else ""
    return texts[0] + more


def partial(manifest: Any) -> str:
    """What the verdict was decided without (a merge of some of the run's shards), or ""."""
    return getattr(manifest.verdict, "partial", None) or ""


def headline(manifest: Any) -> str:
    """Plain text: `FAILED: <why> · overall 100.0 · security 45.2`; `PASSED (partial run: …) · …` when the verdict
    was decided on part of the run."""
    scores = f"overall {score_text(manifest.scores.overall)} · security {score_text(manifest.scores.security)}"
    part = f" (partial run: {partial(manifest)})" if partial(manifest) else ""
    if manifest.verdict.passed:
        return f"PASSED{part} · {scores}"
    return f"FAILED{part}: {why(manifest)} · {scores}"


def headline_markdown(manifest: Any, *, passed: bool | None = None, reason: str | None = None) -> str:
    """The same line for Markdown (the reason may quote agent text: escaped)."""
    ok = manifest.verdict.passed if passed is None else passed
    scores = (f"overall **{score_text(manifest.scores.overall)}** · security "
              f"**{score_text(manifest.scores.security)}**")
    part = f" (**partial run**: {md_escape(partial(manifest), 200)})" if partial(manifest) else ""
    if ok:
        return f"**Passed**{part} · {scores}"
    text = why(manifest) if reason is None else reason
    return f"**Failed**{part}: {md_escape(text, 300)} · {scores}" if text else f"**Failed**{part} · {scores}"
