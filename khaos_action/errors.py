"""The one exception family; each subclass carries the exit code the CLI and the action return."""

from __future__ import annotations


class KhaosError(Exception):
    """An error the user can act on: shown without a traceback."""

    exit_code = 2


class ConfigError(KhaosError):
    """The configuration or the command line is wrong (exit 2)."""

    exit_code = 2


class UsageError(KhaosError):
    """The command line is wrong (exit 2)."""

    exit_code = 2


class AgentError(KhaosError):
    """The agent could not be started or reached at all (exit 3)."""

    exit_code = 3
