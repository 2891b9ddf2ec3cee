"""The project's layers (docs/ARCHITECTURE.md), checked from the imports themselves.

Every ``import`` and ``from ... import`` statement counts, at module level or inside a function, and so does
``importlib.import_module("literal")``; an import under ``if TYPE_CHECKING:`` counts for the layering (a type
from a higher layer is a dependency on it) but not as a cycle (it never runs). Each module may import only
modules of its own layer or of the layers below; siblings named in ``INDEPENDENT`` may not import each other;
no two modules import each other, directly or through others.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("backend", "specs", "docgen", "conformance", "pallas_kernels", "xla_semantics_iree", "benchmarks")

#: Bottom to top: a layer's modules (a name and the dotted prefixes below it) import only from its own layer and
#: the layers before it. The most specific prefix decides a module's layer.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("backend.errors", "backend.registry", "pallas_kernels")),
    ("hlo", ("backend.hlo",)),
    ("specs", ("specs",)),
    ("rules", ("backend.rules",)),
    ("surface", ("backend.ops", "backend.surface")),
    ("runtime", ("backend.runtime",)),
    ("backends", ("backend.reference", "backend.jax_backend", "backend.pallas_backend", "backend.export",
                  "backend.stablehlo_import")),
    ("registry", ("backend.backends", "backend.client", "backend.completeness", "backend")),
    ("conformance", ("conformance",)),
    ("tools", ("docgen", "xla_semantics_iree", "benchmarks")),
)
#: Within a layer, groups that must not import one another (``(a, b)``: neither imports the other) and the
#: one-way allowances (``pallas`` is the jax backend with kernels swapped in; ``export`` is the jax lowering's).
INDEPENDENT: tuple[tuple[str, str], ...] = (
    ("backend.reference", "backend.jax_backend"),
    ("backend.reference", "backend.pallas_backend"),
    ("backend.reference", "backend.export"),
    ("backend.reference", "backend.stablehlo_import"),
    ("pallas_kernels", "backend.errors"),
    ("pallas_kernels", "backend.registry"),
    ("docgen", "xla_semantics_iree"),
    ("docgen", "benchmarks"),
    ("xla_semantics_iree", "benchmarks"),
)
ONE_WAY: tuple[tuple[str, str], ...] = (
    ("backend.jax_backend", "backend.pallas_backend"),  # jax never imports pallas
    ("backend.jax_backend", "backend.export"),  # the lowering never imports its exporter
)


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    type_only: bool


def modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skip.update(id(n) for n in ast.walk(child))
    return skip


def imports(known: dict[str, Path] | None = None) -> Iterator[Import]:
    known = known if known is not None else modules()
    for module, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        type_only = _type_checking_nodes(tree)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[:len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
            elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module") \
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                targets = [node.args[0].value]
            for target in targets:
                resolved = _resolve(target, known)
                if resolved is not None and resolved != module:
                    yield Import(module, resolved, node.lineno, id(node) in type_only)


def layer_of(module: str) -> tuple[int, str]:
    best: tuple[int, int, str] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), index, prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS (and docs/ARCHITECTURE.md)"
    return best[1], best[2]


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_every_module_has_a_layer():
    for module in modules():
        layer_of(module)


def upward(found: list[Import]) -> list[str]:
    wrong = []
    for imp in found:
        (low, _), (high, _) = layer_of(imp.importer), layer_of(imp.imported)
        if high > low:
            wrong.append(f"{imp.importer}:{imp.line} imports {imp.imported} (layer {LAYERS[high][0]} is above "
                         f"{LAYERS[low][0]})")
    return wrong


def test_no_import_from_a_higher_layer():
    wrong = upward(list(imports()))
    assert not wrong, "\n".join(wrong)


def test_independent_siblings():
    wrong = []
    for imp in imports():
        for a, b in INDEPENDENT:
            if (_under(imp.importer, a) and _under(imp.imported, b)) or (_under(imp.importer, b) and _under(imp.imported, a)):
                wrong.append(f"{imp.importer}:{imp.line} imports {imp.imported}")
        for lower, upper in ONE_WAY:
            if _under(imp.importer, lower) and _under(imp.imported, upper):
                wrong.append(f"{imp.importer}:{imp.line} imports {imp.imported} ({upper} builds on {lower})")
    assert not wrong, "\n".join(wrong)


def cycles(found: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    edges: dict[str, set[str]] = {}
    for imp in found:
        if not imp.type_only:
            edges.setdefault(imp.importer, set()).add(imp.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
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
    return found


def test_no_import_cycles():
    assert cycles(list(imports())) == []


def test_the_checks_see_what_they_must(tmp_path):
    """The checker itself, on a made-up tree: a lazy import inside a function and ``importlib.import_module`` count,
    an import under TYPE_CHECKING counts for the layering but not as a cycle."""
    files = {
        "backend/hlo/shape.py": "def f():\n    from backend.ops import Add\n",
        "backend/ops.py": "import importlib\nimportlib.import_module('backend.hlo.shape')\n",
        "backend/hlo/graph.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from backend.runtime.walker import W\n"
                                "    from backend.hlo import shape\n",
        "backend/runtime/walker.py": "",
    }
    known = {}
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        known[name[:-3].replace("/", ".")] = path
    found = list(imports(known))
    assert sorted(upward(found)) == ["backend.hlo.graph:3 imports backend.runtime.walker (layer runtime is above hlo)",
                                     "backend.hlo.shape:2 imports backend.ops (layer surface is above hlo)"]
    assert cycles(found) == [["backend.hlo.shape", "backend.ops"]]
    assert layer_of("backend.hlo.shape")[0] < layer_of("specs.loader")[0] < layer_of("backend.rules.unary")[0] \
        < layer_of("backend.ops")[0] < layer_of("backend.runtime.walker")[0] < layer_of("backend.reference.unary")[0] \
        < layer_of("backend.backends")[0] < layer_of("conformance.runner")[0] < layer_of("docgen.site")[0]


def test_the_architecture_document_names_every_layer():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    for _, prefixes in LAYERS:
        for prefix in prefixes:
            assert re.search(rf"`{re.escape(prefix)}[`./]", text), f"docs/ARCHITECTURE.md does not place {prefix}"


def test_the_reference_runs_without_jax():
    """The NumPy oracle needs no jax: with jax made unimportable, every reference evaluator module loads and a
    program with a custom call (the example targets) runs."""
    import subprocess
    import sys

    code = """
import sys
sys.modules["jax"] = None  # import jax now raises ImportError
import numpy as np
from backend import PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.reference import EVALUATORS
assert len(EVALUATORS.names()) > 180
b = XlaBuilder("t")
x = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.F32, (3,)), "x")
shape = Shape.array_shape(PrimitiveType.F32, (3,))
y = ops.CustomCall(b, "xla_semantics.negate", [x], shape)
ops.Sort(b, [ops.Add(x, y)])
out = get_backend("reference").execute(b.build(), [np.array([3, 1, 2], np.float32)])
print(out[0].tolist(), "jax" in sys.modules and sys.modules["jax"] is not None)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[0.0,", "0.0,", "0.0]", "False"]


def test_the_facade_declares_for_static_tools_what_it_exports():
    """backend/__init__.py names each public name twice: in _EXPORTS (the lazy import) and under TYPE_CHECKING (for
    IDEs and type checkers); the two agree, and each name comes from the module _EXPORTS says."""
    import backend

    tree = ast.parse((ROOT / "backend" / "__init__.py").read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
    declared = {}
    for node in ast.walk(block):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("backend"):
            for alias in node.names:
                declared[alias.asname or alias.name] = node.module
    declared.pop("ops", None)
    assert declared == backend._EXPORTS
