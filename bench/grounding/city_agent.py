"""Millbrook's city services desk: an assistant on a small model through the chat API (OpenAI-compatible
chat.completions, the server rendering the messages with its plain prompt template), a third shape for
bench/grounding.py beside the HR and IT assistants (which write one completion prompt themselves).

It has two tools: the knowledge base's retriever (JSON articles: fees, opening hours, addresses, phone numbers) and
the request register, which it asks when the message names a reference number (BP-2291). The retriever is the one
that fails under the bench's faults, so a reply can rest on what the register did say. The examples are chat turns
(one answer from an article, one outage answer that still reports a request's status). The model is whatever
OpenAI-compatible server CITY_MODEL_URL points at; temperature 0.9 with a seed that counts the calls from CITY_SEED
(0 unless set), so a run is reproducible.
"""

from __future__ import annotations

import itertools
import json
import os
import re

import city_kb
import openai

SYSTEM = ("Millbrook city services desk. Answer residents from the knowledge base articles and the request "
          "register.")
EXAMPLES = [
    {"role": "user", "content": 'Knowledge base: [{"title": "Leaf collection", "text": "Leaves are collected on '
                                'Mondays in October and November."}]\nQuestion: When are leaves collected?'},
    {"role": "assistant", "content": "Leaves are collected on Mondays in October and November."},
    {"role": "user", "content": "Knowledge base: (search failed: 500 Internal Server Error)\nRequest register: "
                                '{"reference": "HP-1180", "type": "hedge permit", "status": "approved"}\n'
                                "Question: What does a hedge permit cost? My application is HP-1180."},
    {"role": "assistant", "content": "Your application HP-1180 is approved. I can't look up the fee right now "
                                     "because the knowledge base search failed; please try again later."},
]
# The template ends on the user's turn: the model writes the response's header itself before the answer.
_RESPONSE_HEADER = re.compile(r"^\s*(?:###\s*)?Response:\s*")
_client = None
# CITY_SEED: where the seeds start, so that another batch of replies can be sampled (bench/grounding.py).
_calls = itertools.count(int(os.environ.get("CITY_SEED") or 0))


def client() -> openai.OpenAI:
    global _client
    if _client is None:
        _client = openai.OpenAI(base_url=os.environ["CITY_MODEL_URL"], api_key="sk-local", max_retries=0,
                                timeout=120)
    return _client


def _looked_up(tool, *args) -> str:
    """A tool's answer as the model reads it: its JSON, or the failure, as RAG agents pass it on."""
    try:
        found = tool(*args)
    except Exception as exc:  # noqa: BLE001 - the model is told
        return f"(search failed: {exc})"
    return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)


def handle(message: str) -> str:
    context = [f"Knowledge base: {_looked_up(city_kb.search_city_kb, message)}"]
    for reference in dict.fromkeys(city_kb.REFERENCE.findall(message)):
        context.append(f"Request register: {_looked_up(city_kb.request_status, reference)}")
    completion = client().chat.completions.create(
        model="gemma", temperature=0.9, seed=next(_calls), max_tokens=60, stop=["\n"],
        messages=[{"role": "system", "content": SYSTEM}, *EXAMPLES,
                  {"role": "user", "content": "\n".join(context) + f"\nQuestion: {message}"}])
    return _RESPONSE_HEADER.sub("", completion.choices[0].message.content or "").strip()
