"""Audit: the element types each element-wise op's spec accepts against those XLA accepts (jax lowering and
compiling on the CPU as the oracle).

Run: ``python tools/element_type_audit.py [--markdown docs/element_type_audit.md]``. For every spec of the element-wise
families whose operands share one type variable and which jax.lax offers as a function, and for every array element
type, it lowers and compiles the op on zero-valued operands of that type with jax (XLA's shape inference and its CPU
compiler decide) and compares with the spec's ``element_types``. Each difference is settled in the spec, with its
source (StableHLO's spec and XLA), or explained in the table's notes (types jax cannot hold as arrays, jax's own
Python checks that refuse what XLA would run). The table is committed as docs/element_type_audit.md.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import specs  # noqa: E402
from backend.hlo import etypes  # noqa: E402
from backend.hlo.etypes import PrimitiveType  # noqa: E402

FAMILIES = ("unary", "binary", "comparison", "math_functions", "special_functions")

#: ops whose jax.lax function is not the op's snake_case name (or takes extra arguments)
_LAX_NAMES = {"Not": "bitwise_not", "And": "bitwise_and", "Or": "bitwise_or", "Xor": "bitwise_xor",
              "Clz": "clz", "PopulationCount": "population_count", "IsFinite": "is_finite", "Pow": "pow",
              "RoundNearestAfz": "round", "Eq": "eq", "Ne": "ne", "Lt": "lt", "Le": "le", "Gt": "gt", "Ge": "ge",
              "BesselI0e": "bessel_i0e", "BesselI1e": "bessel_i1e", "ErfInv": "erf_inv",
              "IgammaGradA": "igamma_grad_a", "RandomGammaGrad": "random_gamma_grad"}


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def lax_function(op: str, arity: int) -> Callable[..., Any] | None:
    """The jax.lax function of ``op`` (None when lax has none)."""
    from jax import lax

    if op == "RoundNearestEven":
        return lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    fn = getattr(lax, _LAX_NAMES.get(op, _snake(op)), None)
    return fn if callable(fn) else None


def xla_accepts(fn: Callable[..., Any], etype: PrimitiveType, arity: int) -> str | None:
    """None when jax lowers and XLA compiles ``fn`` on operands of ``etype``; else the first line of the refusal."""
    import jax

    try:
        dtype = etypes.etype_to_dtype(etype)
        args = [np.zeros((2,), dtype) for _ in range(arity)]
        jax.jit(fn).lower(*args).compile()
    except Exception as e:  # noqa: BLE001 - the refusal is the answer
        return f"{type(e).__name__}: {str(e).splitlines()[0][:160]}" if str(e) else type(e).__name__
    return None


ALL_TYPES = tuple(t for t in etypes.TYPE_CLASSES["any"] if t != PrimitiveType.PRED) + (PrimitiveType.PRED,)


def audit() -> list[dict[str, Any]]:
    """One row per audited op: the types the spec accepts that XLA refuses, and those XLA runs that the spec refuses."""
    import jax

    jax.config.update("jax_enable_x64", True)
    rows = []
    for spec in sorted(specs.load_all().values(), key=lambda s: s.name):
        operands = [a for a in spec.args if a.kind == "operand"]
        if spec.family not in FAMILIES or not operands or {a.element for a in operands} != {"T"}:
            continue
        fn = lax_function(spec.name, len(operands))
        if fn is None:
            continue
        accepted = set(spec.element_types["T"])
        spec_only, xla_only = [], []
        for etype in ALL_TYPES:
            refusal = xla_accepts(fn, etype, len(operands))
            if etype in accepted and refusal is not None:
                spec_only.append((etype, refusal))
            elif etype not in accepted and refusal is None:
                xla_only.append(etype)
        rows.append({"op": spec.name, "family": spec.family, "spec_only": spec_only, "xla_only": xla_only})
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| op | family | the spec accepts, XLA (jax) refuses | XLA (jax) runs, the spec refuses |", "|---|---|---|---|"]
    for row in rows:
        spec_only = ", ".join(etypes.short_name(t) for t, _ in row["spec_only"]) or "-"
        xla_only = ", ".join(etypes.short_name(t) for t in row["xla_only"]) or "-"
        lines.append(f"| {row['op']} | {row['family']} | {spec_only} | {xla_only} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", help="write the table to this file (between the markers of docs/element_type_audit.md)")
    args = parser.parse_args(argv)
    rows = audit()
    table = markdown(rows)
    if args.markdown:
        path = Path(args.markdown)
        text = path.read_text() if path.exists() else "<!-- audit table -->\n<!-- end audit table -->\n"
        start, end = text.index("<!-- audit table -->"), text.index("<!-- end audit table -->")
        path.write_text(text[:start] + "<!-- audit table -->\n" + table + text[end:])
    else:
        print(table)
        for row in rows:
            for etype, refusal in row["spec_only"]:
                print(f"{row['op']} {etypes.short_name(etype)}: {refusal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
