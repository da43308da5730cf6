"""The one registry shape (khaos_action/registry.py) every extension point uses: add, strict lookup, decorator."""

from __future__ import annotations

import pytest

from khaos_action.checkers import CHECKERS
from khaos_action.errors import ConfigError, UsageError
from khaos_action.faults import FAULTS
from khaos_action.faults.registry import UnknownFaultMode
from khaos_action.mutation import MUTATORS
from khaos_action.registry import Registry
from khaos_action.reporters import REPORTERS
from khaos_action.transports import TRANSPORTS


def test_entries_keep_their_order_and_read_like_a_dict() -> None:
    registry: Registry[int] = Registry("colour")
    registry.add("red", 1)
    registry.add("green", 2)
    assert registry.names() == ("red", "green") and dict(registry) == {"red": 1, "green": 2}
    assert registry.get("blue") is None and "red" in registry


@pytest.mark.parametrize(("first", "second", "refused"), [
    (1, 1, False),  # the same entry again: harmless (a module imported twice under one name)
    ((1, "a"), (1, "a"), False),  # an equal entry (a built-in's line read again)
    (1, 2, True),  # another entry under a taken name: never a silent replacement
])
def test_a_taken_name_is_refused_unless_the_entry_is_the_same(first: object, second: object, refused: bool) -> None:
    registry: Registry[object] = Registry("colour")
    registry.add("red", first)
    if refused:
        with pytest.raises(ValueError, match="colour 'red' is already registered"):
            registry.add("red", second)
        assert registry["red"] == first
    else:
        assert registry.add("red", second) == second


@pytest.mark.parametrize(("registry", "error", "message"), [
    (Registry("colour"), ConfigError, "colour 'blue' is unknown: expected one of red, green."),
    (Registry("colour", error=UsageError), UsageError, "colour 'blue' is unknown: expected one of red, green."),
    (Registry("colour", unknown="No {kind} called {name!r}; pick {choices}"), ConfigError,
     "No colour called 'blue'; pick red, green"),
])
def test_an_unknown_name_is_the_registry_s_error_listing_the_names(registry: Registry, error: type,
                                                                     message: str) -> None:
    registry.add("red", 1)
    registry.add("green", 2)
    with pytest.raises(error) as raised:
        registry.lookup("blue")
    assert str(raised.value) == message
    with pytest.raises(error):
        registry.lookup(["an", "unhashable", "value"])  # type: ignore[arg-type]  # from YAML
    assert "green" not in str(registry.unknown("blue", ["red"]))  # the names worth offering, when fewer


def test_the_decorator_registers_the_object_or_what_make_builds_and_returns_the_object() -> None:
    registry: Registry[object] = Registry("shape")

    @registry.decorator("circle", aliases=("round",))
    def circle() -> str:
        return "o"

    @registry.decorator("square", lambda fn: ("entry", fn))
    def square() -> str:
        return "[]"

    assert circle() == "o" and square() == "[]"
    assert registry["circle"] is registry["round"] is circle and registry["square"] == ("entry", square)


def test_check_refuses_what_the_registry_does_not_take() -> None:
    def even(registry: Registry[int], name: str, entry: int) -> None:
        if entry % 2:
            raise ValueError(f"{name}: odd")

    registry: Registry[int] = Registry("number", check=even)
    registry.add("two", 2)
    with pytest.raises(ValueError, match="three: odd"):
        registry.add("three", 3)
    assert registry.names() == ("two",)


@pytest.mark.parametrize(("registry", "kind", "error"), [
    (FAULTS, "fault", UnknownFaultMode),
    (CHECKERS, "invariant type", ConfigError),
    (TRANSPORTS, "agent.type", ConfigError),
    (REPORTERS, "report format", UsageError),
    (MUTATORS, "mutation type", ConfigError),
])
def test_every_extension_point_is_one_registry(registry: Registry, kind: str, error: type) -> None:
    assert isinstance(registry, Registry) and registry.kind == kind and registry.error is error
    assert registry.names()  # the built-ins are registered
    with pytest.raises(error):
        registry.lookup("no-such-name")
