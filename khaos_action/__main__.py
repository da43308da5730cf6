"""`python -m khaos_action` runs the same CLI as the `khaos-action` command (for a Python with no scripts on PATH)."""

import sys

from khaos_action.cli import main

sys.exit(main())
