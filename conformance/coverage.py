"""What the conformance suite proves about itself: per spec, the arguments and documented edges
that no case exercises.

Two kinds of items, each written ``<Op> <item>``:

- ``arg:<name>``: an attribute with a default that no case (golden or generated) sets to another
  value (``preferred_element_type`` never given, ``feature_group_count`` always 1...).
- ``edge:<name>``: a documented edge that no case hits. Edges are predicates over a case's
  attributes and input shapes and values, registered below by attribute type (an empty list for
  every list attribute, several operands for every variadic argument), for every op with operands
  (size-1 and zero-size dimensions, rank 0) or for named ops (min > max for Clamp, overlapping
  windows, duplicate indices, several contracting dimensions, non-identity inits, overflowing
  products...).

``python -m conformance coverage`` prints the uncovered items; ``tests/test_coverage.py`` fails if
they grow beyond ``conformance/coverage_allowlist.txt`` and when that list is stale.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo import attributes, etypes
from conformance.cases import ERROR, Case
from conformance.generate import cases_for
from specs.loader import ELEMENTWISE, REDUCTION

ALLOWLIST_PATH = Path(__file__).parent / "coverage_allowlist.txt"
LIST_TYPES = ("int_list", "int_pairs", "bool_list")
CONV_OPS = ("Conv", "ConvWithGeneralPadding", "ConvWithGeneralDimensions", "ConvGeneral", "ConvGeneralDilated")
PRODUCT_OPS = ("Dot", "DotGeneral", *CONV_OPS)
WINDOW_OPS = ("ReduceWindow", "SelectAndScatter")
#: ``{op: X}`` reducers and their identities (by element-type kind): an init value equal to it is neutral.
REDUCER_IDENTITIES: dict[str, Callable[[np.dtype], Any]] = {
    "Add": lambda dt: 0, "Or": lambda dt: False, "Xor": lambda dt: False, "Mul": lambda dt: 1,
    "And": lambda dt: True if dt == np.bool_ else -1 if dt.kind == "i" else _int_max(dt) if dt.kind == "u" else None,
    "Max": lambda dt: _lowest(dt), "Min": lambda dt: _highest(dt),
}


# -- the edge registry ------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Edge:
    """A documented edge of an op: ``hit(spec, case)`` says whether a case reaches it."""

    name: str
    doc: str
    applies: Callable[[Any], bool]
    hit: Callable[[Any, Case], bool]


EDGES: list[Edge] = []


def edge(name: str, doc: str, ops: Iterable[str] | None = None,
         applies: Callable[[Any], bool] | None = None) -> Callable[[Callable[[Any, Case], bool]], Callable]:
    """Register ``fn(spec, case) -> bool`` as an edge of the named ops (or of those ``applies`` accepts)."""
    names = set(ops) if ops is not None else None

    def register(fn: Callable[[Any, Case], bool]) -> Callable[[Any, Case], bool]:
        def accepts(spec: Any) -> bool:
            return (names is None or spec.name in names) and (applies is None or applies(spec))
        EDGES.append(Edge(name, doc, accepts, fn))
        return fn
    return register


def edges_for(spec: Any) -> list[Edge]:
    """The registered edges and the per-argument ones (empty lists, several operands) of a spec."""
    out = [e for e in EDGES if e.applies(spec)]
    for a in spec.args:
        if a.kind == "attribute" and a.type.rstrip("?") in LIST_TYPES and not _default_is_empty(a):
            out.append(Edge(f"empty_list:{a.name}", f"{a.name} is an empty list", lambda s: True,
                            lambda s, c, n=a.name: _empty_list(s, c, n)))
        if a.kind == "operands":
            out.append(Edge(f"several:{a.name}", f"two or more {a.name}", lambda s: True,
                            lambda s, c, n=a.name: isinstance(c.inputs.get(n), list) and len(c.inputs[n]) >= 2))
    return out


# -- helpers over a case -----------------------------------------------------------------------
def _arrays(case: Case, names: Iterable[str] | None = None) -> list[np.ndarray]:
    def flat(value: Any) -> list[np.ndarray]:  # variadic lists and tuple literals hold several arrays
        if isinstance(value, (list, tuple)):
            return [a for v in value for a in flat(v)]
        return [np.asarray(value)]

    return [a for name, value in case.inputs.items() if names is None or name in names for a in flat(value)]


def _attr(spec: Any, case: Case, name: str) -> Any:
    """The case's attribute ``name`` normalized as the builder would (None when absent or malformed)."""
    if name not in case.attrs:
        return None
    try:
        return attributes.normalize(spec.arg(name).type, case.attrs[name])
    except (TypeError, ValueError, KeyError):
        return None


def _default_is_empty(arg: Any) -> bool:
    """An empty list that is the argument's default is no edge: every case that omits it has it."""
    return not arg.required and arg.default is not None and len(arg.default) == 0


def _empty_list(spec: Any, case: Case, name: str) -> bool:
    value = _attr(spec, case, name)
    return value is not None and len(value) == 0


def _int_max(dt: np.dtype) -> int:
    return int(ml_dtypes.iinfo(dt).max)


def _is_float(dt: np.dtype) -> bool:
    return etypes.is_float(etypes.dtype_to_etype(dt))


def _lowest(dt: np.dtype) -> Any:
    if dt == np.bool_:
        return False
    return -np.inf if _is_float(dt) else int(ml_dtypes.iinfo(dt).min) if dt.kind in "iu" else None


def _highest(dt: np.dtype) -> Any:
    if dt == np.bool_:
        return True
    return np.inf if _is_float(dt) else _int_max(dt) if dt.kind in "iu" else None


def _non_identity(reducer: Any, inits: list[np.ndarray]) -> bool:
    """Whether some init value differs from the identity of a ``{op: X}`` reducer."""
    if not isinstance(reducer, dict) or reducer.get("op") not in REDUCER_IDENTITIES or not inits:
        return False
    for init in inits:
        identity = REDUCER_IDENTITIES[reducer["op"]](init.dtype)
        if identity is None:
            continue
        value = init.astype(np.complex128) if init.dtype.kind == "c" else init.astype(np.float64)
        if not np.all(value == identity):
            return True
    return False


def _finite_abs_max(x: np.ndarray) -> float:
    if x.size == 0:
        return 0.0
    with np.errstate(all="ignore"):
        mag = np.abs(x.astype(np.complex128)) if x.dtype.kind == "c" else np.abs(x.astype(np.float64))
    mag = mag[np.isfinite(mag)]
    return float(mag.max()) if mag.size else 0.0


def _result_dtype(spec: Any, case: Case) -> np.dtype:
    expected = case.expected[0] if isinstance(case.expected, tuple) else case.expected
    return np.asarray(expected).dtype


# -- edges of every op with operands -----------------------------------------------------------
def _has_operands(spec: Any) -> bool:
    return spec.executable and bool(spec.operand_args)


def _ranked_freely(spec: Any) -> bool:
    return _has_operands(spec) and spec.category in (ELEMENTWISE, REDUCTION)


@edge("zero_size", "an operand with a zero-size dimension", applies=_has_operands)
def _zero_size(spec: Any, case: Case) -> bool:
    return any(0 in a.shape for a in _arrays(case))


@edge("size_one", "an operand with a size-1 dimension", applies=_has_operands)
def _size_one(spec: Any, case: Case) -> bool:
    return any(1 in a.shape for a in _arrays(case))


@edge("rank0", "an operand of rank 0 where any rank is allowed", applies=_ranked_freely)
def _rank0(spec: Any, case: Case) -> bool:
    main = [a.name for a in spec.operand_args][:1]
    return any(a.ndim == 0 for a in _arrays(case, main))


# -- edges of named ops ------------------------------------------------------------------------
@edge("min_above_max", "an element whose min is above its max (the result is max)", ops=("Clamp",))
def _min_above_max(spec: Any, case: Case) -> bool:
    lo, x, hi = (np.asarray(case.inputs[k]) for k in ("min", "operand", "max"))
    if x.size == 0:
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.any(np.broadcast_to(lo, x.shape) > np.broadcast_to(hi, x.shape)))


@edge("overlapping_windows", "a stride smaller than its window dimension", ops=WINDOW_OPS)
def _overlapping(spec: Any, case: Case) -> bool:
    dims, strides = _attr(spec, case, "window_dimensions"), _attr(spec, case, "window_strides")
    return bool(dims and strides) and any(s < d for d, s in zip(dims, strides))


@edge("non_identity_init", "an init value that is not the computation's identity", ops=("Reduce", "ReduceWindow"))
def _non_identity_init(spec: Any, case: Case) -> bool:
    return _non_identity(case.attrs.get("computation"), [np.asarray(v) for v in case.inputs.get("init_values", [])])


@edge("non_identity_init", "an init value that is not the scatter computation's identity", ops=("SelectAndScatter",))
def _non_identity_scatter_init(spec: Any, case: Case) -> bool:
    return _non_identity(case.attrs.get("scatter"), [np.asarray(case.inputs["init_value"])])


@edge("padding", "a non-zero padding", ops=WINDOW_OPS)
def _window_padding(spec: Any, case: Case) -> bool:
    return any(lo or hi for lo, hi in _attr(spec, case, "padding") or ())


def _index_vectors(indices: np.ndarray, index_vector_dim: int) -> np.ndarray:
    """The start index vectors of a Gather/Scatter index array, one per row."""
    if index_vector_dim >= indices.ndim:
        return indices.reshape(-1, 1)
    return np.moveaxis(indices, index_vector_dim, -1).reshape(-1, indices.shape[index_vector_dim])


def _duplicate_indices(spec: Any, case: Case, indices_arg: str) -> bool:
    dn = _attr(spec, case, "dimension_numbers")
    indices = np.asarray(case.inputs.get(indices_arg))
    if dn is None or indices.size == 0:
        return False
    vectors = _index_vectors(indices, dn.index_vector_dim)
    return len({tuple(v) for v in vectors.tolist()}) < len(vectors)


@edge("duplicate_indices", "two start index vectors that are equal", ops=("Gather",))
def _gather_duplicates(spec: Any, case: Case) -> bool:
    return _duplicate_indices(spec, case, "start_indices")


@edge("duplicate_indices", "two start index vectors that are equal", ops=("Scatter",))
def _scatter_duplicates(spec: Any, case: Case) -> bool:
    return _duplicate_indices(spec, case, "scatter_indices")


@edge("duplicate_indices_integer_add", "equal start indices with integer updates combined by Add", ops=("Scatter",))
def _scatter_duplicates_int_add(spec: Any, case: Case) -> bool:
    comp = case.attrs.get("update_computation")
    ints = all(a.dtype.kind in "iu" for a in _arrays(case, ["updates"]))
    return isinstance(comp, dict) and comp.get("op") == "Add" and ints and _scatter_duplicates(spec, case)


def _dot_numbers(spec: Any, case: Case) -> Any:
    return _attr(spec, case, "dimension_numbers")


@edge("several_contracting_dimensions", "two or more contracting dimensions", ops=("DotGeneral",))
def _several_contracting(spec: Any, case: Case) -> bool:
    dn = _dot_numbers(spec, case)
    return dn is not None and len(dn.lhs_contracting_dimensions) >= 2


@edge("no_contracting_dimensions", "no contracting dimension (an outer product)", ops=("DotGeneral",))
def _no_contracting(spec: Any, case: Case) -> bool:
    dn = _dot_numbers(spec, case)
    return dn is not None and not dn.lhs_contracting_dimensions


@edge("batch_dimensions", "one or more batch dimensions", ops=("DotGeneral",))
def _batch(spec: Any, case: Case) -> bool:
    dn = _dot_numbers(spec, case)
    return dn is not None and bool(dn.lhs_batch_dimensions)


@edge("overflowing_products", "floating-point products beyond the result type's range, or an integer sum that "
      "may wrap", ops=PRODUCT_OPS)
def _overflowing_products(spec: Any, case: Case) -> bool:
    lhs, rhs = np.asarray(case.inputs["lhs"]), np.asarray(case.inputs["rhs"])
    out = _result_dtype(spec, case)
    product = _finite_abs_max(lhs) * _finite_abs_max(rhs)
    if out.kind in "iu":  # products beyond the type, or a sum the reference marks as wrapping
        return product > _int_max(out) or "signed_overflow" in case.implementation_defined
    if not (_is_float(out) or out.kind == "c"):
        return False
    real = np.dtype(np.float32 if out == np.complex64 else np.float64) if out.kind == "c" else out
    return product > float(ml_dtypes.finfo(real).max)


def _explicit_padding(spec: Any) -> bool:
    return any(a.name == "padding" and a.type == "int_pairs" for a in spec.args)


@edge("negative_padding", "a negative padding (elements removed)", ops=CONV_OPS, applies=_explicit_padding)
def _negative_padding(spec: Any, case: Case) -> bool:
    padding = _attr(spec, case, "padding")
    return isinstance(padding, tuple) and any(lo < 0 or hi < 0 for lo, hi in padding)


@edge("dilation", "an lhs or rhs dilation above 1", ops=("ConvGeneralDilated",))
def _dilation(spec: Any, case: Case) -> bool:
    return any(d > 1 for name in ("lhs_dilation", "rhs_dilation") for d in _attr(spec, case, name) or ())


# -- the report --------------------------------------------------------------------------------
def _is_default(spec: Any, arg: Any, value: Any) -> bool:
    try:
        default = attributes.normalize(arg.type, arg.default)
        normalized = attributes.normalize(arg.type, value)
        if isinstance(default, np.ndarray) or isinstance(normalized, np.ndarray):  # literal attributes
            return type(default) is type(normalized) and bool(np.array_equal(default, normalized))
        return bool(normalized == default)
    except (TypeError, ValueError):
        return False


def uncovered_items(spec: Any, cases: Iterable[Case]) -> list[str]:
    """The ``arg:...`` and ``edge:...`` items of ``spec`` that no (non-error) case exercises."""
    cases = [c for c in cases if c.kind != ERROR]
    items = []
    for a in spec.args:
        if a.kind == "attribute" and not a.required:
            if not any(a.name in c.attrs and not _is_default(spec, a, c.attrs[a.name]) for c in cases):
                items.append(f"arg:{a.name}")
    for e in edges_for(spec):
        if not any(_safe_hit(e, spec, c) for c in cases):
            items.append(f"edge:{e.name}")
    return items


def _safe_hit(e: Edge, spec: Any, case: Case) -> bool:
    try:
        return bool(e.hit(spec, case))
    except (KeyError, TypeError, ValueError, IndexError):
        return False  # a case without the inputs the edge looks at does not reach it


def coverage(all_specs: Mapping[str, Any], seed: int = 0) -> dict[str, list[str]]:
    """``{op: [uncovered items]}`` for every executable spec (ops with nothing uncovered map to [])."""
    return {name: uncovered_items(spec, cases_for(spec, seed)) for name, spec in all_specs.items() if spec.executable}


def total_items(all_specs: Mapping[str, Any]) -> int:
    """How many argument and edge items the executable specs have in all."""
    return sum(sum(1 for a in s.args if a.kind == "attribute" and not a.required) + len(edges_for(s))
               for s in all_specs.values() if s.executable)


def table(uncovered: Mapping[str, list[str]], total: int) -> str:
    rows = [(op, ", ".join(items)) for op, items in uncovered.items() if items]
    width = max([len(op) for op, _ in rows] + [2])
    lines = [f"{'op':<{width}}  uncovered (arg: an attribute never given a non-default value; edge: a documented "
             "edge no case hits)"]
    lines += [f"{op:<{width}}  {items}" for op, items in rows]
    count = sum(len(items) for items in uncovered.values())
    lines.append(f"\n{count} of {total} items uncovered, in {len(rows)} of {len(uncovered)} ops")
    return "\n".join(lines)


# -- the allowlist -----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Allowlist:
    ops: frozenset[str]          # the specs the list was written for
    items: frozenset[str]        # "<Op> <item>"


def read_allowlist(path: Path = ALLOWLIST_PATH) -> Allowlist:
    ops: set[str] = set()
    items: set[str] = set()
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("ops:"):
            ops.update(line[len("ops:"):].split())
        else:
            items.add(" ".join(line.split()))
    return Allowlist(frozenset(ops), frozenset(items))


def write_allowlist(uncovered: Mapping[str, list[str]], path: Path = ALLOWLIST_PATH) -> None:
    lines = ["# What no conformance case exercises yet (python -m conformance coverage --write-allowlist).",
             "# tests/test_coverage.py fails when an item not listed here is uncovered, and when an item",
             "# listed here is now covered (remove it). Add cases rather than lines.",
             "# ops: the specs this list was written for (a spec not named here is new since).",
             ""]
    names = sorted(uncovered)
    for i in range(0, len(names), 8):
        lines.append("ops: " + " ".join(names[i:i + 8]))
    lines.append("")
    lines += [f"{op} {item}" for op in names for item in uncovered[op]]
    path.write_text("\n".join(lines) + "\n")


@dataclasses.dataclass(frozen=True)
class Comparison:
    new: list[str]         # uncovered, not in the allowlist, of ops the allowlist knows
    stale: list[str]       # in the allowlist, now covered (or of ops with no spec any more)
    new_ops: dict[str, list[str]]  # specs the allowlist does not know, with their uncovered items

    @property
    def ok(self) -> bool:
        return not (self.new or self.stale or self.new_ops)

    def message(self) -> str:
        parts = []
        if self.new:
            parts.append("coverage shrank: no case exercises these any more (add cases):\n  " + "\n  ".join(self.new))
        if self.stale:
            parts.append("the allowlist is stale: these are covered now, remove them from "
                         f"{ALLOWLIST_PATH.name}:\n  " + "\n  ".join(self.stale))
        if self.new_ops:
            listed = [f"{op} {item}" for op, items in sorted(self.new_ops.items()) for item in items]
            parts.append(f"specs new since the allowlist: {', '.join(sorted(self.new_ops))}; add them to its 'ops:' "
                         "lines with their uncovered items (python -m conformance coverage --write-allowlist):\n  "
                         + "\n  ".join(listed or ["(nothing uncovered)"]))
        return "\n".join(parts)


def compare(uncovered: Mapping[str, list[str]], allow: Allowlist) -> Comparison:
    current = {f"{op} {item}" for op, items in uncovered.items() if op in allow.ops for item in items}
    new = sorted(current - allow.items)
    stale = sorted(i for i in allow.items - current)
    new_ops = {op: items for op, items in uncovered.items() if op not in allow.ops}
    return Comparison(new, stale, new_ops)
