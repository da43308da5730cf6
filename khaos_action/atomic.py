"""Files whole or absent: every report and the manifest are written to a temp file beside the target, fsynced and
renamed over it, so a kill, a full disk or `ulimit -f` never leaves a truncated file (POSIX rename is atomic)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from khaos_action.errors import output_error


def write_atomic(path: Path, data: str | bytes, *, kept: str = "") -> None:
    """Replace `path` with `data` (str is written as UTF-8; a lone surrogate becomes U+FFFD instead of an error).
    An OSError (disk full, EFBIG, permission) is an OutputError (exit 3) naming the file; `kept` says what survives."""
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    with atomic_file(path, kept=kept) as handle:
        handle.write(raw)


@contextmanager
def atomic_file(path: Path, *, kept: str = "") -> Iterator[BinaryIO]:
    """A binary handle for streaming writers; `path` appears, whole, only when the block ends without an error."""
    path = Path(path)
    tmp = temp_beside(path)
    try:
        with staged_file(tmp) as handle:
            yield handle
        try:
            os.replace(tmp, path)
        except BaseException:
            discard(tmp)
            raise
        fsync_dir(path.parent)
    except OSError as exc:
        raise output_error(path, exc, kept=kept) from None


def temp_beside(path: Path) -> Path:
    """Where `path` is written before it is renamed over: a hidden name in the same directory (same file system)."""
    return path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"


@contextmanager
def staged_file(tmp: Path) -> Iterator[BinaryIO]:
    """Write `tmp` and fsync it; the caller renames it over the target (or unlinks it). Removed again if the block
    fails; OSErrors are the caller's to word (it knows which target the file stands for)."""
    # os.open with 0o666 so the umask applies as for any file we write (mkstemp would make it 0600).
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        discard(tmp)
        raise


def discard(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def fsync_dir(directory: Path) -> None:
    """Make the rename itself durable; not every file system allows it, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def stamp(path: Path) -> tuple[int, int] | None:
    """(inode, mtime) of `path`, None when absent: a file written here is renamed into place, so a new stamp after
    a write means it was written (whole), the same one that it was not (what an interrupted command reports)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns
