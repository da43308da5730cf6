"""Mutation pillar: seeded, LLM-free variants of golden prompts (and optional LLM rewrites)."""

from typing import Any

from khaos_action.mutation.registry import MUTATORS, Mutated, mutate, register_mutator, resolve_types, rng_for

__all__ = ["MUTATORS", "Mutated", "MutationLlmError", "llm_rewrite", "mutate", "register_mutator", "resolve_types",
           "rng_for"]


def __getattr__(name: str) -> Any:
    # The LLM rewriter needs httpx, which a run without `mutation.llm` never imports (fixed costs).
    if name in ("MutationLlmError", "llm_rewrite"):
        from khaos_action.mutation import llm

        return getattr(llm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
