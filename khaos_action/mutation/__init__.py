"""Mutation pillar: seeded, LLM-free variants of golden prompts (and optional LLM rewrites)."""

from khaos_action.mutation.llm import MutationLlmError, llm_rewrite
from khaos_action.mutation.registry import MUTATORS, Mutated, mutate, resolve_types, rng_for

__all__ = ["MUTATORS", "Mutated", "MutationLlmError", "llm_rewrite", "mutate", "resolve_types", "rng_for"]
