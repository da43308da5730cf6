"""Chaos machinery: carrying faults' effects out (tool wrappers, in-process HTTP interception, the chaos proxy) and
a case's fault plan (`plan.py`). The faults themselves, their registry and effects live in `khaos_action.faults`."""
