"""Fixed costs: what `khaos-action --help` imports in a real process (argv from sys.argv, the path that
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


EXIT = """
import atexit, sys
class Loud:
    def __del__(self):
        print("torn down", flush=True)
keep = Loud()  # a module global: the interpreter's teardown would call __del__
atexit.register(lambda: print("atexit ran"))
sys.argv = ["khaos-action", "validate", "-c", "missing.yaml"]
from khaos_action.cli import main
print("exit code", main())  # never printed: a real process ends inside main
"""


def test_a_real_process_exits_with_its_code_after_atexit_and_without_tearing_its_modules_down(tmp_path):
    proc = subprocess.run([sys.executable, "-c", EXIT], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "missing.yaml" in proc.stderr  # the error, flushed before the exit
    assert proc.stdout.splitlines() == ["atexit ran"]  # no "exit code …" (main did not return), no "torn down"


LATER = """
import sys
from khaos_action.pipeline.preimport import LATER_STAGES, import_later_stages
from khaos_action.reporters import REPORTERS, Reporter
REPORTERS.add("broken", Reporter(name="broken", file="broken.txt", summary="a renderer module that fails to import",
                                 render="khaos_no_such_module:render"))
import_later_stages(["broken", "md"])
print(all(name in sys.modules for name in LATER_STAGES), "khaos_action.report.markdown" in sys.modules)
"""


def test_the_imports_done_while_the_agent_starts_are_best_effort(tmp_path):
    # Only done early, never instead of the import where the module is used: one that fails there must not stop
    # the run from the side thread (its real error is raised where it is used), and the others are still done.
    (tmp_path / "khaos_no_such_module.py").write_text("raise RuntimeError('deadlock detected (stand-in)')\n")
    proc = subprocess.run([sys.executable, "-c", LATER], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True"]


EARLY = """
import os, sys
from pathlib import Path
from khaos_action.evaluate import evaluate
from khaos_action.config.yaml_file import read_config
from khaos_action.engine.transport.early import early_zygote
zygote = early_zygote(read_config(Path("khaos.yaml")), dict(os.environ))
heavy = sorted(m for m in sys.modules if m in ("pydantic", "asyncio", "khaos_action.config.models",
                                               "khaos_action.engine.worker.zygote"))
print(zygote is not None, heavy)
zygote.discard()
"""


def test_a_run_starts_its_zygote_before_it_imports_pydantic_asyncio_or_the_config_models(tmp_path):
    # The point of the early start (engine/transport/early.py): it boots while this process imports those.
    (tmp_path / "agent.py").write_text("def handle(text):\n    return text\n")
    (tmp_path / "khaos.yaml").write_text("version: 1\nagent: {entry: agent.py:handle}\n")
    proc = subprocess.run([sys.executable, "-c", EARLY], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "[]"]


def test_help_reads_the_format_registry_without_importing_any_renderer() -> None:
    code = ("import sys\nfrom khaos_action.cli import main\ntry:\n    main(['run', '--help'])\nexcept SystemExit:\n"
            "    pass\nprint(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'jinja2', 'httpx') "
            "or m.startswith(('khaos_action.report', 'khaos_action.config'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert "comma list of md, junit, sarif, json, html" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "['khaos_action.reporters']"
