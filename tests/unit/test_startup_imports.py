"""Fixed costs (issue 19): what `khaos-action --help` imports in a real process (argv from sys.argv, the path that
hides the runner's secrets), measured by bench/startup.py; here, that it stays clear of the engine."""

from __future__ import annotations

import subprocess
import sys

HELP = """
import sys
sys.argv = ["khaos-action", "--help"]
from khaos_action.cli import main
try:
    main()
except SystemExit:
    pass
print(sorted(m for m in sys.modules if m.startswith("khaos_action.engine") or m in ("traceback", "pydantic", "yaml")))
"""


def test_help_imports_no_engine_module_no_pydantic_and_no_traceback():
    proc = subprocess.run([sys.executable, "-c", HELP], capture_output=True, text=True, timeout=60, check=True)
    assert "usage: khaos-action" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "[]"
