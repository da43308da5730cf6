"""The package's layers (docs/architecture.md): no package imports a package that imports it, and every import points
down.

The graph's nodes are khaos_action's top-level subpackages and modules (`config`, `engine`, `cli`, `evaluate`, ...). An
edge is any `import` of one node by a module of another: at module level or inside a function (an import in a
function is still a dependency, only a later one), and under `if TYPE_CHECKING:` too (a type-only import never runs,
but the name it reaches for is still a piece of the layer above: the type belongs lower down). Dynamic imports
(`importlib.import_module(name)`) are not seen. docs/architecture.md "Layers" is LAYERS in prose.

Below the packages, the files: no file imports, directly or around a loop, a file that imports it (`file_graph`, read
the same way; a package's face is seen through to the files behind it: the last test says why).
"""

from __future__ import annotations

import ast
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pytest

import khaos_action

ROOT = Path(khaos_action.__file__).parent

Edges = Mapping[tuple[str, str], list[str]]
"""(importing node, imported node) -> where: ["khaos_action/config/models.py:18", ...]."""

LAYERS: tuple[tuple[str, ...], ...] = (
    # bottom: shared types and helpers every stage may import; they import only each other
    ("errors", "registry", "gc_freeze", "nofollow", "atomic", "bounds", "regexes", "fields", "findings", "manifest",
     "manifest_read", "metrics", "roles", "role_words",
     "tool_info", "messages", "outcome", "agent_reply", "sdk", "packs", "services", "transports", "reporters", "canary",
     "gates_and_weights",
     "chat", "progress",
     "extensions"),
    # the extension registries and the text detectors the checkers use: config validates through them; masking
    # of agent.secrets (redact: the detectors' encodings), which the LLM cassette applies too
    ("detect", "faults", "checkers", "redact"),
    ("config", "run_api"),
    ("mutation", "replay"),
    ("plan", "llm"),
    ("engine",),
    ("mcp",),
    ("attacks", "session"),
    ("judge",),
    ("score",),
    ("report",),
    ("github", "attacker", "discover", "demo", "init", "preflight", "plugins"),
    ("pipeline",),
    ("evaluate",),
    ("commands",),
    ("cli", "__main__"),
)
"""Bottom -> top. A node may import nodes of its own layer or below, never above (and never in a cycle)."""

BOTTOM = LAYERS[0]

def nodes_of(root: Path) -> list[str]:
    """Top-level subpackages (directories with Python files) and modules of the package at `root`."""
    found = {path.stem for path in root.glob("*.py") if path.stem != "__init__"}
    found |= {path.name for path in root.iterdir() if path.is_dir() and any(path.rglob("*.py"))}
    return sorted(found)


def import_graph(root: Path) -> dict[tuple[str, str], list[str]]:
    """Every edge between the nodes of the package at `root` (its directory name is the package name)."""
    package, nodes = root.name, set(nodes_of(root))
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if len(parts) == 1 and parts[0] == "__init__":
            continue
        importer = parts[0]
        module = [package, *parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            module.pop()
        where = f"{package}/{path.relative_to(root)}"
        for name, line in _imports(ast.parse(path.read_text(encoding="utf-8")), module, is_package):
            target = name.split(".")
            if target[0] != package or len(target) < 2 or target[1] not in nodes or target[1] == importer:
                continue
            edges[(importer, target[1])].add(f"{where}:{line}")
    return {edge: sorted(where, key=_by_line) for edge, where in edges.items()}


def _by_line(where: str) -> tuple[str, int]:
    path, line = where.rsplit(":", 1)
    return path, int(line)


def _imports(tree: ast.AST, module: list[str], is_package: bool) -> Iterable[tuple[str, int]]:
    """(absolute dotted name, line) of every import in `tree`, `if TYPE_CHECKING:` blocks included."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, ".".join(module), is_package)
            yield source, node.lineno
            # `from khaos_action import config` names the node in the alias, not in the module.
            yield from ((f"{source}.{alias.name}", node.lineno) for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))


def cycles(edges: Edges) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan, iterative), each sorted."""
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def upward(edges: Edges, layers: Sequence[Sequence[str]]) -> list[str]:
    """Every edge from a node to a node of a higher layer, with where it is imported (at most three places)."""
    layer = {node: level for level, members in enumerate(layers) for node in members}
    return [f"{a} (layer {layer[a]}) imports {b} (layer {layer[b]}): {', '.join(where[:3])}"
            for (a, b), where in sorted(edges.items()) if layer[b] > layer[a]]


def describe(component: list[str], edges: Edges) -> str:
    """A cycle as its edges, each with the importing module:line (at most three per edge)."""
    lines = [f"import cycle between {', '.join(component)}:"]
    for (a, b), where in sorted(edges.items()):
        if a in component and b in component:
            more = f" (+{len(where) - 3} more)" if len(where) > 3 else ""
            shown = ", ".join(where[:3]) + more
            lines.append(f"  {a} -> {b}: {shown}")
    return "\n".join(lines)


# ---------------------------------------------------------------- the graph functions themselves


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_the_graph_finds_a_cycle_through_a_function_level_import_and_names_the_line(tmp_path: Path) -> None:
    root = tmp_path / "toy"
    _write(root, {
        "__init__.py": "",
        "low.py": "X = 1\n",
        "alpha/__init__.py": "from toy.beta import thing\n",
        "beta/__init__.py": "",
        "beta/thing.py": "import toy.low\n\n\ndef later():\n    from ..alpha import x  # relative, in a function\n",
    })
    edges = import_graph(root)
    assert nodes_of(root) == ["alpha", "beta", "low"]
    assert edges[("beta", "alpha")] == ["toy/beta/thing.py:5"]
    assert cycles(edges) == [["alpha", "beta"]]
    text = describe(["alpha", "beta"], edges)
    assert "alpha -> beta: toy/alpha/__init__.py:1" in text and "beta -> alpha: toy/beta/thing.py:5" in text


def test_an_import_under_type_checking_is_an_edge_that_points_up_and_closes_a_cycle(tmp_path: Path) -> None:
    root = tmp_path / "toy"
    _write(root, {
        "__init__.py": "",
        "low.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from toy.high import Thing\n",
        "high.py": "import typing\n\nimport toy.low\n\nif typing.TYPE_CHECKING:\n    pass\nelse:\n"
                   "    from toy import mid\n",
        "mid.py": "X = 1\n",
    })
    edges = import_graph(root)
    assert edges[("low", "high")] == ["toy/low.py:4"], "a type-only import is a dependency on the layer it names"
    assert ("high", "mid") in edges, "the else branch of `if TYPE_CHECKING` runs, and counts as it always did"
    assert cycles(edges) == [["high", "low"]]
    assert upward(edges, (("low",), ("mid",), ("high",))) == [
        "low (layer 0) imports high (layer 2): toy/low.py:4"]
    (root / "low.py").write_text("X = 1\n", encoding="utf-8")  # the type moved down: nothing points up any more
    assert upward(import_graph(root), (("low",), ("mid",), ("high",))) == []


def test_the_graph_finds_a_longer_cycle_and_none_in_a_layered_package(tmp_path: Path) -> None:
    root = tmp_path / "toy"
    _write(root, {"__init__.py": "", "a.py": "import toy.b\n", "b.py": "from toy import c\n", "c.py": "X = 1\n"})
    assert cycles(import_graph(root)) == []
    (root / "c.py").write_text("def f():\n    import toy.a\n", encoding="utf-8")
    assert cycles(import_graph(root)) == [["a", "b", "c"]]


# ---------------------------------------------------------------- khaos_action


@pytest.fixture(scope="module")
def package_edges() -> dict[tuple[str, str], list[str]]:
    """khaos_action's import graph, parsed once for the tests below."""
    return import_graph(ROOT)


def test_no_package_imports_a_package_that_imports_it(package_edges) -> None:
    edges = package_edges
    found = cycles(edges)
    assert not found, "\n\n".join(describe(component, edges) for component in found)


def test_every_node_has_a_layer_and_every_import_points_down(package_edges) -> None:
    nodes = nodes_of(ROOT)
    layer = {node: level for level, members in enumerate(LAYERS) for node in members}
    missing = [node for node in nodes if node not in layer]
    assert not missing, (f"{', '.join(missing)}: give each a layer in LAYERS (tests/unit/test_import_graph.py) and "
                         f"in docs/architecture.md 'Layers'")
    assert not [node for node in layer if node not in nodes], "LAYERS names a node that no longer exists"
    found = upward(package_edges, LAYERS)
    assert not found, "imports that point up the layers:\n" + "\n".join(found)


def test_the_bottom_layer_imports_only_the_bottom_layer(package_edges) -> None:
    above = [f"{a} imports {b}: {', '.join(where)}" for (a, b), where in sorted(package_edges.items())
             if a in BOTTOM and b not in BOTTOM]
    assert not above, "\n".join(above)


# ---------------------------------------------------------------- files: no two files import each other


def file_graph(root: Path) -> dict[tuple[str, str], list[str]]:
    """Every import edge between the files of the package at `root`: (importing file, imported file) -> where.

    Files are named from the package's parent (`khaos_action/config/models.py`). Every import statement counts, at any
    depth (in a function, under `if TYPE_CHECKING:`), relative ones resolved; `from pkg import module` is an edge to
    the module, `from pkg.mod import name` to `pkg/mod.py`. A package's face (see `is_face`) is no file of the graph:
    a name taken from it is an edge to the file the face took it from, and the whole face (`import pkg`, `from toy
    import pkg`) is an edge to each file it hands names on from. Imports of anything outside the package draw none."""
    package = root.name
    files = {_dotted(package, path.relative_to(root)): path for path in sorted(root.rglob("*.py"))}
    faces = {name: _face_names(files, package, name) for name, path in files.items() if is_face(path)}
    edges: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name, path in files.items():
        if name in faces:
            continue
        here = _file_name(root, path)
        for target, line in _file_imports(path, name, package):
            for found in _resolve(target, files, faces):
                there = _file_name(root, files[found])
                if there != here:
                    edges[(here, there)].add(f"{here}:{line}")
    return {edge: sorted(where, key=_by_line) for edge, where in edges.items()}


def is_face(path: Path) -> bool:
    """An `__init__.py` that only hands names on: nothing in it but a docstring, imports and `__all__`."""
    if path.name != "__init__.py":
        return False
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            continue
        return False
    return True


Target = tuple[str, str | None]
"""What one import names: (a dotted module, None) for `import a.b`, (a dotted module, a name in it) for `from a.b
import name`."""


def _dotted(package: str, relative: Path) -> str:
    parts = [package, *relative.with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _file_name(root: Path, path: Path) -> str:
    return f"{root.name}/{path.relative_to(root).as_posix()}"


def _file_imports(path: Path, module: str, package: str) -> Iterable[tuple[Target, int]]:
    """Every import of the package in the file of dotted name `module`, at any depth, with its line."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (((alias.name, None), node.lineno) for alias in node.names
                        if alias.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, is_package)
            if source.split(".")[0] == package:
                yield from (((source, alias.name), node.lineno) for alias in node.names)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _resolve(target: Target, files: Mapping[str, Path], faces: Mapping[str, dict[str, set[str]]],
             seen: frozenset[str] = frozenset()) -> set[str]:
    """The files (by dotted name) an import reaches, through faces."""
    source, name = target
    if name is not None and f"{source}.{name}" in files:  # `from pkg import module`
        return _resolve((f"{source}.{name}", None), files, faces, seen)
    if source in faces:
        if source in seen:
            return set()
        handed = faces[source]
        if name is None:  # the whole face: every file it hands a name on from
            return set().union(*handed.values()) if handed else set()
        return set(handed.get(name, ()))
    while source and source not in files:  # `import pkg.mod.attr` reaches pkg/mod.py
        source = source.rpartition(".")[0]
    return {source} if source else set()


def _face_names(files: Mapping[str, Path], package: str, face: str) -> dict[str, set[str]]:
    """A face's names: each name it binds -> the files (dotted) it comes from, through faces it imports in turn."""
    faces: dict[str, dict[str, set[str]]] = {}
    for name, path in files.items():  # the faces below this one, resolved first (a face never imports itself)
        if name != face and name.startswith(f"{face}.") and is_face(path):
            faces[name] = _face_names(files, package, name)
    handed: dict[str, set[str]] = {}
    for node in ast.parse(files[face].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            source = _absolute(node, face, True)
            if source.split(".")[0] == package:
                for alias in node.names:
                    handed[alias.asname or alias.name] = _resolve((source, alias.name), files, faces,
                                                                   frozenset({face}))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == package and alias.name != face:
                    handed[alias.asname or alias.name] = _resolve((alias.name, None), files, faces,
                                                                   frozenset({face}))
    return handed


def test_the_file_graph_finds_a_loop_of_two_files_through_lazy_type_only_and_relative_imports(tmp_path: Path) -> None:
    root = tmp_path / "toy"
    _write(root, {
        "__init__.py": "",
        "low.py": "X = 1\n",
        "pkg/__init__.py": "",
        "pkg/a.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .b import B\n",
        "pkg/b.py": "from toy import low\n\n\ndef later():\n    from toy.pkg import a\n",
    })
    edges = file_graph(root)
    assert edges[("toy/pkg/a.py", "toy/pkg/b.py")] == ["toy/pkg/a.py:4"]
    assert edges[("toy/pkg/b.py", "toy/pkg/a.py")] == ["toy/pkg/b.py:5"], "`from pkg import module` names the module"
    assert ("toy/pkg/b.py", "toy/low.py") in edges
    assert cycles(edges) == [["toy/pkg/a.py", "toy/pkg/b.py"]]
    text = describe(["toy/pkg/a.py", "toy/pkg/b.py"], edges)
    assert "toy/pkg/a.py -> toy/pkg/b.py: toy/pkg/a.py:4" in text
    assert "toy/pkg/b.py -> toy/pkg/a.py: toy/pkg/b.py:5" in text
    (root / "pkg" / "b.py").write_text("from toy import low\n", encoding="utf-8")  # the lazy import gone: no loop
    assert cycles(file_graph(root)) == []


def test_a_face_is_seen_through_to_the_file_that_holds_the_name(tmp_path: Path) -> None:
    root = tmp_path / "toy"
    _write(root, {
        "__init__.py": "",
        "faults/__init__.py": '"""The face."""\n\nfrom toy.faults import tool\nfrom toy.faults.registry import '
                              "register\n\n__all__ = ['register']\n",
        "faults/registry.py": "def register():\n    pass\n",
        "faults/tool.py": "from toy.faults import register\n",  # through the face: a registry import, no loop
        "engine.py": "import toy.faults\n",
    })
    edges = file_graph(root)
    assert is_face(root / "faults" / "__init__.py")
    assert edges[("toy/faults/tool.py", "toy/faults/registry.py")] == ["toy/faults/tool.py:1"]
    assert {b for a, b in edges if a == "toy/engine.py"} == {"toy/faults/tool.py", "toy/faults/registry.py"}
    assert not [edge for edge in edges if "toy/faults/__init__.py" in edge], "a face is no file of the graph"
    assert cycles(edges) == []
    (root / "faults" / "registry.py").write_text("from toy.faults import tool\n", encoding="utf-8")
    assert cycles(file_graph(root)) == [["toy/faults/registry.py", "toy/faults/tool.py"]], "a loop behind the face"


def test_an_init_with_code_of_its_own_is_a_file_like_any_other(tmp_path: Path) -> None:
    root = tmp_path / "toy"
    _write(root, {
        "__init__.py": "",
        "pkg/__init__.py": "from toy.pkg import helper\n\n\ndef adapter_for(name):\n    return helper.X\n",
        "pkg/helper.py": "X = 1\n\n\ndef hint():\n    from toy.pkg import adapter_for\n",
    })
    assert not is_face(root / "pkg" / "__init__.py")
    assert cycles(file_graph(root)) == [["toy/pkg/__init__.py", "toy/pkg/helper.py"]]


def test_no_two_files_of_the_package_import_each_other_directly_or_around_a_loop() -> None:
    """No file of khaos_action imports, by any chain of imports, a file that imports it.

    Every import statement counts, wherever it stands: a function-level import is a dependency the reader holds in
    their head as much as a top-level one, and a type-only one names a type whose home is the other file (it belongs
    in the lower one). Registry entries' `"module:function"` strings, resolved at run time, are not imports.

    A package's face, an `__init__.py` that only hands names on (a docstring, imports and `__all__`: checkers/,
    faults/), is not a file of the graph: it holds no code, so the reader of `from khaos_action.faults import
    register_fault` depends on faults/registry.py, the file that defines it, and the import is drawn there. Counting
    the face itself would close a loop between every re-exported module and any sibling that imports a name through
    the face, a loop of no code, and hide nothing real: a loop between the files behind the face is still found. An
    `__init__.py` that defines something (engine/transport/frameworks/ with `adapter_for`, mutation/ with its lazy
    `__getattr__`) is a file like any other."""
    edges = file_graph(ROOT)
    assert ("khaos_action/config/models.py", "khaos_action/config/agent_block.py") in edges, "the graph was not read"
    assert ("khaos_action/config/models.py", "khaos_action/checkers/registry.py") in edges, \
        "`from khaos_action.checkers import Invariant` reaches the file behind the face"
    found = cycles(edges)
    assert not found, "files that import each other:\n\n" + "\n\n".join(describe(loop, edges) for loop in found)
