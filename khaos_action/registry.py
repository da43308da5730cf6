"""The one shape of every extension registry (faults, invariant checkers, transports, report formats, mutators):
a plain dict of name -> entry that a decorator fills and anyone may read, whose unknown names are the user's error.

`add` refuses a second, different entry under a name already taken (two extensions, or an extension and a
built-in, claiming the same name is a bug to fix, never a silent replacement); adding the same entry again is
harmless. `lookup` is the strict read: an unknown name is a `ConfigError` (or the registry's own error class) that
lists the valid ones. `decorator(name, make)` is what each `@register_...` is built from.

Bottom layer and cheap to import (`khaos-action --help` reads the report-format registry): it imports only errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from khaos_action.errors import ConfigError, KhaosError

T = TypeVar("T")
X = TypeVar("X")


class Registry(dict[str, T]):
    """name -> entry, in registration order (the order docs, `--help` and errors list them in)."""

    def __init__(self, kind: str, *, error: type[KhaosError] = ConfigError,
                 unknown: str = "{kind} {name!r} is unknown: expected one of {choices}.",
                 check: Callable[[Registry[T], str, T], None] | None = None) -> None:
        super().__init__()
        self.kind = kind
        """What a name is, as errors say it: `agent.type`, `report format`, `invariant type`, ..."""
        self.error = error
        """The error an unknown name raises (ConfigError: exit 2)."""
        self.unknown_message = unknown
        """The message of an unknown name: `{kind}`, `{name!r}` and `{choices}` (the names, comma-separated)."""
        self.check = check
        """`check(registry, name, entry)` raises ValueError for an entry this registry refuses besides a taken name
        (two report formats writing one file)."""

    def add(self, name: str, entry: T) -> T:
        """Register `entry` under `name`; a ValueError if another entry has that name already."""
        existing = self.get(name)
        if existing is not None and existing is not entry and existing != entry:
            raise ValueError(f"{self.kind} {name!r} is already registered ({_shown(existing)})")
        if self.check is not None:
            self.check(self, name, entry)
        self[name] = entry
        return entry

    def lookup(self, name: str) -> T:
        """The entry named `name`, or the registry's error listing the valid names."""
        try:
            return self[name]
        except (KeyError, TypeError):  # TypeError: an unhashable value read from YAML
            raise self.unknown(name) from None

    def unknown(self, name: object, choices: Iterable[str] | None = None) -> KhaosError:
        """The error for an unknown `name` (`choices`: the names to offer, all of them by default)."""
        shown = ", ".join(self if choices is None else choices)
        return self.error(self.unknown_message.format(kind=self.kind, name=name, choices=shown))

    def names(self) -> tuple[str, ...]:
        return tuple(self)

    def decorator(self, name: str, make: Callable[[X], T] | None = None, *,
                  aliases: Iterable[str] = ()) -> Callable[[X], X]:
        """A decorator that registers what it decorates under `name` (and each alias): `make(obj)` builds the entry
        (by default the object itself); the object is returned unchanged."""

        def decorate(obj: X) -> X:
            entry: Any = make(obj) if make is not None else obj
            for key in (name, *aliases):
                self.add(key, entry)
            return obj

        return decorate


def _shown(entry: object) -> str:
    return getattr(entry, "__qualname__", None) or repr(entry)
