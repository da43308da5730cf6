"""The image's hash-pinned locks agree with pyproject.toml (refresh them with the command in each file's header)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def read_lock(name: str) -> dict[str, dict]:
    """name -> {version, hashes, via} from a pip-compile --generate-hashes file."""
    pins: dict[str, dict] = {}
    current = None
    for line in (ROOT / name).read_text().splitlines():
        if m := re.match(r"^([A-Za-z0-9_.\-]+)==(\S+) \\$", line):
            current = pins.setdefault(canonicalize_name(m[1]), {"version": m[2], "hashes": [], "via": []})
        elif current is not None and (m := re.match(r"^\s+--hash=sha256:([0-9a-f]{64})", line)):
            current["hashes"].append(m[1])
        elif current is not None and (m := re.match(r"^\s+#\s+(?:via\s+)?(\S.*)$", line)) and m[1] != "via":
            current["via"].append(m[1])
    return pins


@pytest.mark.parametrize("lock, requirements", [
    ("requirements.lock", PYPROJECT["project"]["dependencies"]),
    ("requirements-build.lock", PYPROJECT["build-system"]["requires"]),
])
def test_lock_pins_every_declared_requirement_within_its_range(lock: str, requirements: list[str]) -> None:
    pins = read_lock(lock)
    for text in requirements:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name in pins, f"{name} is declared in pyproject.toml but not pinned in {lock}"
        assert req.specifier.contains(pins[name]["version"], prereleases=True), (
            f"{lock} pins {name}=={pins[name]['version']} outside pyproject's {req.specifier}")


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-build.lock"])
def test_every_pin_has_hashes_and_is_needed(lock: str) -> None:
    pins = read_lock(lock)
    assert pins
    for name, pin in pins.items():
        assert pin["hashes"], f"{name} has no --hash in {lock} (pip --require-hashes would refuse it)"
        # Each pin is required by pyproject or by another pin: nothing stale is left behind.
        via = {canonicalize_name(v.split()[0]) for v in pin["via"]}
        assert via & (set(pins) | {"khaos-action", "-r"}), f"{name} in {lock} is required by nothing: {pin['via']}"


def test_core_lock_has_nothing_beyond_the_core_dependencies_closure() -> None:
    declared = {canonicalize_name(Requirement(r).name) for r in PYPROJECT["project"]["dependencies"]}
    pins = read_lock("requirements.lock")
    direct = {name for name, pin in pins.items() if any(v.startswith("khaos-action") for v in pin["via"])}
    assert direct == declared, "the lock's direct requirements are pyproject's [project] dependencies, no extras"
