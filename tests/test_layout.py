"""The layout: which module of ``src/tinyad`` imports which, read from the source with ``ast``.

Every import counts, at the top of a module or inside a function: a module that imports
another only when called still depends on it. Only an import under ``if TYPE_CHECKING:`` is
left out: it is for type hints, and never runs. Two things must hold:

- the engine (everything but ``tinyad.course`` and the old names that point into it)
  reaches nothing of the course, directly or through another module;
- no module reaches itself again: there is no import circle, inside ``tensor/`` or anywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
# The old names of the course's modules, kept so that notebooks written before still work.
COURSE_ALIASES = {"tinyad.grading", "tinyad.score_table", "tinyad.data", "tinyad.viz"}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_type_checking(node: ast.AST) -> bool:
    """Whether ``node`` is ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` that can run: all but the body of an ``if TYPE_CHECKING:``."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if is_type_checking(child):
                stack.extend(child.orelse)  # an else branch does run
            else:
                stack.append(child)
    return found


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The tinyad modules that ``path`` imports (``from tinyad.x import y`` names tinyad.x.y
    where that is a module, else tinyad.x); a package's own ``__init__`` is not counted."""
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        found.update(name for name in names if name in modules)
    found.discard(module_name(path))
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(SRC.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, stack = set(), list(graph[start])
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(graph.get(name, ()))
    return seen


def is_course(name: str) -> bool:
    return name.startswith("tinyad.course") or name in COURSE_ALIASES or name.startswith("tinyad.viz.")


def test_the_graph_is_read_from_the_source():
    graph = import_graph()
    assert "tinyad.graph" in graph["tinyad.scalar.value"]
    assert "tinyad.tensor.tensor" in graph["tinyad.tensor.functional"]
    assert "tinyad.course.viz.drawing" in graph["tinyad.course.viz.stepper"]
    # An import for type hints only is left out: elementwise.py names Tensor under TYPE_CHECKING.
    assert "tinyad.tensor.tensor" not in graph["tinyad.tensor.elementwise"]
    assert "tinyad.tensor.elementwise" in graph["tinyad.tensor.tensor"]


def test_a_circle_is_found():
    circle = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [name for name in sorted(circle) if name in reached(circle, name)] == ["a", "b", "c"]


def test_the_engine_reaches_nothing_of_the_course():
    graph = import_graph()
    for name in graph:
        if not is_course(name) and name != "tinyad":  # tinyad.draw is looked up when first asked for
            course = sorted(n for n in reached(graph, name) if is_course(n))
            assert not course, f"{name} imports the course's {course}"


def test_no_module_imports_itself_again():
    graph = import_graph()
    circles = sorted(name for name in graph if name in reached(graph, name))
    assert not circles, f"these modules reach themselves again through their imports: {circles}"
