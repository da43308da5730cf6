"""LLM economics for a run: usage parsing, pricing, the record/replay cassette, budgets, telemetry and health.

All pure, below the engine: the engine's interception (engine/chaos/intercept.py, engine/chaos/proxy.py) hands each
LLM call to `engine.llm_calls.LlmRuntime`, which records it on the case with these; engine/llm_runtime.py builds
that runtime from the config.
"""
