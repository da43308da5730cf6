"""Pack references (built-in names or paths) into validated `Pack` models with a content digest.

The digest is a sha256 of the validated, normalised pack (comments, key order and aliases do not change it, any
content does), so a run's config_hash can cover what the packs actually contained, not just their names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import khaos_action
from khaos_action.config.errors import (
    ConfigFileError,
    ConfigIssue,
    KeyPath,
    Position,
    UnknownPackError,
)
from khaos_action.config.loader import YamlDocument, read_yaml, validate
from khaos_action.config.models import Pack

if TYPE_CHECKING:
    from khaos_action.config.loader import LoadedConfig

PACK_SUFFIXES = (".yaml", ".yml")
BUILTIN_PREFIX = "builtin:"


@dataclass(frozen=True)
class LoadedPack:
    pack: Pack
    source: str
    """`builtin:<name>` or the resolved path of the pack file."""
    digest: str
    """sha256 (hex) of the normalised pack content."""
    path: Path | None = None
    """The file it was read from."""
    positions: dict[KeyPath, Position] = field(default_factory=dict, repr=False, compare=False)
    """Key path -> (line, column) in the pack file, for errors found after validation."""

    def issue(self, path: KeyPath, message: str, hint: str | None = None) -> ConfigIssue:
        """A problem in this pack found after validation (e.g. a fault the registry rejects), with its line."""
        line, column = YamlDocument(None, self.positions, {}).locate(tuple(path)) or (None, None)
        return ConfigIssue(str(self.path or self.source), line, column, tuple(path), message, hint)


def builtin_packs_dir() -> Path:
    """The folder holding the built-in packs (the repository's packs/, shipped as `khaos_action.packs`)."""
    try:
        return Path(str(resources.files("khaos_action.packs")))
    except ModuleNotFoundError:
        # An install that does not map `khaos_action.packs` (e.g. an editable install made before the mapping
        # existed) still has the source tree next to the package.
        fallback = Path(khaos_action.__file__).resolve().parent.parent / "packs"
        if fallback.is_dir():
            return fallback
        raise UnknownPackError(
            "the built-in packs are missing from this installation (no `khaos_action.packs` package); "
            "reinstall khaos-action, or give packs as paths to .yaml files") from None


def builtin_pack_names() -> list[str]:
    """Names usable in `packs:` and `--pack` (the attack corpus folder is data, not a pack)."""
    folder = builtin_packs_dir()
    return sorted(path.stem for path in folder.iterdir() if path.is_file() and path.suffix in PACK_SUFFIXES)


def pack_digest(pack: Pack) -> str:
    """sha256 of the pack as validated: defaults filled, aliases resolved, keys sorted."""
    blob = json.dumps(pack.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def resolve_pack(ref: str, base_dir: Path) -> tuple[Path, str]:
    """The file a pack reference means and its `source` label; raises UnknownPackError listing the names."""
    ref = ref.strip()
    looks_like_path = any(sep in ref for sep in ("/", "\\")) or ref.endswith(PACK_SUFFIXES)
    if not looks_like_path:
        for suffix in PACK_SUFFIXES:
            candidate = builtin_packs_dir() / f"{ref}{suffix}"
            if candidate.is_file():
                return candidate, f"{BUILTIN_PREFIX}{ref}"
    path = Path(ref).expanduser()
    path = path if path.is_absolute() else base_dir / path
    if path.is_file():
        return path, str(path)
    names = ", ".join(builtin_pack_names())
    if looks_like_path:
        raise UnknownPackError(f"pack file not found: {ref} (looked for {path}). Built-in packs: {names}.")
    raise UnknownPackError(
        f"unknown pack {ref!r}: use a built-in pack ({names}) or a path to a .yaml file "
        f"(relative to {base_dir}).")


def load_pack_file(path: Path, *, source: str | None = None) -> LoadedPack:
    """Read and validate one pack file (errors name the pack file's line and column, like the config's)."""
    document = read_yaml(path, what="pack")
    pack = validate(Pack, document, file=str(path))
    return LoadedPack(pack=pack, source=source or str(path), digest=pack_digest(pack), path=path,
                      positions=document.positions)


def load_pack(ref: str, base_dir: Path) -> Pack:
    """One pack by built-in name or by path (relative to `base_dir`, the config's folder)."""
    path, source = resolve_pack(ref, base_dir)
    return load_pack_file(path, source=source).pack


def load_packs(refs: Iterable[str], base_dir: Path, *, origin: LoadedConfig | None = None) -> list[LoadedPack]:
    """Every referenced pack, in order, each once; all problems are reported together.

    With `origin` (the loaded khaos.yaml the refs came from), an unknown name points at its `packs:` line."""
    loaded: list[LoadedPack] = []
    unknown: list[ConfigIssue] = []
    broken: list[ConfigIssue] = []
    seen: set[Path] = set()
    for index, ref in enumerate(refs):
        try:
            path, source = resolve_pack(ref, base_dir)
        except UnknownPackError as exc:
            unknown.append(_unknown_issue(exc, index, origin))
            continue
        if path.resolve() in seen:
            continue
        seen.add(path.resolve())
        try:
            loaded.append(load_pack_file(path, source=source))
        except ConfigFileError as exc:
            broken.extend(exc.issues)
    if unknown and not broken and origin is None:
        raise UnknownPackError("\n".join(issue.message for issue in unknown))
    if unknown or broken:
        raise ConfigFileError(unknown + broken)
    return loaded


def _unknown_issue(exc: UnknownPackError, index: int, origin: LoadedConfig | None) -> ConfigIssue:
    if origin is None:
        return ConfigIssue("packs", None, None, (), str(exc))
    line, column = origin.position_of("packs", index) or (None, None)
    return ConfigIssue(str(origin.path), line, column, ("packs", index), str(exc))
