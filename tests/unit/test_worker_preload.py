"""The python agent's zygote imports PRELOAD once for every worker; a name that no longer imports is skipped there
without a word, and each of 32 workers pays for the import again. Our own modules must stay importable
under the names listed (a module moved without updating PRELOAD fails here)."""

from __future__ import annotations

import importlib.util

from khaos_action.engine.transport.preload import HTTP_LIBRARIES
from khaos_action.engine.worker.start import PRELOAD


def test_our_preloaded_modules_exist_under_the_names_the_zygote_imports():
    ours = [name for name in PRELOAD + HTTP_LIBRARIES if name.startswith("khaos_action.")]
    assert len(ours) == 6, PRELOAD + HTTP_LIBRARIES
    for name in ours:
        assert importlib.util.find_spec(name) is not None, name


def test_aiohttp_which_the_interception_patches_in_every_worker_is_preloaded_for_agents_that_may_use_it():
    assert "aiohttp" in HTTP_LIBRARIES and importlib.util.find_spec("aiohttp") is not None
