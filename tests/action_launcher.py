"""Test-only: the action's entrypoint run with another evaluate function, as `python entrypoint.py` runs it.

    python tests/action_launcher.py tests.github_api:evaluate_golden_prompts

The shipped entrypoint has no such seam (which code evaluates is `entrypoint.main(evaluate=...)`'s parameter, never
the environment's choice); end-to-end and container tests start this file instead, with entrypoint.py importable
(PYTHONPATH=<repo>, or mounted next to it in the image).
"""

from __future__ import annotations

import importlib
import os
import sys


def main() -> int:
    import entrypoint

    module, _, name = sys.argv[1].partition(":")
    evaluate = getattr(importlib.import_module(module), name or "evaluate")
    return entrypoint.launch([os.path.abspath(__file__), *sys.argv[1:]], evaluate)


if __name__ == "__main__":
    sys.exit(main())
