"""Fixed costs: `khaos-action --help` (target ≤ 50 ms) and `import khaos_action.evaluate` (what every run pays
before its first case), as repeated fresh processes the way hyperfine measures a command: warm-up runs, then N
timed runs, median and range. The bare interpreter (`python -c pass`) is measured the same way beside them: on
this machine it includes the site-packages start-up hooks of the sandbox (a `.pth` that imports certifi), which
the Docker image does not have; the difference is what khaos-action itself costs.

`--baseline DIR` measures another checkout (e.g. a worktree of main) the same way, interleaved: an A/B on a shared
machine. Each command runs with its checkout as the working directory (`-c` puts the working directory first on
sys.path).

Run: `python bench/startup.py [--runs 30] [--baseline DIR]`
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "khaos-action --help": ["-c", "import sys; from khaos_action.cli import main; sys.exit(main())", "--help"],
    "import khaos_action.evaluate": ["-c", "import khaos_action.evaluate"],
}


def timed(args: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                          cwd=cwd)
    elapsed = time.perf_counter() - started
    assert proc.returncode in (0, 2), proc.stderr.decode()[-2000:]
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to measure the same way")
    args = parser.parse_args()
    roots = {"": Path(__file__).resolve().parents[1]}
    if args.baseline is not None:
        roots[f"baseline ({args.baseline.name}): "] = args.baseline.resolve()
    envs = {label: {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
            for label, root in roots.items()}
    print(f"{args.runs} runs each after {args.warmup} warm-up runs, interleaved; load average "
          f"{os.getloadavg()[0]:.2f} at start")
    runs = [(label + name, argv, label) for label in roots for name, argv in COMMANDS.items()
            if not (label and name == "python -c pass")]
    samples: dict[str, list[float]] = {name: [] for name, _, _ in runs}
    for _ in range(args.warmup):
        for _name, argv, label in runs:
            timed(argv, envs[label], roots[label])
    for _ in range(args.runs):
        for name, argv, label in runs:
            samples[name].append(timed(argv, envs[label], roots[label]))
    bare = statistics.median(samples["python -c pass"])
    for name, values in samples.items():
        median = statistics.median(values)
        extra = "" if name == "python -c pass" else f"   (+{(median - bare) * 1000:.0f} ms over the bare interpreter)"
        target = "   target ≤ 50 ms" if name.endswith("--help") else ""
        print(f"  {name:42s} median {median * 1000:6.1f} ms  min {min(values) * 1000:6.1f}  "
              f"max {max(values) * 1000:6.1f}{extra}{target}")
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
