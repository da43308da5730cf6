"""Optional LLM rewriting, against a real closed port on 127.0.0.1: the endpoint that cannot be reached is named with
the key to fix (the other failures, over an in-memory transport: tests/unit/test_mutation_llm.py)."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from khaos_action.config.models import LlmEndpoint
from khaos_action.mutation import MutationLlmError, llm_rewrite

PROMPT = "Where is my order 1234?"


def test_unreachable_endpoint_on_a_closed_local_port_is_reported():
    with socket.socket() as sock:  # a port nobody listens on once this socket closes
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    endpoint = LlmEndpoint(base_url=f"http://127.0.0.1:{port}/v1", model="tiny", timeout_s=2)

    async def go():
        async with httpx.AsyncClient() as client:
            return await llm_rewrite(endpoint, client, PROMPT, 2, environ={})

    with pytest.raises(MutationLlmError, match=rf"127\.0\.0\.1:{port}.*could not be reached.*base_url"):
        asyncio.run(go())
