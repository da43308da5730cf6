"""A manifest written by hand, as a run would have written it: its bytes ending with their digest.

`merge` refuses a manifest without a valid digest (khaos_action/manifest.py `check_digest`); tests that edit or
write a manifest's JSON themselves, to check what merge does with its content, sign it with `signed` first.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from khaos_action.manifest import DIGEST_KEY


def signed(raw: bytes) -> bytes:
    """`raw` (a JSON object, compact, without a digest) with the digest a run would end it with."""
    body = raw.rstrip()[:-1]  # without the closing brace
    return body + DIGEST_KEY + hashlib.sha256(body).hexdigest().encode() + b'"}'


def write_signed(path: Path, data: Any) -> Path:
    """`data` written to `path` as compact JSON with its digest."""
    path.write_bytes(signed(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")))
    return path


def signed_copy(source: Path, folder: Path) -> Path:
    """A copy of the manifest file `source` (written before manifests carried a digest) in `folder`, signed."""
    target = folder / source.name
    target.write_bytes(signed(source.read_bytes()))
    return target


def without_digest(raw: bytes) -> bytes:
    """A manifest's bytes as they were before its digest was added."""
    return raw[:raw.rindex(DIGEST_KEY)] + b"}"
