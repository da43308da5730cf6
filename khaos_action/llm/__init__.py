"""LLM economics for a run: telemetry of every intercepted LLM call, a record/replay cassette, prices and budgets.

The chaos interception (engine.chaos.intercept, engine.chaos.proxy) sees each call; `calls.LlmRuntime` is what it
hands the call to. Everything else here is pure: usage parsing, pricing, cassette keys, budget checks, summaries.
"""
