"""What a failed write leaves whole in the output folder: the words an OutputError ends with, shared by the
writer of one process (writers.py) and the forked one (forked_writer.py)."""

from __future__ import annotations

from pathlib import Path


def kept_note(out_dir: Path, written: list[Path]) -> str:
    names = ["events.jsonl"] if (out_dir / "events.jsonl").exists() else []
    names += [p.name for p in written]
    return f"kept whole in {out_dir}: {', '.join(names)}" if names else "nothing was written"
