"""No import circles among the modules of planner/ and catalog/.

The graph is read from the source with `ast`, so every import counts: module-level, inside a function (a local
import hides a circle, it does not remove it) and under `if TYPE_CHECKING:`. `from package import name` is an
edge to the submodule `package.name` when there is one, else to the package; a module's imports of its own
parent packages are not edges (Python initialises the parents first). Migrations are left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("planner", "catalog")

#: Circles tolerated for now. Each entry must still be a circle: the test fails once it is gone, so that whoever
#: breaks it also deletes its line here. Add nothing to this list.
KNOWN_CIRCLES: frozenset[frozenset[str]] = frozenset()


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under the packages (a package is its __init__)."""
    mods: dict[str, Path] = {}
    for base in packages:
        for path in sorted((root / base).rglob("*.py")):
            rel = path.relative_to(root)
            if "migrations" in rel.parts:
                continue
            name = ".".join(rel.with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = path
    return mods


def _imported_names(node: ast.AST, package: str) -> list[str]:
    """The dotted names one import statement may load (before resolving them to known modules)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            kept = parts[: len(parts) - node.level + 1]
            base = ".".join(kept + ([base] if base else []))
        return [base] + [f"{base}.{alias.name}" for alias in node.names]
    return []


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere in its source."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            for target in _imported_names(node, package):
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != module and not module.startswith(target + "."):
                    graph[module].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


def describe(circle: frozenset[str], graph: dict[str, set[str]]) -> str:
    ties = [f"{a} -> {b}" for a in sorted(circle) for b in sorted(graph[a]) if b in circle]
    return f"circle of {len(circle)}: " + "; ".join(ties)


def test_no_import_circle_in_planner_or_catalog():
    graph = import_graph(module_files(ROOT, PACKAGES))
    assert len(graph) > 100, "the walk found too few modules: is ROOT the project root?"
    found = circles(graph)
    new = [describe(c, graph) for c in found if c not in KNOWN_CIRCLES]
    assert not new, "import circles:\n" + "\n".join(new)
    gone = [sorted(c) for c in KNOWN_CIRCLES if c not in found]
    assert not gone, f"no longer circles, delete them from KNOWN_CIRCLES: {gone}"


def test_a_circle_through_a_function_local_import_is_found(tmp_path):
    """The checker itself: a module-level import one way and a local import back is a circle, named."""
    pkg = tmp_path / "planner" / "things"
    pkg.mkdir(parents=True)
    (tmp_path / "planner" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from planner.things.b import helper\n")
    (pkg / "b.py").write_text("def helper():\n    from . import a\n    return a\n")
    (pkg / "c.py").write_text("from planner.things import a\n")
    graph = import_graph(module_files(tmp_path, ["planner"]))
    found = circles(graph)
    assert found == [frozenset({"planner.things.a", "planner.things.b"})]
    assert describe(found[0], graph) == (
        "circle of 2: planner.things.a -> planner.things.b; planner.things.b -> planner.things.a"
    )
