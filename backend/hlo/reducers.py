"""Recognising simple sub-computations, so kernels and lowerings can use a named reducer."""

from __future__ import annotations

from backend.hlo.graph import XlaComputation

#: Binary ops a reducer sub-computation may be, and the name kernels know them by.
REDUCER_NAMES = {"Add": "add", "Mul": "mul", "Max": "max", "Min": "min", "And": "and", "Or": "or"}


def binary_reducer_name(computation: XlaComputation) -> str | None:
    """``"add"``, ``"max"``... when ``computation`` is ``op(p0, p1)`` of two scalar parameters
    (in either order), else ``None``."""
    params = computation.parameters
    root = computation.root_instruction
    if len(params) != 2 or root.opcode not in REDUCER_NAMES or len(root.operands) != 2:
        return None
    if any(p.shape.rank() != 0 or not p.shape.is_array() for p in params):
        return None
    if sorted(root.operands) != sorted(p.id for p in params):
        return None
    return REDUCER_NAMES[root.opcode]


def select_comparison(computation: XlaComputation) -> str | None:
    """``"ge"``, ``"gt"``, ``"le"``, ``"lt"``... when ``computation`` is ``Compare(p0, p1)`` (or one of
    the named comparison ops Ge, Gt...) of two scalar parameters in that order, else ``None``."""
    params = computation.parameters
    root = computation.root_instruction
    if len(params) != 2 or tuple(root.operands) != (params[0].id, params[1].id):
        return None
    if root.opcode == "Compare":
        direction = root.attrs.get("direction")
        return None if direction is None else direction.value.lower()
    if root.opcode in ("Eq", "Ne", "Ge", "Gt", "Le", "Lt"):
        return root.opcode.lower()
    return None


def tuple_element_parameters(computation: XlaComputation) -> list[set[int]] | None:
    """For a computation whose root is a Tuple: the parameter numbers each tuple element depends on
    (``None`` for any other root)."""
    root = computation.root_instruction
    if root.opcode != "Tuple":
        return None
    deps: dict[int, set[int]] = {}
    for inst in computation.instructions:  # in definition order: operands come first
        deps[inst.id] = ({inst.attrs["number"]} if inst.opcode == "Parameter"
                         else set().union(*(deps[o] for o in inst.operands)))
    return [deps[o] for o in root.operands]
