"""Files whole or absent: every report and the manifest are written to a temp file beside the target, fsynced and
renamed over it, so a kill, a full disk or `ulimit -f` never leaves a truncated file (POSIX rename is atomic).

Every write here goes through a descriptor of its directory (khaos_action.nofollow.open_dir): inside the action's
workspace that directory was reached without following a link, the temp file is created with O_EXCL | O_NOFOLLOW
and renamed in that same directory, and a link where the file goes is an error naming it, never replaced or
followed.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

from khaos_action.errors import output_error
from khaos_action.nofollow import LinkRefused, open_dir, refuse_link, shown_below

_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


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
            replace(tmp, path)
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
    # 0o666 so the umask applies as for any file we write (mkstemp would make it 0600).
    with open_dir(tmp.parent) as directory:
        fd = os.open(tmp.name, _NEW, 0o666, dir_fd=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        discard(tmp)
        raise


def replace(tmp: Path, path: Path) -> None:
    """Rename `tmp` over `path` (the same directory); a link at `path` is refused, never replaced."""
    with open_dir(path.parent) as directory:
        refuse_link(directory, path.name, shown_below(path))
        os.rename(tmp.name, path.name, src_dir_fd=directory, dst_dir_fd=directory)


def discard(path: Path) -> None:
    try:
        with open_dir(Path(path).parent) as directory:
            os.unlink(Path(path).name, dir_fd=directory)
    except (OSError, LinkRefused):
        pass  # nothing there, or nothing of ours: a temp file is never made through a link


def remove(path: Path) -> None:
    """Unlink `path` (never what a link there points to); OSError as os.unlink raises it."""
    with open_dir(Path(path).parent) as directory:
        os.unlink(Path(path).name, dir_fd=directory)


def make_dirs(path: Path) -> None:
    """`mkdir -p path`, reached without following a link inside the action's workspace; OutputError when it
    cannot be made."""
    try:
        with open_dir(path, create=True):
            pass
    except OSError as exc:
        raise output_error(path, exc) from None


def open_text(path: Path) -> TextIO:
    """`path` truncated and opened for writing text (a log written line by line: events.jsonl); its directory is
    made. errors="replace": a lone surrogate that slipped past the writer never stops it."""
    path = Path(path)
    with open_dir(path.parent, create=True) as directory:
        refuse_link(directory, path.name, shown_below(path))
        fd = os.open(path.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666,
                     dir_fd=directory)
    return os.fdopen(fd, "w", encoding="utf-8", errors="replace")


def symlink(target: str, path: Path) -> None:
    """`path` → `target`, replacing a link or file already there (never what it points to)."""
    path = Path(path)
    with open_dir(path.parent, create=True) as directory:
        try:
            os.unlink(path.name, dir_fd=directory)
        except FileNotFoundError:
            pass
        os.symlink(target, path.name, dir_fd=directory)


def fsync_dir(directory: Path) -> None:
    """Make the rename itself durable; not every file system allows it, which is fine."""
    try:
        with open_dir(directory) as fd:
            os.fsync(fd)
    except OSError:
        pass


def stamp(path: Path) -> tuple[int, int] | None:
    """(inode, mtime) of `path`, None when absent: a file written here is renamed into place, so a new stamp after
    a write means it was written (whole), the same one that it was not (what an interrupted command reports)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns
