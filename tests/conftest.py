"""Every test carries its tier's marker, given by the directory it lives in, so `-m` selects tiers and nobody has to
remember to mark a new test (the markers are registered in pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
# directory under tests/ -> marker; a test module directly in tests/ has no tier and is refused below
TIERS = {"unit": "unit", "integration": "integration", "end_to_end": "end_to_end", "container": "container"}


def tier_of(path: Path) -> str | None:
    try:
        top = Path(path).resolve().relative_to(HERE).parts[0]
    except (ValueError, IndexError):
        return None
    return TIERS.get(top)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item.path)
        if tier is None:
            raise pytest.UsageError(f"{item.nodeid}: a test lives in one of tests/{{{','.join(TIERS)}}}/")
        item.add_marker(tier)
