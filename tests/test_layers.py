"""The package's folders are layers, and imports go downward only (README, "Layout").

Every import is read from the source with :mod:`ast`, including the ones inside functions (a lazy
import still ties two modules together). A module may import from its own layer or a lower one;
an import of a higher layer, or a cycle between modules, fails here with the modules named.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "replfilter"

LAYERS = (
    "core",           # MySQL's vocabulary: error catalogue, result shapes, filter rules, LIKE
    "dialect",        # grammar, AST, parser, printer, lexical rules, the statement splitter
    "replica",        # the replica model: state, executor, SHOW/SELECT, start-up, option files, datadir
    "evaluation",     # events, SQL to events, the reference evaluator, the dialect's extensions
    "lint",           # findings about filter configurations: checks, fixes, text/JSON/SARIF
    "server",         # a session: parse, execute, keep warnings
    "spark_runtime",  # the evaluator's decisions applied by Spark
    "client",         # the mysql client's behaviour: output formats, scripts
    "wire",           # the MySQL client/server protocol (mysql-mimic): replfilter serve's connections
    "shell",          # the interactive front-end
    "cli",            # the command-line front-ends: replfilter, evaluate, stream
)
TOP_LEVEL = {"__init__", "__main__"}  # the package marker and ``python -m replfilter``


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of the replfilter modules (or packages) ``path`` imports."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {id(n) for block in ast.walk(tree) if _is_type_checking_block(block) for n in ast.walk(block)}
    for node in ast.walk(tree):
        if id(node) in typing_only:  # annotations only: no import happens at run time
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("replfilter"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("replfilter"):
                continue
            for alias in node.names:  # ``from . import ast`` names a module
                candidate = f"{target}.{alias.name}"
                found.add(candidate if _exists(candidate) else target)
    found.discard(module)
    return found


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _exists(module: str) -> bool:
    relative = Path(*module.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").exists() or (PACKAGE / relative / "__init__.py").exists()


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _graph() -> dict[str, set[str]]:
    return {_module_name(path): _imports(path) for path in PACKAGE.rglob("*.py")}


def test_every_folder_is_a_declared_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    assert folders == set(LAYERS)
    assert modules <= TOP_LEVEL, f"top-level modules belong in a layer: {sorted(modules - TOP_LEVEL)}"


def test_imports_go_downward_only():
    upward = []
    for module, targets in _graph().items():
        layer = _layer(module)
        if layer in TOP_LEVEL:
            continue
        for target in targets:
            target_layer = _layer(target)
            if target_layer == "__init__":  # ``__version__``
                continue
            if LAYERS.index(target_layer) > LAYERS.index(layer):
                upward.append(f"{module} imports {target}")
    assert not upward, "upward imports:\n" + "\n".join(sorted(upward))


def test_no_import_cycles():
    graph = _graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if target not in graph:
                continue
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_is_a_package(layer):
    assert (PACKAGE / layer / "__init__.py").exists()
