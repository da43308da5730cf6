"""The python agents' zygote imports the HTTP libraries only when the agent may use them."""

from __future__ import annotations

from pathlib import Path

import pytest

from khaos_action.engine.transport.preload import HTTP_LIBRARIES, URLLIB, http_preload


@pytest.mark.parametrize(("source", "preloaded"), [
    ("import asyncio, os\nfrom json import dumps\n\nasync def handle(text):\n    return text\n", False),
    ("import asyncio\n\ndef handle(text):\n    import openai  # inside a function counts too\n", True),
    ("from tools import lookup\n", True),  # a sibling module may import anything
    ("from . import tools\n", True),
    ("import xml.etree.ElementTree as ET\nimport importlib\n", False),
    ("def broken(:\n", True),
])
def test_an_entry_file_importing_only_the_standard_library_preloads_nothing(tmp_path: Path, source: str,
                                                                             preloaded: bool):
    (tmp_path / "agent.py").write_text(source)
    assert http_preload("agent.py:handle", tmp_path) == (list(HTTP_LIBRARIES) if preloaded else [])


def test_modules_packages_and_entries_that_cannot_be_read_preload_everything(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("import os\n")
    (tmp_path / "pkg" / "bot.py").write_text("import json\n")
    assert http_preload("pkg.bot:handle", tmp_path) == []
    assert http_preload("pkg:handle", tmp_path) == []
    assert http_preload("installed_somewhere.agent:handle", tmp_path) == list(HTTP_LIBRARIES)
    assert http_preload("missing.py:handle", tmp_path) == list(HTTP_LIBRARIES)
    assert http_preload(None, tmp_path) == list(HTTP_LIBRARIES)


@pytest.mark.parametrize("source", ["import urllib.request\n", "from urllib.request import urlopen\n",
                                    "import json\n\ndef handle(text):\n    import urllib.request\n",
                                    "import http.client\n", "from http.client import HTTPSConnection\n"])
def test_a_standard_library_agent_using_urllib_preloads_urllib_and_its_interception(tmp_path: Path, source: str):
    (tmp_path / "agent.py").write_text(source)
    assert http_preload("agent.py:handle", tmp_path) == list(URLLIB)
