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

from backend.errors import OpError
from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape, shape_from_pyval
from backend.hlo.token import Token, is_token
from conformance.cases import ERROR, GENERATED, GOLDEN, Case, devices_label, in_both_operand_forms
from conformance.values import random_array
from specs.loader import PerDevice, parse_shape

STANDARD_SHAPES: tuple[tuple[int, ...], ...] = ((), (5,), (2, 3), (0, 3), (2, 1, 3), (1, 2, 2, 3))
DEFAULT_COUNT = 48


def cases_for(spec: Any, seed: int = 0) -> list[Case]:
    """Every case of ``spec``: golden and generated ones with operands as Parameters and as Constants."""
    both = [c for case in golden_cases(spec) + generated_cases(spec, seed) for c in in_both_operand_forms(case)]
    return both + error_cases(spec)


def golden_cases(spec: Any) -> list[Case]:
    return [Case(id=f"{spec.name}/golden/{ex.name}{devices_label(ex.devices)}", op=spec.name, kind=GOLDEN,
                 inputs=dict(ex.inputs), attrs=dict(ex.attrs), expected=ex.expected,
                 implementation_defined=ex.implementation_defined, infeed=ex.infeed, outfeed=ex.outfeed,
                 devices=ex.devices)
            for ex in spec.examples]


def error_cases(spec: Any) -> list[Case]:
    """One case per error example; one with devices (an error execute reports) gets zeros for inputs given as
    shapes, to run with."""
    return [Case(id=f"{spec.name}/error/{ex.name}{devices_label(ex.devices)}", op=spec.name, kind=ERROR,
                 inputs=_runnable(ex.inputs) if ex.devices else dict(ex.inputs), attrs=dict(ex.attrs),
                 violates=ex.violates, devices=ex.devices) for ex in spec.errors]


def _runnable(inputs: dict[str, Any]) -> dict[str, Any]:
    def value(v: Any) -> Any:
        if isinstance(v, PerDevice):
            return PerDevice(value(x) for x in v)
        if isinstance(v, list):
            return [value(x) for x in v]
        if isinstance(v, Shape) and v.is_array():
            return np.zeros(v.dimensions(), v.numpy_dtype())
        return v
    return {k: value(v) for k, v in inputs.items()}


def type_var(spec: Any) -> str | None:
    """The type variable generated cases range over: the result's, else the first operand's."""
    result = str(spec.result.get("element", ""))
    if result in spec.element_types:
        return result
    for a in spec.operand_args:
        if a.element is not None:
            return a.element
    return next(iter(spec.element_types), None)


def candidate_types(spec: Any) -> list[PrimitiveType | None]:
    """The element types generated cases range over (``[None]`` for an op with no type variable)."""
    var = type_var(spec)
    if "element_types" in spec.generator:
        return list(etypes.resolve_types(spec.generator["element_types"]))
    if var is not None:
        # F8E8M0FNU is a scale type (no zero, no sign): generated only where a spec names it.
        return [t for t in spec.element_types[var] if t != PrimitiveType.F8E8M0FNU]
    return [None]


def generated_cases(spec: Any, seed: int = 0) -> list[Case]:
    if not spec.executable:
        return []
    gen = spec.generator
    var = type_var(spec)
    types = candidate_types(spec)
    configs = gen.get("configs") or [{"shapes": None}]
    shapes = [tuple(s) for s in gen.get("shapes", STANDARD_SHAPES)]
    count = int(gen.get("count", DEFAULT_COUNT))
    plans = []
    for config in configs:
        for devices in _device_configs(gen, config):
            if config.get("shapes") is None:  # standard shapes for every operand, with the config's attrs
                plans.extend((config, s, devices) for s in shapes)
            else:
                plans.append((config, None, devices))
    per_type = max(1, min(len(plans), -(-count // max(1, len(types)))))
    out: list[Case] = []
    for t_index, etype in enumerate(types):
        for k in range(per_type):
            config, dims, devices = plans[(t_index * per_type + k) % len(plans)]
            case = _generated_case(spec, var, etype, config, dims, seed, devices)
            if case is not None and all(case.id != c.id for c in out):
                out.append(case)
    return out


def _device_configs(generator: dict[str, Any], config: dict[str, Any]) -> list[tuple[int, int] | None]:
    """The (replicas, partitions) a config's cases run on: the config's ``devices``, else the generator's, else
    one device (None: ids without a device count)."""
    listed = config.get("devices") or generator.get("devices")
    return [(int(r), int(p)) for r, p in listed] if listed else [None]


def draw_inputs(spec: Any, var: str | None, etype: PrimitiveType | None, config: dict[str, Any],
                dims: tuple[int, ...] | None, rng: np.random.Generator, values_hint: dict[str, Any],
                specials: bool) -> tuple[dict[str, Any], list[str]] | None:
    """Random operand values for one generator config (``dims``: the shape of operands the config
    leaves open), with their shapes as labels; None when the config cannot give every operand a type
    and a shape."""
    types_fixed: dict[str, Any] = {  # a list gives each operand of a variadic argument its own type
        k: [etypes.from_short_name(x) for x in v] if isinstance(v, list) else etypes.from_short_name(v)
        for k, v in (config.get("types") or {}).items()}
    label_shapes: list[str] = []
    inputs: dict[str, Any] = {}
    form = spec.form_args({*(config.get("shapes") or {}), *(config.get("attrs") or {})})
    for a in spec.operand_args:
        if a.name not in form:  # an argument of another of the op's forms
            continue
        if config.get("shapes") is not None and a.name not in config["shapes"] and not a.required:
            continue  # an optional argument the config leaves out takes its default
        t = types_fixed.get(a.name)
        if t is None:
            if a.element == var and etype is not None:
                t = etype
            elif a.element is not None and etype in spec.element_types[a.element]:
                t = etype  # another type variable that admits the drawn type takes it too
            elif a.element is not None:
                t = spec.element_types[a.element][0]
            elif var is None and etype is not None:  # an op without type variables: the generator's types
                t = etype
            else:
                return None
        shape_dims = config["shapes"][a.name] if config.get("shapes") and a.name in config["shapes"] else dims
        if shape_dims is None:
            return None
        if a.kind == "operands":  # a variadic argument: a list of shapes
            per = t if isinstance(t, list) else [t] * len(shape_dims)
            inputs[a.name] = [_random_value(rng, ti, d, values_hint.get(a.name), specials)
                              for ti, d in zip(per, shape_dims)]
            label_shapes += [_label(v) for v in inputs[a.name]]
            continue
        inputs[a.name] = _random_value(rng, t, shape_dims, values_hint.get(a.name), specials)
        label_shapes.append(_label(inputs[a.name]))
    return inputs, label_shapes


def _random_value(rng: np.random.Generator, etype: PrimitiveType, dims: Any, hint: Any, specials: bool) -> Any:
    """A random array of ``dims``, or a tuple value from ``{tuple: [...]}``: a dims list is a random array
    of ``etype``, a literal mapping (``{"s32[]": 0}``) a fixed element, a ``{tuple: [...]}`` a nested tuple."""
    from specs.loader import parse_literal

    if etype == PrimitiveType.TOKEN:  # a config type `token` gives a token input (made by CreateToken)
        return Token()
    if not isinstance(dims, dict):
        return random_array(rng, etype, tuple(dims), hint, specials)
    if set(dims) != {"tuple"} or not isinstance(dims["tuple"], list):
        raise ValueError(f"a tuple operand in a generator config is {{tuple: [dims or literal, ...]}}, got {dims!r}")
    return tuple(_random_value(rng, etype, e, hint, specials) if isinstance(e, dict) and "tuple" in e
                 else parse_literal(e) if isinstance(e, dict) else random_array(rng, etype, tuple(e), hint, specials)
                 for e in dims["tuple"])


def _label(value: Any) -> str:
    return "token[]" if is_token(value) else str(shape_from_pyval(value)).replace(" ", "")


def _generated_case(spec: Any, var: str | None, etype: PrimitiveType | None, config: dict[str, Any],
                    dims: tuple[int, ...] | None, seed: int, devices: tuple[int, int] | None = None) -> Case | None:
    from backend.backends import get_backend
    from conformance.build import build_case, device_arguments

    attrs = dict(config.get("attrs") or {})
    id_base = f"{spec.name}/generated/{etypes.short_name(etype) if etype is not None else 'none'}"
    id_base += devices_label(devices)
    rng = np.random.default_rng(zlib.crc32(f"{seed}:{id_base}:{config}:{dims}".encode()))
    count = 1 if devices is None else devices[0] * devices[1]
    draws = [draw_inputs(spec, var, etype, config, dims, rng, spec.generator.get("values") or {},
                         spec.generator.get("special_values", True)) for _ in range(count)]
    if draws[0] is None:
        return None
    inputs, label_shapes = draws[0]
    if count > 1:  # every device draws its own operand values
        inputs = {k: [PerDevice(d[0][k][i] for d in draws) for i in range(len(v))] if isinstance(v, list)
                  else PerDevice(d[0][k] for d in draws) for k, v in inputs.items()}  # type: ignore[index]
    infeed_shapes = [parse_shape(s) for s in config.get("infeed") or []]
    infeed = tuple(_random_infeed_value(rng, s, spec.generator.get("values") or {}) for s in infeed_shapes)
    if infeed_shapes:
        label_shapes = [*label_shapes, "infeed:" + ";".join(str(s) for s in infeed_shapes)]
    label = ",".join(label_shapes) if label_shapes else "attrs"
    if config.get("name"):
        label = f"{config['name']}:{label}"
    elif attrs:  # configs that differ only in attributes get distinct ids
        label = ",".join(f"{k}={v}" for k, v in attrs.items() if not isinstance(v, dict)).replace(" ", "") + ":" + label
    case_id = f"{id_base}/{label}"
    try:
        comp, args = build_case(spec, inputs, attrs)
    except OpError:
        # shapes and configs are spread over the element types, and an op accepts only some of the
        # combinations (tests/test_conformance.py checks that every config is valid for some type)
        return None
    outfeed: list[Any] = []
    tuple_result = comp.root_instruction.shape.is_tuple()
    reference = get_backend("reference")
    try:
        if count == 1:
            per_device = [reference.execute(comp, args, infeed=infeed, outfeed=outfeed)]
        else:
            per_device = reference.execute(comp, device_arguments(args, count), devices[0], devices[1])  # type: ignore[index]
    except OpError as e:
        if devices is None:  # one device: an OpError here is a reference bug (the builder accepted it)
            return Case(id=case_id, op=spec.name, kind=GENERATED, inputs=inputs, attrs=attrs,
                        generation_error=f"{type(e).__name__}: {e}", infeed=infeed)
        return None  # replica groups this device count cannot run (the config is meant for other counts)
    except Exception as e:  # the reference crashing on a valid program is a bug of ours: keep it visible
        return Case(id=case_id, op=spec.name, kind=GENERATED, inputs=inputs, attrs=attrs,
                    generation_error=f"{type(e).__name__}: {e}", infeed=infeed, devices=devices)
    expected = per_device[0]
    if devices is not None:
        return Case(id=case_id, op=spec.name, kind=GENERATED, inputs=inputs, attrs=attrs,
                    expected=PerDevice(r[0] if len(r) == 1 and not tuple_result else tuple(r) for r in per_device),
                    devices=devices)
    return Case(id=case_id, op=spec.name, kind=GENERATED, inputs=inputs, attrs=attrs,
                expected=expected[0] if len(expected) == 1 and not tuple_result
                else tuple(expected), infeed=infeed, outfeed=tuple(outfeed) if outfeed else None)


def _random_infeed_value(rng: np.random.Generator, shape: Shape, values_hint: dict[str, Any]) -> Any:
    """A random value of an infeed shape (an array, or a tuple of arrays)."""
    if shape.is_tuple():
        return tuple(_random_infeed_value(rng, s, values_hint) for s in shape.tuple_shapes())
    return random_array(rng, shape.element_type(), shape.dimensions(), values_hint.get("infeed"), True)
