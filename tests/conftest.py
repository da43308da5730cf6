"""Every test carries its tier's marker, given by the directory it lives in, so `-m` selects tiers and nobody has to
remember to mark a new test (the markers are registered in pyproject.toml).

The tiers run in the order of TIERS, the unit tier first, whatever order the paths were given in: a session-scoped
fixture of another tier (the container tier's engine and images) is then torn down after its own tests, not while
the last unit test tears down under the unit tier's guard, and a quick failure shows first."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

try:  # pytest's own -m expressions; without them every module is collected, as usual
    from _pytest.mark.expression import Expression
except ImportError:  # pragma: no cover
    Expression = None

HERE = Path(__file__).resolve().parent
# directory under tests/ -> marker; a test module directly in tests/ has no tier and is refused below
# (in the order the tiers run)
TIERS = {"unit": "unit", "integration": "integration", "end_to_end": "end_to_end", "container": "container"}


def tier_of(path: Path) -> str | None:
    try:
        top = Path(path).resolve().relative_to(HERE).parts[0]
    except (ValueError, IndexError):
        return None
    return TIERS.get(top)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    order = list(TIERS.values())
    for item in items:
        tier = tier_of(item.path)
        if tier is None:
            raise pytest.UsageError(f"{item.nodeid}: a test lives in one of tests/{{{','.join(TIERS)}}}/")
        item.add_marker(tier)
    items.sort(key=lambda item: order.index(tier_of(item.path)))  # stable: each tier keeps its own order


# `pytestmark = pytest.mark.slow`, or a list of marks that starts with it
SLOW_MODULE = re.compile(r"^pytestmark = \[?\s*pytest\.mark\.slow\b", re.MULTILINE)
NAME = re.compile(r"[A-Za-z_][\w.]*")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A module marked slow as a whole is not imported when `-m` leaves its tests out: it would only be deselected
    after collection, and these modules import whole frameworks at the top (the quick command's start is spent
    there otherwise)."""
    markexpr = config.getoption("markexpr", "")
    if not markexpr or Expression is None or collection_path.suffix != ".py" \
            or not collection_path.name.startswith("test_"):
        return None
    tier = tier_of(collection_path)
    if tier is None or not SLOW_MODULE.search(collection_path.read_text(encoding="utf-8")):
        return None
    return True if not _may_select(markexpr, {tier, "slow"}) else None


def _may_select(markexpr: str, marks: set[str]) -> bool:
    """Whether `markexpr` selects a test that has `marks`, whatever other marks the test may have as well."""
    try:
        expression = Expression.compile(markexpr)
    except Exception:  # noqa: BLE001 - pytest reports a malformed expression itself
        return True
    others = sorted({name for name in NAME.findall(markexpr) if name not in {"and", "or", "not"}} - marks)
    for values in itertools.product((False, True), repeat=len(others)):
        extra = {name for name, on in zip(others, values, strict=True) if on}
        if expression.evaluate(_has(marks | extra)):
            return True
    return False


def _has(marks: set[str]):
    return lambda name, **_: name in marks
