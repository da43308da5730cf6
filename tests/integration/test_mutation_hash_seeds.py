"""The mutation engine's variants are the same in processes started with different hash seeds (each one a real
`python -c` run): nothing in it iterates a set or a dict in hash order. The rest of its rules:
tests/unit/test_mutation_engine.py."""

from __future__ import annotations

import os
import subprocess
import sys


def test_determinism_holds_across_processes_with_different_hash_seeds():
    code = (
        "import json; from khaos_action.mutation import mutate; "
        "print(json.dumps([[m.type, m.text, m.index] for p in ['Where is my order 1234?', 'Summarize invoice "
        "INV-2024-0042 in two sentences.'] for m in mutate(p, types='all', per_prompt=20, seed=9)]))"
    )
    outputs = set()
    for hash_seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        outputs.add(
            subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        )
    assert len(outputs) == 1
