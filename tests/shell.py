"""What a shell hands `evaluate`: the test process's own environment (read at call time, after monkeypatch.setenv)
and the real clients, clock and git reader. Tests that need another environment build their own `Services`."""

from __future__ import annotations

import os

from khaos_action.services import Services


def services() -> Services:
    return Services(environ=dict(os.environ))
