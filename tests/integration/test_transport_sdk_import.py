"""Importing the SDK must not drag in the engine: agents depend on it in production."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_sdk_imports_nothing_else_of_ours_nor_heavy_libraries():
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", "import khaos_action.sdk"],
                            capture_output=True, text=True, check=True)
    modules = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "|" in line]
    ours = {m for m in modules if m.startswith("khaos_action")}
    assert ours == {"khaos_action", "khaos_action.sdk"}
    heavy = {"pydantic", "httpx", "yaml", "asyncio", "inspect", "jinja2"}
    assert heavy.isdisjoint(modules), heavy & set(modules)
    sdk_line = next(line for line in result.stderr.splitlines() if line.rstrip().endswith("| khaos_action.sdk"))
    assert int(sdk_line.split("|")[1]) < 20_000  # cumulative µs, including compiling it without a .pyc
