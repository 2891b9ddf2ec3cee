"""Cases from a spec: its golden examples, seeded generated cases, and one case per error example.

Generated cases take every element type the generator names (default: the first type
variable's types), over standard shapes (ranks 0 to 4, a zero-size dimension) or the spec's
configs; their expected values come from the reference interpreter, itself pinned by the golden
examples. Generation is reproducible: the seed and the case id fix the values.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from backend import etypes
from backend.errors import OpError, UnsupportedError
from backend.etypes import PrimitiveType
from backend.shape import Shape, shape_from_pyval
from conformance.cases import ERROR, GENERATED, GOLDEN, Case
from conformance.values import random_array

STANDARD_SHAPES: tuple[tuple[int, ...], ...] = ((), (5,), (2, 3), (0, 3), (2, 1, 3), (1, 2, 2, 3))
DEFAULT_COUNT = 48


def cases_for(spec: Any, seed: int = 0) -> list[Case]:
    return golden_cases(spec) + generated_cases(spec, seed) + error_cases(spec)


def golden_cases(spec: Any) -> list[Case]:
    return [Case(id=f"{spec.name}/golden/{ex.name}", op=spec.name, kind=GOLDEN, inputs=dict(ex.inputs),
                 attrs=dict(ex.attrs), expected=ex.expected, implementation_defined=ex.implementation_defined)
            for ex in spec.examples]


def error_cases(spec: Any) -> list[Case]:
    return [Case(id=f"{spec.name}/error/{ex.name}", op=spec.name, kind=ERROR, inputs=dict(ex.inputs),
                 attrs=dict(ex.attrs), violates=ex.violates) for ex in spec.errors]


def _type_var(spec: Any) -> str | None:
    """The type variable generated cases range over: the result's, else the first operand's."""
    result = str(spec.result.get("element", ""))
    if result in spec.element_types:
        return result
    for a in spec.operand_args:
        if a.element is not None:
            return a.element
    return next(iter(spec.element_types), None)


def generated_cases(spec: Any, seed: int = 0) -> list[Case]:
    if not spec.executable:
        return []
    gen = spec.generator
    var = _type_var(spec)
    if "element_types" in gen:
        types = list(etypes.resolve_types(gen["element_types"]))
    elif var is not None:
        # F8E8M0FNU is a scale type (no zero, no sign): generated only where a spec names it.
        types = [t for t in spec.element_types[var] if t != PrimitiveType.F8E8M0FNU]
    else:
        types = [None]
    configs = gen.get("configs") or [{"shapes": None}]
    shapes = [tuple(s) for s in gen.get("shapes", STANDARD_SHAPES)]
    count = int(gen.get("count", DEFAULT_COUNT))
    plans = []
    for config in configs:
        if config.get("shapes") is None:  # standard shapes for every operand, with the config's attrs
            plans.extend((config, s) for s in shapes)
        else:
            plans.append((config, None))
    per_type = max(1, min(len(plans), -(-count // max(1, len(types)))))
    out: list[Case] = []
    for t_index, etype in enumerate(types):
        for k in range(per_type):
            config, dims = plans[(t_index * per_type + k) % len(plans)]
            case = _generated_case(spec, var, etype, config, dims, seed)
            if case is not None and all(case.id != c.id for c in out):
                out.append(case)
    return out


def _generated_case(spec: Any, var: str | None, etype: PrimitiveType | None, config: dict[str, Any],
                    dims: tuple[int, ...] | None, seed: int) -> Case | None:
    from backend.backends import get_backend
    from conformance.build import build_case

    types_fixed = {k: etypes.from_short_name(v) for k, v in (config.get("types") or {}).items()}
    attrs = dict(config.get("attrs") or {})
    values_hint = spec.generator.get("values") or {}
    specials = spec.generator.get("special_values", True)
    label_shapes = []
    inputs: dict[str, Any] = {}
    id_base = f"{spec.name}/generated/{etypes.short_name(etype) if etype is not None else 'none'}"
    rng_seed = zlib.crc32(f"{seed}:{id_base}:{config}:{dims}".encode())
    rng = np.random.default_rng(rng_seed)
    form = spec.form_args({*(config.get("shapes") or {}), *attrs})
    for a in spec.operand_args:
        if a.name not in form:  # an argument of another call form
            continue
        t = types_fixed.get(a.name)
        if t is None:
            if a.element == var and etype is not None:
                t = etype
            elif a.element is not None:
                t = spec.element_types[a.element][0]
            elif var is None and etype is not None:  # an op without type variables: the generator's types
                t = etype
            else:
                return None
        shape_dims = config["shapes"][a.name] if config.get("shapes") and a.name in config["shapes"] else dims
        if shape_dims is None:
            return None
        if isinstance(shape_dims, dict):  # {tuple: [dims or a fixed literal, ...]}: a tuple-shaped operand
            inputs[a.name] = _random_tuple(rng, t, shape_dims, values_hint.get(a.name), specials)
            label_shapes.append(str(shape_from_pyval(inputs[a.name])).replace(" ", ""))
            continue
        if a.kind == "operands":  # a variadic argument: a list of shapes
            inputs[a.name] = [_random_tuple(rng, t, d, values_hint.get(a.name), specials) if isinstance(d, dict)
                              else random_array(rng, t, tuple(d), values_hint.get(a.name), specials)
                              for d in shape_dims]
            label_shapes += [str(shape_from_pyval(v)).replace(" ", "") for v in inputs[a.name]]
            continue
        inputs[a.name] = random_array(rng, t, tuple(shape_dims), values_hint.get(a.name), specials)
        label_shapes.append(str(Shape.array_shape(t, tuple(shape_dims))))
    label = ",".join(label_shapes) if label_shapes else "attrs"
    if config.get("name"):
        label = f"{config['name']}:{label}"
    elif attrs:  # configs that differ only in attributes get distinct ids
        label = ",".join(f"{k}={v}" for k, v in attrs.items() if not isinstance(v, dict)).replace(" ", "") + ":" + label
    case_id = f"{id_base}/{label}"
    try:
        comp, args = build_case(spec, inputs, attrs)
        expected = get_backend("reference").execute(comp, args)
    except (OpError, UnsupportedError):
        return None  # the combination is not valid for this op / not computable by the reference
    return Case(id=case_id, op=spec.name, kind=GENERATED, inputs=inputs, attrs=attrs,
                expected=expected[0] if len(expected) == 1 and not comp.root_instruction.shape.is_tuple()
                else tuple(expected))


def _random_tuple(rng: np.random.Generator, etype: PrimitiveType, desc: dict[str, Any], hint: Any,
                  specials: bool) -> tuple[Any, ...]:
    """A tuple value from ``{tuple: [...]}``: a dims list is a random array of ``etype``, a literal
    mapping (``{"s32[]": 0}``) a fixed element."""
    from specs.loader import parse_literal

    if set(desc) != {"tuple"} or not isinstance(desc["tuple"], list):
        raise ValueError(f"a tuple operand in a generator config is {{tuple: [dims or literal, ...]}}, got {desc!r}")
    return tuple(parse_literal(e) if isinstance(e, dict) else random_array(rng, etype, tuple(e), hint, specials)
                 for e in desc["tuple"])
