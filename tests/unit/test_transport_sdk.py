"""The SDK decorators: agents stay plain functions, tools go through the hook only during a run."""

from __future__ import annotations

import asyncio

import pytest

from khaos_action import sdk


@pytest.fixture(autouse=True)
def no_hook():
    previous = sdk.set_tool_hook(None)
    yield
    sdk.set_tool_hook(previous)


def test_khaosagent_bare_and_with_arguments_keep_the_function():
    @sdk.khaosagent
    def bare(text: str) -> str:
        """Answers support questions.

        More detail."""
        return text

    @sdk.khaosagent("support-bot", capabilities=["tools"], description="d")
    async def called(text: str) -> str:
        return text

    @sdk.khaosagent(name="named")
    def named(text):
        return text

    assert bare("x") == "x" and named("y") == "y"
    assert bare.__khaos_agent__ == {"name": "bare", "capabilities": None, "description": "Answers support questions."}
    assert called.__khaos_agent__ == {"name": "support-bot", "capabilities": ["tools"], "description": "d"}
    assert named.__khaos_agent__["name"] == "named"
    assert asyncio.run(called("z")) == "z"


def test_tool_runs_untouched_without_a_hook():
    @sdk.tool
    def lookup(order: str, *, verbose: bool = False) -> str:
        return f"{order}:{verbose}"

    assert lookup("1", verbose=True) == "1:True"
    assert lookup.__khaos_tool__ == "lookup" and lookup.__name__ == "lookup"


def test_hook_sees_sync_and_async_tool_calls():
    seen = []

    def hook(name, fn, args, kwargs):
        seen.append((name, args, kwargs))
        if name == "broken":
            raise TimeoutError("fault: timeout")
        return fn(*args, **kwargs)

    @sdk.tool(name="orders")
    def lookup(order):
        return f"order {order}"

    @sdk.tool("broken")
    def broken():
        return "never"

    @sdk.tool
    async def fetch(url):
        await asyncio.sleep(0)
        return f"got {url}"

    assert sdk.set_tool_hook(hook) is None and sdk.get_tool_hook() is hook
    assert lookup("7") == "order 7"
    with pytest.raises(TimeoutError):
        broken()
    assert asyncio.run(fetch(url="u")) == "got u"  # the hook returned the coroutine; the wrapper awaited it
    assert seen == [("orders", ("7",), {}), ("broken", (), {}), ("fetch", (), {"url": "u"})]
    assert asyncio.iscoroutinefunction(fetch) and fetch.__khaos_tool__ == "fetch"


def test_hook_may_answer_instead_of_the_tool():
    @sdk.tool
    async def fetch(url):
        raise AssertionError("the fault answered; the real tool must not run")

    async def canned(name, fn, args, kwargs):
        return '{"truncated": '

    sdk.set_tool_hook(lambda name, fn, args, kwargs: canned(name, fn, args, kwargs))
    assert asyncio.run(fetch("u")) == '{"truncated": '
