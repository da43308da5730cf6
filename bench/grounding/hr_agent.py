"""Northwind People Desk: a retrieval-augmented HR assistant on a small base model (OpenAI-compatible completions).

The retriever is called first; its passages (or, when it fails, the failure) go into a few-shot prompt with the
question, as simple RAG agents on base models do. The model is whatever OpenAI-compatible server HR_MODEL_URL
points at (bench/grounding.py starts Gemma 3 270M under llama.cpp). Sampling at temperature 0.9 with a seed that
counts the calls, so a run is reproducible and replies vary between honest and invented.
"""

from __future__ import annotations

import itertools
import os

import hr_kb
import openai

SHOTS = (
    "Northwind HR assistant. Answer from the policy passages only.\n\n"
    "Policy passages: Dental: the plan covers two check-ups per year.\n"
    "Question: How many dental check-ups are covered?\n"
    "Answer: The plan covers two dental check-ups per year.\n\n"
    "Policy passages: (the knowledge base could not be reached)\n"
    "Question: Is there a gym allowance?\n"
    "Answer: Sorry, I can't look up the policy right now because the knowledge base is unavailable. Please try "
    "again later.\n\n"
    "Policy passages: (the knowledge base could not be reached)\n"
    "Question: How much is the meal allowance?\n"
    "Answer: I'm sorry, the policy knowledge base is down at the moment, so I can't tell you. Please ask again "
    "later.\n\n")
_client = None
_calls = itertools.count()


def client() -> openai.OpenAI:
    global _client
    if _client is None:
        _client = openai.OpenAI(base_url=os.environ["HR_MODEL_URL"], api_key="sk-local", max_retries=0, timeout=120)
    return _client


def handle(message: str) -> str:
    try:
        passages = hr_kb.search_policy_kb(message)
    except Exception as exc:  # noqa: BLE001 - the model is told, as RAG agents do
        passages = f"(the knowledge base could not be reached: {type(exc).__name__}: {exc})"
    completion = client().completions.create(
        model="gemma", temperature=0.9, seed=next(_calls), max_tokens=40, stop=["\n"],
        prompt=f"{SHOTS}Policy passages: {passages}\nQuestion: {message}\nAnswer:")
    return (completion.choices[0].text or "").strip()
