"""The test tree itself: pytest imports each test file by its base name (the tiers' folders are not packages), so
two files of one name in two tiers break the whole collection, which running one tier alone never shows."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_files_share_a_name() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if "fixtures" not in path.relative_to(TESTS).parts:
            where[path.name].append(str(path.relative_to(TESTS)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}
