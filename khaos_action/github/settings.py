"""The action's settings: its inputs (`INPUT_<NAME>`, hyphens kept) and the runner's environment, validated once."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
)

from khaos_action.errors import ConfigError

FailOn = Literal["critical", "regression", "threshold", "never"]
FAIL_ON_CHOICES = ("critical", "regression", "threshold", "never")

INPUTS: dict[str, str] = {
    # action.yml input name → settings field (a test checks this against action.yml).
    "config": "config",
    "packs": "packs",
    "seed": "seed",
    "concurrency": "concurrency",
    "github-token": "github_token",
    "comment": "comment",
    "baseline": "baseline",
    "baseline-path": "baseline_path",
    "baseline-artifact": "baseline_artifact",
    "baseline-workflow": "baseline_workflow",
    "fail-on": "fail_on",
    "min-score": "min_score",
    "shard": "shard",
    "working-directory": "working_directory",
    "install": "install",
    "install-timeout": "install_timeout",
    "max-memory-mb": "max_memory_mb",
    "max-processes": "max_processes",
    "max-disk-mb": "max_disk_mb",
    "manifest": "manifest",
    "github-max-wait": "github_max_wait",
    "extensions": "extensions",
}

RUNNER_ENV = (
    "GITHUB_API_URL", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GITHUB_REF", "GITHUB_SHA",
    "GITHUB_RUN_ID", "GITHUB_SERVER_URL", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "RUNNER_TEMP",
    "GITHUB_WORKFLOW_REF",
)


class ActionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, frozen=True)

    config: str = "khaos.yaml"
    """Path of the khaos.yaml, relative to `working_directory`."""
    packs: list[str] = []
    """Packs to run instead of the config's (comma or newline separated)."""
    seed: int | None = None
    concurrency: int | None = Field(None, ge=1, le=512)
    github_token: SecretStr | None = None
    """Token for comments and the baseline artifact; never shown, never given to the agent."""
    comment: Literal["always", "on-failure", "never"] = "always"
    baseline: Literal["artifact", "path", "none"] = "artifact"
    baseline_path: str | None = None
    baseline_artifact: str = "khaos-baseline"
    baseline_workflow: str | None = None
    """The workflow file whose base-branch runs upload the baseline (a name in .github/workflows/ or a path);
    default: this run's own workflow."""
    fail_on: list[FailOn] = ["critical", "regression", "threshold"]
    min_score: float | None = Field(None, ge=0, le=100)
    shard: tuple[int, int] | None = None
    """(index, total), 1-based."""
    working_directory: str = "."
    install: str | None = None
    """Shell command run in `working_directory` before the agent starts."""
    install_timeout: float = Field(300.0, gt=0, le=21600)
    """Seconds `install` may run; past them its processes are killed and the job stops (exit 3)."""
    max_memory_mb: int = Field(4096, ge=64)
    """Memory all pull-request processes (`install`, the agent's) may use together (their proportional set size)."""
    max_processes: int = Field(256, ge=16, le=65536)
    """Processes and threads the agent user may run at once (RLIMIT_NPROC)."""
    max_disk_mb: int = Field(2048, ge=64)
    """Disk pull-request code may fill in all while the action runs."""
    manifest: str | None = None
    """Report on this existing manifest (e.g. `khaos-action merge` output) instead of running the agent."""
    github_max_wait: float = Field(300.0, ge=0, le=3600)
    """Seconds of waiting on GitHub (rate limits, retries) allowed over the whole job."""
    extensions: list[str] = []
    """Extension modules or .py files (relative to `working_directory`) imported before the config is loaded;
    comma or newline separated. Never from khaos.yaml: an extension runs in the process that holds the token."""

    GITHUB_API_URL: str = "https://api.github.com"
    GITHUB_REPOSITORY: str | None = None
    GITHUB_EVENT_PATH: str | None = None
    GITHUB_EVENT_NAME: str | None = None
    GITHUB_REF: str | None = None
    GITHUB_SHA: str | None = None
    GITHUB_RUN_ID: str | None = None
    GITHUB_SERVER_URL: str = "https://github.com"
    GITHUB_OUTPUT: str | None = None
    GITHUB_STEP_SUMMARY: str | None = None
    GITHUB_WORKSPACE: str | None = None
    GITHUB_WORKFLOW_REF: str | None = None
    RUNNER_TEMP: str | None = None

    @field_validator("packs", "extensions", mode="before")
    @classmethod
    def _split_packs(cls, value: Any) -> Any:
        return _split_list(value) if isinstance(value, str) else value

    @field_validator("fail_on", mode="before")
    @classmethod
    def _split_fail_on(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [item.lower() for item in _split_list(value)]
            if not value:
                raise ValueError(f"must name at least one of {', '.join(FAIL_ON_CHOICES)}")
        return value

    @field_validator("fail_on")
    @classmethod
    def _never_alone(cls, value: list[str]) -> list[str]:
        if "never" in value and len(value) > 1:
            raise ValueError("`never` cannot be combined with other gates; use `never` alone")
        return list(dict.fromkeys(value))

    @field_validator("shard", mode="before")
    @classmethod
    def _parse_shard(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", value)
        if not match:
            raise ValueError("must look like I/N, e.g. 1/4")
        index, total = int(match[1]), int(match[2])
        if not 1 <= index <= total:
            raise ValueError(f"shard index must be between 1 and {total} (got {index}/{total})")
        return (index, total)

    @field_validator("comment", "baseline", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("baseline_artifact", "config", "working_directory")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()

    @field_validator("GITHUB_API_URL", "GITHUB_SERVER_URL")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> ActionSettings:
        """Read inputs as the runner passes them (`INPUT_FAIL-ON`); `INPUT_FAIL_ON` is accepted for other CIs.

        An empty input means "not set" (the runner passes unset inputs as empty strings).
        """
        data: dict[str, Any] = {}
        for name, field in INPUTS.items():
            value = _input(environ, name)
            if value is not None:
                data[field] = value
        if "github_token" not in data and environ.get("GITHUB_TOKEN", "").strip():
            data["github_token"] = environ["GITHUB_TOKEN"].strip()
        for name in RUNNER_ENV:
            if environ.get(name, "").strip():
                data[name] = environ[name].strip()
        if data.get("baseline") == "path" and not data.get("baseline_path"):
            raise ConfigError("input `baseline` is `path` but `baseline-path` is empty; set `baseline-path` to a "
                              "manifest.json or use `baseline: artifact`")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(_explain(exc)) from None

    @property
    def token(self) -> str | None:
        return self.github_token.get_secret_value() if self.github_token else None

    @property
    def expected_workflow(self) -> str | None:
        """The workflow file a baseline artifact must come from (github/provenance.py)."""
        from khaos_action.github.provenance import expected_workflow

        return expected_workflow(self.baseline_workflow, self.GITHUB_WORKFLOW_REF, self.GITHUB_REPOSITORY)

    @property
    def run_url(self) -> str | None:
        if self.GITHUB_REPOSITORY and self.GITHUB_RUN_ID:
            return f"{self.GITHUB_SERVER_URL}/{self.GITHUB_REPOSITORY}/actions/runs/{self.GITHUB_RUN_ID}"
        return None

    def places(self, cwd: str) -> Places:
        """Where the action works: `cwd` is the directory it started in (the workspace when the runner sets none)."""
        workspace = Path(self.GITHUB_WORKSPACE or cwd).resolve()
        return Places(workspace=workspace, workdir=Path(os.path.abspath(workspace / self.working_directory)))


@dataclass(frozen=True, slots=True)
class Places:
    """The workspace and the working directory, computed once (`ActionSettings.places`) and handed to set-up and to
    the action's flow. `workdir` is not resolved: a link committed on the way to it is refused where it is opened."""

    workspace: Path
    workdir: Path


def _input(environ: Mapping[str, str], name: str) -> str | None:
    for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('-', '_')}"):
        value = environ.get(key)
        if value is not None and value.strip():
            return value.strip() if name != "install" else value
    return None


def _split_list(value: str) -> list[str]:
    return [item.strip() for item in re.split(r"[,\n]", value) if item.strip()]


def _explain(exc: ValidationError) -> str:
    fields_to_inputs = {field: name for name, field in INPUTS.items()}
    lines = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else "?"
        name = fields_to_inputs.get(field)
        where = f"input `{name}` (INPUT_{name.upper()})" if name else f"environment variable {field}"
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "literal_error":
            message = f"{message}; fix the value in the workflow's `with:` block"
        shown = "" if field == "github_token" else f" (got {str(error.get('input'))[:80]!r})"
        lines.append(f"{where}: {message}{shown}")
    return "invalid action inputs:\n  " + "\n  ".join(lines)
