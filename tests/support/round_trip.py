"""The round trip builder -> ``backend.export`` StableHLO -> ``backend.stablehlo_import``, for one conformance case:
whether the imported computation has the same HLO text up to names, and the same results."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

import specs
from backend.errors import OpError, UnsupportedError
from backend.export import stablehlo_bytecode, stablehlo_text, unsupported_reason
from backend.hlo.shape import Shape
from backend.stablehlo_import import import_module
from conformance.build import build_case
from conformance.cases import GENERATED
from conformance.outcomes import SPEC, Mismatch, judge
from conformance.tolerance import mismatch_mask

_NAME = re.compile(r"%?\b[A-Za-z_][\w\-]*\.\d+\b")
_HEADER = re.compile(r"^(ENTRY )?(\S+) \{$")


def hlo_up_to_names(text: str) -> str:
    """The HLO text with every instruction and computation named by its order of first appearance (the module
    line, which names the entry computation, dropped)."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("HloModule")]
    names: dict[str, str] = {}
    for line in lines:
        header = _HEADER.match(line)
        if header:
            names.setdefault(header.group(2), f"c{len(names)}")
        else:
            names.setdefault(line.removeprefix("ROOT ").split(" =")[0], f"v{len(names)}")
    out = []
    for line in lines:
        header = _HEADER.match(line)
        if header:
            out.append(f"{header.group(1) or ''}{names[header.group(2)]} {{")
            continue
        line = _NAME.sub(lambda m: names.get(m.group(0), m.group(0)), line)
        out.append(re.sub(r"(computation|to_apply|condition|body|comparator|select|scatter|branch_computations)="
                          r"\{?([\w.\-, ]+)\}?", lambda m: m.group(0) if not m.group(2) else
                          m.group(1) + "=" + ",".join(names.get(n.strip(), n.strip()) for n in m.group(2).split(",")),
                          line))
    return "\n".join(out)


def flat_arguments(args: list[Any], shapes: list[Shape]) -> list[Any]:
    """The arguments as the exported function takes them: tuples flattened, a token an empty pred array."""
    out: list[Any] = []
    for value, shape in zip(args, shapes):
        if shape.is_tuple():
            out += flat_arguments(list(value), list(shape.tuple_shapes()))
        elif shape.is_token():
            out.append(np.zeros((0,), np.bool_))
        else:
            out.append(value)
    return out


@dataclasses.dataclass
class RoundTrip:
    case_id: str
    #: "same" (text and results), "same results", "allowed" (results that differ by the op's implementation-defined
    #: outcomes: jax's lowering takes another one), "differs", "no export", "no import"
    status: str
    detail: str = ""


def round_trip(case: Any, backends: list[Any]) -> RoundTrip:
    spec = specs.get(case.op)
    comp, args = build_case(spec, case.inputs, case.attrs, case.operand_form)
    if len(comp.parameters) > len(args):
        args = [case.expected]  # the op is itself a parameter: bound to the expected value, as the runner does
    reason = unsupported_reason(comp)
    if reason is not None:
        return RoundTrip(case.id, "no export", reason)
    via = ""
    try:
        back = import_module(stablehlo_text(comp))
    except OpError as e:  # jax prints a few ops in a form its own parser rejects: their bytecode reads back
        if "does not parse" not in str(e):
            raise
        back, via = import_module(stablehlo_bytecode(comp)), f"through bytecode: the text does not parse ({e})"
    except UnsupportedError as e:
        return RoundTrip(case.id, "no import", str(e))
    same_text = hlo_up_to_names(back.as_hlo_text()) == hlo_up_to_names(comp.as_hlo_text())
    flat = flat_arguments(list(args), list(comp.program_shape().parameter_shapes()))
    root = comp.root_instruction
    allowed = False
    for backend in backends:
        want = [np.asarray(v) for v in _leaves(backend.execute(comp, args))]
        got = [np.asarray(v) for v in _leaves(backend.execute(back, flat))]
        shapes = root.shape.leaf_shapes()
        mismatches = []
        for i, (g, w, shape) in enumerate(zip(got, want, shapes)):
            if g.shape != w.shape or g.dtype != w.dtype:
                return RoundTrip(case.id, "differs", f"{backend.name}: output {i} is {g.dtype}{list(g.shape)}, "
                                 f"expected {w.dtype}{list(w.shape)}")
            bound = spec.tolerance.for_type(shape.element_type(), root.attrs) if shape.is_array() else None
            mask = mismatch_mask(g, w, bound)
            if mask.any():
                mismatches.append(Mismatch(i, g, w, bound, mask, tuple(got)))
        if mismatches:  # jax's lowering may take another of the op's implementation-defined outcomes
            verdict = judge(dataclasses.replace(case, kind=GENERATED), spec, comp, args, mismatches, SPEC)
            if not verdict.excused:
                return RoundTrip(case.id, "differs", f"{backend.name}: {verdict.message[:300]}")
            allowed = True
    return RoundTrip(case.id, "same" if same_text and not allowed else "allowed" if allowed else "same results", via)


def _leaves(values: Any) -> list[Any]:
    if isinstance(values, (list, tuple)):
        return [leaf for v in values for leaf in _leaves(v)]
    return [values]
