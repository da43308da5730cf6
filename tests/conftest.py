"""Every test carries its tier's marker, given by the directory it lives in, so `-m` selects tiers and nobody has to
remember to mark a new test (the markers are registered in pyproject.toml).

The tiers run in the order of TIERS, the unit tier first, whatever order the paths were given in: a session-scoped
fixture of another tier (the container tier's engine and images) is then torn down after its own tests, not while
the last unit test tears down under the unit tier's guard, and a quick failure shows first."""

from __future__ import annotations

from pathlib import Path

import pytest

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
