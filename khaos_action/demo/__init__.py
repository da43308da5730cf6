"""The bundled example: a customer-support agent with real tools and an offline model stand-in (`khaos-action demo`)."""

from __future__ import annotations

from pathlib import Path


def demo_config_path() -> Path:
    return Path(__file__).with_name("khaos.yaml")
