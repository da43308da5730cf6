"""khaos-action: chaos and red-team evaluation of AI agents, gating pull requests."""

__version__ = "0.1.0"
