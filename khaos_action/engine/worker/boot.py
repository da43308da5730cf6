"""Started as `python worker/boot.py READ_FD WRITE_FD PATHS_JSON` (or `zygote CTL_FD PATHS_JSON`) by
engine/worker/start.py, with any Python interpreter (the agent's own venv's included): standard library only
until our package is on sys.path.

PATHS_JSON is {"front": [...], "back": [...]}: "front" holds the folder our package is imported from (and, for an
interpreter that is not ours, the site-packages our package needs), put first while the worker's own modules are
imported; then those site-packages move to the end of sys.path, so the agent's own packages win for everything
the worker did not import itself.
"""

import json
import sys

FOREIGN_EAGER = ("khaos_action.config.agents", "khaos_action.faults", "khaos_action.engine.chaos.plan",
                 "khaos_action.engine.chaos.tools", "khaos_action.engine.runner")
"""What a worker imports only once a case needs it (the config's models, faults, tool wrappers: pydantic,
annotated_types and regex underneath), imported at the start anyway when the agent's interpreter is not ours: once
the agent's packages come first, a late import would take the agent's pydantic (a venv with pydantic 1 broke every
case with `cannot import name 'ValidationInfo'`). With our own interpreter the two are one environment."""


def boot() -> int:
    """`READ_FD WRITE_FD PATHS`: be one worker. `zygote CTL_FD PATHS`: import once, then fork workers on request
    (engine/worker/child.py `zygote`), so each new worker skips the imports. `check WRITE_FD PATHS`: `validate`'s
    and `init`'s look at the agent's code (engine/agent_check.py)."""
    first, second, paths = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    back = _our_paths_first(paths)
    sys.argv = sys.argv[:1]
    from khaos_action.engine.worker import child

    if back:  # another interpreter: see FOREIGN_EAGER
        for name in FOREIGN_EAGER:
            __import__(name)
    check = None
    if first == "check":  # imported while our packages come first, as the worker module is
        from khaos_action.engine import agent_check as check
    _yield_to_agent(back)
    if check is not None:  # `validate` and `init`: import the agent, look at it, answer once (engine/agent_check.py)
        return check.main(second)
    if first == "zygote":
        _preload(paths.get("preload") or [])
        return child.zygote(second)
    return child.main(int(first), second)


def _our_paths_first(paths: dict) -> list:
    """Our package's folders first on sys.path (this script's own folder off it: its modules must not shadow the
    agent's); returns the "back" ones, which yield to the agent's once the worker's modules are imported."""
    here = sys.path[0]  # this script's folder (khaos_action/engine/worker)
    if here and here.rstrip("/").endswith("engine/worker"):
        del sys.path[0]
    front, back = list(paths.get("front") or ()), list(paths.get("back") or ())
    sys.path[:0] = [p for p in front + back if p not in sys.path]
    return back


def _yield_to_agent(back: list) -> None:
    """Our dependencies move to the end of sys.path: from here on the agent's packages win."""
    for path in back:
        while path in sys.path:
            sys.path.remove(path)
        sys.path.append(path)


def _preload(names: list) -> None:
    """Libraries every worker imports anyway (the HTTP interception), imported once in the zygote."""
    for name in names:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - absent or broken: the worker imports it (or not) itself
            pass


if __name__ == "__main__":
    sys.exit(boot())
