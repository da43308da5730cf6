"""The python agent's worker processes, both sides of the pipe.

The engine's side: `pool` (WorkerTransport: which worker serves which case), `start` (how a worker or the zygote is
started: interpreter, environment, sandbox limits, paths), `process` and `zygote_process` (one process each, their
pipes and lifetimes), `zygote` (forking workers from a process that has imported the agent once), `news` (what a
worker reports besides replies). The worker's side, run as `python engine/worker/boot.py` and never imported by the
engine: `boot` (paths, then the zygote's or a worker's loop), `child_setup` (the agent imported, its tools wrapped),
`serve` and `child` (one case at a time, or lanes of them), `reports` (what the worker tells the engine).
"""
