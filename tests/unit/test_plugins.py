"""`khaos_action.plugins` is the one module an extension imports from: every name it offers is the object of the
module that owns it, type checkers see the same names, and the extension fixtures import nothing else of the
package."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from khaos_action import plugins

EXTENSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "extensions"
RECIPES = sorted(EXTENSIONS.glob("khaos_recipe_*.py"))


@pytest.mark.parametrize("name", plugins.__all__)
def test_each_name_is_the_owner_s_own_object(name: str) -> None:
    owner = importlib.import_module(plugins._OWNER[name])
    assert getattr(plugins, name) is getattr(owner, name)


def test_the_offered_names_the_owners_and_the_type_checking_imports_agree() -> None:
    assert sorted(plugins.__all__) == sorted(plugins._OWNER)
    tree = ast.parse(Path(plugins.__file__).read_text(encoding="utf-8"))
    [block] = [node for node in tree.body if isinstance(node, ast.If)]
    typed = {(node.module, alias.name) for node in ast.walk(block) if isinstance(node, ast.ImportFrom)
             for alias in node.names}
    assert typed == {(module, name) for name, module in plugins._OWNER.items()}


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'register_everything'"):
        plugins.register_everything  # noqa: B018


@pytest.mark.parametrize("path", RECIPES, ids=[p.name for p in RECIPES])
def test_the_extension_recipes_import_only_the_plugin_module(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ours = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("khaos_action")}
    ours |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
             if alias.name.startswith("khaos_action")}
    assert ours == {"khaos_action.plugins"}


@pytest.mark.parametrize("name", ["TransportMessage", "as_request"])
def test_a_name_of_the_untyped_seam_fails_its_import_saying_what_replaces_it(name: str) -> None:
    with pytest.raises(ImportError, match=rf"khaos_action.plugins.{name} is gone: a transport's `send\(request\)` "
                                          r"is (always )?given an `AgentRequest`"):
        exec(f"from khaos_action.plugins import {name}", {})  # noqa: S102 - the import statement an extension wrote
