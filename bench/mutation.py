"""Mutation engine throughput: variants per second for 14 types x 14 variants per prompt.

Run: python bench/mutation.py
"""

from __future__ import annotations

import time

from khaos_action.mutation import MUTATORS, mutate

PROMPTS = [
    "Where is my order 1234?",
    "Can you cancel order #5521 and refund my card?",
    "What is your return policy for electronics?",
    "I need to change the shipping address for order 88213 to 12 Baker Street, London.",
    "Summarize invoice INV-2024-0042 in two sentences.",
    "If my package is late, can I get a refund? My email is jane.doe@example.com.",
    "How do I reset my password?",
    "My order 4410 arrived damaged, the screen is cracked, and I want a replacement before Friday because it is "
    "a gift.",
]
TYPES = list(MUTATORS)[:14]


def run(rounds: int = 30) -> None:
    per_prompt = 14
    # Warm-up (regex compilation, imports) is not what a run pays per prompt.
    mutate(PROMPTS[0], types=TYPES, per_prompt=per_prompt, seed=0)
    variants = 0
    started = time.perf_counter()
    for seed in range(rounds):
        for prompt in PROMPTS:
            variants += len(mutate(prompt, types=TYPES, per_prompt=per_prompt, seed=seed))
    elapsed = time.perf_counter() - started
    print(f"types: {len(TYPES)} ({', '.join(TYPES)})")
    print(f"{rounds * len(PROMPTS)} prompts x {per_prompt} variants = {variants} variants in {elapsed:.3f} s")
    print(f"{variants / elapsed:,.0f} mutations/s, {elapsed / (rounds * len(PROMPTS)) * 1000:.2f} ms per prompt")

    everything = time.perf_counter()
    count = sum(len(mutate(p, types="all", per_prompt=len(MUTATORS), seed=1)) for p in PROMPTS)
    print(f"all {len(MUTATORS)} types incl. length_long: {count / (time.perf_counter() - everything):,.0f} mutations/s")


if __name__ == "__main__":
    run()
