"""Your own attacks: the `attacks:` files and folders that khaos.yaml and packs name, as the corpus's `Attack`s.

A user attack file has the built-in corpus's shape (`{version?, defaults?, attacks: [...]}`, packs/attacks/*.yaml)
and is validated by the same `Attack` model, so built-in and user attacks are one schema and one code path. It is
read by the config loader: the size and shape limits of config files, duplicate keys refused, and every problem
reported with file:line:col, the key path and a fix. Paths are relative to the file that names them and must stay
inside the repository (resolved, symlinks followed, then checked), so a pull request cannot point the run at a file
elsewhere on the runner. An id that a built-in attack or another user attack already has is an error naming both.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from khaos_action.config.corpus import INDIRECT_CHANNELS, Attack, Corpus
from khaos_action.config.errors import ConfigFileError, ConfigIssue, KeyPath, Position, validation_issues
from khaos_action.config.loader import YamlDocument, read_yaml, validate

SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class AttackRef:
    """One `attacks:` entry and where it is written (its file, key path and position there)."""

    ref: str
    origin: Path
    """The khaos.yaml or pack file that names it; a relative path starts in its folder."""
    root: Path = Path("/")
    """The repository the path must stay in."""
    key: KeyPath = ()
    position: Position | None = None

    def issue(self, message: str, hint: str | None = None) -> ConfigIssue:
        line, column = self.position or (None, None)
        return ConfigIssue(shown(self.origin), line, column, self.key, message, hint)


@dataclass(frozen=True)
class UserAttacks:
    """The user's attacks, each with where it is defined (`file:line`), and the digest of their content."""

    attacks: dict[str, tuple[Attack, str]] = field(default_factory=dict)
    files: tuple[str, ...] = ()
    """The attack files read, as reports show them."""
    named: dict[str, str] = field(default_factory=dict)
    """The files the attacks name (their `check:` files), as the worker finds them -> sha256 of their bytes."""

    @property
    def digest(self) -> str:
        """sha256 of the attacks as validated (comments, key order and file layout aside): config_hash covers it."""
        blob = json.dumps([[i, a.model_dump(mode="json")] for i, (a, _) in sorted(self.attacks.items())],
                          sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    @property
    def named_digest(self) -> str | None:
        """sha256 of the files the attacks name, byte for byte (a check is part of what decides a verdict, so
        editing one changes config_hash); None when they name none."""
        if not self.named:
            return None
        blob = json.dumps(sorted(self.named.items()), separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def __bool__(self) -> bool:
        return bool(self.attacks)


class _AttackFile(BaseModel):
    """A user attack file: the corpus file's shape, `version` optional (it is not the built-in corpus's)."""

    model_config = ConfigDict(extra="forbid")

    version: str | None = None
    """Your own version of the file (shown nowhere else; the built-in corpus's version is separate)."""
    defaults: dict[str, Any] = {}
    """Keys every attack of the file gets unless it sets them (e.g. `severity`, `owasp`, `channel`)."""
    attacks: list[dict[str, Any]] = Field(min_length=1)
    """The attacks: `id`, `category`, `channel`, `severity`, `owasp`, `objective`, `payload`, ... (docs/attacks.md)."""

    @field_validator("version", mode="before")
    @classmethod
    def _str_version(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) else value


def shown(path: Path) -> str:
    """A path as messages show it: relative to the working directory (the repository root in CI) when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def repository_root(start: Path) -> Path:
    """The repository a config belongs to: the nearest folder above `start` holding `.git`, else `start` itself."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def refs_of(values: Sequence[str], origin: Path, positions: dict[KeyPath, Position], *,
            root: Path) -> list[AttackRef]:
    """The `attacks:` entries of one file, with their positions there; `root`: the repository they must stay in."""
    return [AttackRef(ref, origin, root.resolve(), ("attacks", index), positions.get(("attacks", index)))
            for index, ref in enumerate(values)]


def load_user_attacks(refs: Iterable[AttackRef], *, builtin: Corpus, base_dir: Path | None = None,
                      agent_type: str | None = None) -> UserAttacks:
    """Every attack of every referenced file or folder, validated; all problems are raised together (exit 2).
    `base_dir`: khaos.yaml's folder, which the agent's worker resolves a `check:` file against (a check's path is
    written relative to its attack file and rewritten relative to it). `agent_type`: the agent's `agent.type`; a
    `check:` on a type that cannot run one (it runs in the python worker) is an error at the check's line."""
    issues: list[ConfigIssue] = []
    files = _files(refs, issues)
    attacks: dict[str, tuple[Attack, str]] = {}
    named: dict[str, str] = {}
    for path in files:
        checks = _Checks(path, refs_root(path, refs), base_dir, cannot_run=_cannot_run_checks(agent_type))
        try:
            parsed = _parse_file(path, checks)
        except ConfigFileError as exc:
            issues.extend(exc.issues)
            continue
        named.update(checks.files)
        for attack, where, position in parsed:
            clash = _clash(path, attack, where, position, builtin, attacks)
            if clash is not None:
                issues.append(clash)
            else:
                attacks[attack.id] = (attack, f"{shown(path)}:{position[0] if position else 1}")
    if issues:
        raise ConfigFileError(issues)
    return UserAttacks(attacks=attacks, files=tuple(shown(path) for path in files), named=named)


def _files(refs: Iterable[AttackRef], issues: list[ConfigIssue]) -> list[Path]:
    """The attack files the refs name, each once, in order; a ref that names none adds its issue."""
    files: list[Path] = []
    for ref in refs:
        found, problem = _files_of(ref, ref.root)
        if problem is not None:
            issues.append(problem)
        files.extend(path for path in found if path not in files)
    return files


def _clash(path: Path, attack: Attack, where: Any, position: Position | None, builtin: Corpus,
           attacks: dict[str, tuple[Attack, str]]) -> ConfigIssue | None:
    """The issue of an attack whose id the built-in corpus or an earlier file already defines."""
    clash = builtin.sources.get(attack.id) or (attacks[attack.id][1] if attack.id in attacks else None)
    if clash is None:
        return None
    line, column = position or (None, None)
    return ConfigIssue(
        shown(path), line, column, ("attacks", where, "id"),
        f"attack id {attack.id!r} is already defined in {clash}"
        + (" (the built-in corpus)" if attack.id in builtin.sources else ""),
        "Attack ids are unique across the built-in corpus and your files; rename this one "
        f"(e.g. `{_free_id(attack.id, builtin, attacks)}`)")


def _cannot_run_checks(agent_type: str | None) -> tuple[str, str] | None:
    """(problem, fix) when agents of `agent_type` cannot run a state check, else None. A check runs in the agent's
    python worker, on the case's `agent.context`: an agent in a process or server of its own (http, command, mcp)
    has no worker, so its checks could only ever end UNCERTAIN."""
    if agent_type is None:
        return None
    from khaos_action.transports import TRANSPORTS, transport_entry

    if transport_entry(agent_type).in_process:
        return None
    able = ", ".join(name for name, entry in TRANSPORTS.items() if entry.in_process)
    return (f"agent.type {agent_type} cannot run a state check: checks run in the agent's python worker, on the "
            f"case's agent.context, which only these agent types have: {able}",
            "Judge this attack on what the agent does instead: an `output` objective on its reply (`{output: "
            "{regex: ...}}`) or a `tool_call` objective on the calls it reports (`{tool_call: {tool: ..., args: "
            "...}}`); or run the agent as a python entry (`agent: {type: python, entry: file.py:function}`) to check "
            "its state")


def _free_id(taken: str, builtin: Corpus, attacks: dict[str, Any]) -> str:
    for n in range(2, 100):
        candidate = f"{taken}-{n}"
        if candidate not in builtin.sources and candidate not in attacks:
            return candidate
    return f"{taken}-mine"


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return True


def _files_of(ref: AttackRef, root: Path) -> tuple[list[Path], ConfigIssue | None]:
    """The YAML files a reference names (a folder: every *.yaml / *.yml below it, sorted), or the problem."""
    text = ref.ref.strip()
    path = Path(text).expanduser()
    path = path if path.is_absolute() else ref.origin.resolve().parent / path
    if not text:
        return [], ref.issue("an empty path", "Name an attack file or a folder of them, e.g. `attacks/`")
    if not _inside(path, root):
        return [], ref.issue(f"{text} is outside the repository ({shown(root)})",
                             "Keep attack files in the repository and name them relative to this file; a path "
                             "or symlink leading out of it is never read")
    if path.is_file():
        if path.suffix not in SUFFIXES:
            return [], ref.issue(f"{text} is not a YAML file", "Attack files end in .yaml or .yml")
        return [path], None
    if path.is_dir():
        found = sorted(_yaml_below(path, root))
        if not found:
            return [], ref.issue(f"the folder {text} holds no .yaml or .yml file",
                                 "Put attack files in it, or name the file itself")
        return found, None
    return [], ref.issue(f"no such file or folder: {text} (looked for {shown(path)})",
                         "Paths are relative to the file that names them")


def _yaml_below(folder: Path, root: Path) -> Iterable[Path]:
    for current, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in names:
            path = Path(current) / name
            if path.suffix in SUFFIXES and _inside(path, root) and path.is_file():
                yield path


def refs_root(path: Path, refs: Iterable[AttackRef]) -> Path:
    """The repository an attack file belongs to (the root of the reference that named it)."""
    resolved = path.resolve()
    for ref in refs:
        if resolved.is_relative_to(ref.root):
            return ref.root
    return resolved.parent


@dataclass
class _Checks:
    """Resolves an attack file's `check: file.py:function` refs: relative to the attack file (or, as in khaos.yaml,
    to khaos.yaml's folder), inside the repository, the file there and the function defined at its top level (read,
    never run: pull-request code runs only in the agent's worker), rewritten relative to khaos.yaml's folder."""

    attack_file: Path
    root: Path
    base_dir: Path | None
    cannot_run: tuple[str, str] | None = None
    """(problem, fix) when the agent cannot run a check at all (`_cannot_run_checks`)."""
    problems: list[tuple[KeyPath, str, str]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    """Each check file found (as the worker is told it) -> sha256 of its bytes, for config_hash."""

    def rebase(self, value: Any, at: KeyPath) -> Any:
        if isinstance(value, list):
            return [self.rebase(v, at + (i,)) for i, v in enumerate(value)]
        if not isinstance(value, dict):
            return value
        return {key: self._check(inner, at + (key,)) if key == "check" and isinstance(inner, (str, dict))
                else self.rebase(inner, at + (key,)) for key, inner in value.items()}

    def _check(self, check: str | dict[str, Any], at: KeyPath) -> str | dict[str, Any]:
        """A `check:` (a ref, or a mapping with its `ref`) with its ref rewritten; a problem when the agent cannot
        run checks."""
        ref = check if isinstance(check, str) else check.get("ref")
        where = at if isinstance(check, str) else at + ("ref",)
        if self.cannot_run is not None:
            self.problems.append((where, *self.cannot_run))
        fixed = self.resolve(ref, where) if isinstance(ref, str) and not self.cannot_run else ref
        return fixed if isinstance(check, str) else {**check, "ref": fixed}

    def resolve(self, ref: str, at: KeyPath) -> str:
        target, _, function = ref.strip().rpartition(":")
        if not target.endswith(".py") or not function:
            self._module(target)
            return ref  # `module:function` (a module of the repository or installed) or a malformed ref
        found = self._find(target, at)
        if found is None:
            return ref
        if not _inside(found, self.root):
            self.problems.append((at, f"check file {target} is outside the repository ({shown(self.root)})",
                                  "Keep check files in the repository"))
            return ref
        problem = _defines(found, function)
        if problem:
            self.problems.append((at, problem, f"Define `def {function}(context, reply, tool_calls, case)` at the "
                                               f"top level of {shown(found)}"))
            return ref
        if self.base_dir is None:
            written = found.resolve()
        else:
            written = Path(os.path.relpath(found.resolve(), self.base_dir.resolve()))
        self._hash(written.as_posix(), found)
        return f"{written.as_posix()}:{function}"

    def _find(self, target: str, at: KeyPath) -> Path | None:
        """The check file: relative to the attack file, else to khaos.yaml's folder (a problem when neither)."""
        written = Path(target)
        candidates = [written] if written.is_absolute() else [
            self.attack_file.parent / written, *([self.base_dir / written] if self.base_dir else [])]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            self.problems.append((at, f"check file {target} not found (looked for {shown(candidates[0])})",
                                  "A check's path is relative to this attack file"))
        return found

    def _module(self, dotted: str) -> None:
        """A `module:function` check whose module is a file of the repository (found from khaos.yaml's folder, as
        the worker imports it) is hashed like a file; an installed module is not (its version is the install's)."""
        if self.base_dir is None or not re.fullmatch(r"[A-Za-z_][\w.]*", dotted):
            return
        stem = self.base_dir.joinpath(*dotted.split("."))
        found = next((c for c in (stem.with_suffix(".py"), stem / "__init__.py") if c.is_file()), None)
        if found is not None and _inside(found, self.root):
            self._hash(dotted, found)

    def _hash(self, name: str, path: Path) -> None:
        try:
            self.files[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:  # read a moment ago by `_defines`: say so rather than hash nothing
            self.files[name] = f"unreadable: {type(exc).__name__}"


def _defines(path: Path, name: str) -> str | None:
    """Why `path` cannot give `name` (a syntax error, no such top-level name), read with `ast`, never imported."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, OSError) as exc:
        line = getattr(exc, "lineno", None)
        return f"check file {shown(path)} cannot be imported: {type(exc).__name__}" + (f" at line {line}"
                                                                                        if line else "")
    if any(name in _top_level_names(node) for node in tree.body):
        return None
    return f"check file {shown(path)} defines no `{name}` at its top level"


def _top_level_names(node: Any) -> list[str]:
    """The names a module-level statement binds (a def or class, a plain assignment, an import)."""
    import ast

    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name for a in node.names]
    return []


def _parse_file(path: Path, checks: _Checks) -> list[tuple[Attack, int, Position | None]]:
    """(attack, index in the file, position of its `id`) for every attack of one file; problems as issues."""
    document = read_yaml(path, what="attack")
    parsed = validate(_AttackFile, document, file=shown(path))
    issues: list[ConfigIssue] = []
    result = []
    for index, entry in enumerate(parsed.attacks):
        merged = {**_fallbacks(entry, parsed.defaults, path), **parsed.defaults, **entry}
        origin = ("attacks", index) if "objective" in entry else ("defaults",)
        if "objective" in merged:
            merged["objective"] = checks.rebase(merged["objective"], origin + ("objective",))
        for at, message, hint in checks.problems:
            line, column = document.locate(at, True) or (None, None)
            issues.append(ConfigIssue(shown(path), line, column, at, message, hint))
        checks.problems.clear()
        try:
            attack = Attack.model_validate(merged)
        except ValidationError as exc:
            issues.extend(_attack_issues(exc, merged, entry, index, document, path))
            continue
        result.append((attack, index, document.positions.get(("attacks", index, "id"))
                       or document.positions.get(("attacks", index))))
    if issues:  # a check in `defaults` is every attack's: its problem is said once
        raise ConfigFileError(list(dict.fromkeys(issues)))
    return result


def _fallbacks(entry: dict[str, Any], defaults: dict[str, Any], path: Path) -> dict[str, Any]:
    """What a user attack may leave out that the built-in corpus spells out: where it comes from (`reference`),
    a description, and the tier its channel implies."""
    merged = {**defaults, **entry}
    channel = merged.get("channel")
    return {"reference": f"your attack file {shown(path)}",
            "description": f"{merged.get('id', 'attack')} ({shown(path)})",
            "tier": "tool" if channel in INDIRECT_CHANNELS else "model"}


def _attack_issues(exc: ValidationError, merged: dict[str, Any], entry: dict[str, Any], index: int,
                   document: YamlDocument, path: Path) -> list[ConfigIssue]:
    """Attack's errors, positioned at the key in the attack, else in `defaults`, else at the attack."""
    def file_path(key_path: KeyPath) -> KeyPath:
        if key_path and key_path[0] not in entry and ("defaults", key_path[0]) in document.positions:
            return ("defaults", *key_path)
        return ("attacks", index, *key_path)

    def locate(key_path: KeyPath, value: bool) -> Position | None:
        return document.locate(file_path(tuple(key_path)), value)

    issues = validation_issues(exc, model=Attack, raw=merged, locate=locate, file=shown(path))
    named = f" (attack {entry['id']!r})" if isinstance(entry.get("id"), str) else ""
    out = []
    for issue in issues:
        if not issue.path:  # a rule across keys (Attack._consistent): point at the key its message is about
            key = next((k for words, k in _ABOUT if words in issue.message and k in merged), None)
            where = locate((key,), False) if key else None
            if where is not None:
                issue = replace(issue, path=(key,), line=where[0], column=where[1])
        out.append(replace(issue, path=file_path(issue.path), message=issue.message + named))
    return out


# The key a cross-key rule's message is about, first match wins (the wording of Attack._consistent's errors).
_ABOUT = (("`placement` and `field`", "field"), ("`tool`", "tool"), ("placeholder", "payload"),
          ("{canary", "payload"), ("joined canary", "payload"),
          ("`turns`", "turns"), ("`carrier`", "carrier"), ("`forbidden_tools`", "forbidden_tools"),
          ("`requires`", "requires"))
