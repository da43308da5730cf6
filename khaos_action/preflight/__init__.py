"""Checks of a loaded config against the rest of the tool and the agent's code, before anything runs.

config/ is the schema and the loader and sits low in the layers; these checks need what is built on top of it (the
fault registry, the mutators, the agent's importable entry and tools), so they live above those, not in config/.
"""
