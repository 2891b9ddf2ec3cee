"""The op functions (``ops.Add(lhs, rhs, broadcast_dimensions=())`` ...), generated from the specs.

Every spec under ``specs/ops`` becomes a function here with the spec's argument names and
order. Building an op: bind the arguments, normalize attributes, check element types, run the
op's shape rule, fill the attributes the ops layer adds (:data:`DEFAULTS`), insert implicit broadcasts, add the
instruction. Static tools see the functions in ``backend/ops.pyi``, which ``python -m docgen.ops_stub --write``
generates from the specs and from what this module makes of them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import specs
from backend.errors import OpError
from backend.hlo import attributes, broadcasting, etypes
from backend.hlo.builder import XlaBuilder
from backend.hlo.graph import XlaOp
from backend.hlo.shape import Shape, broadcast_dynamic_dimensions
from backend.hlo.xla_client_helpers import (  # noqa: F401 (xla_client's enums, attributes of ops as they were there)
    CustomCallApiVersion,
    CustomCallSchedule,
    FftType,
    PaddingType,
    PrecisionConfig_Precision,
    RandomAlgorithm,
    ResultAccuracy_Mode,
    TriangularSolveOptions_Transpose,
)
from backend.rules import SHAPE_RULES, OpContext
from backend.rules.higher_order import ApproxTopKReductionOutputSize, scalars
from backend.surface import call_forms


def _bind(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any], only: tuple[str, ...] | None = None
          ) -> dict[str, Any]:
    """The arguments of a call in the spec's own signature, by spec name (defaults filled in); with
    ``only``, of one of the spec's ``forms`` (an op whose signatures take different arguments): just
    those arguments, the others left out."""
    names = list(only) if only is not None else [a.name for a in spec.args]
    if len(args) > len(names):
        raise OpError(spec.name, "arg-type", f"takes at most {len(names)} arguments ({', '.join(names)}), "
                      f"got {len(args)}")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        key = call_forms.spec_arg_name(key)
        if key not in names:
            raise OpError(spec.name, "arg-type", f"unknown argument '{key}' (arguments: {', '.join(names)})", key)
        if key in bound:
            raise OpError(spec.name, "arg-type", f"argument '{key}' given twice", key)
        bound[key] = value
    for a in spec.args:
        if a.name not in bound and (only is None or a.name in only):
            if a.required:
                raise OpError(spec.name, "arg-type", f"missing required argument '{a.name}'", a.name)
            bound[a.name] = a.default
    return bound


def _find_builder(spec: Any, bound: dict[str, Any], builder: XlaBuilder | None = None) -> XlaBuilder:
    for a in spec.args:
        if a.name not in bound:  # an argument of another call form
            continue
        value = bound[a.name]
        if a.kind == "builder":
            if not isinstance(value, XlaBuilder):
                raise OpError(spec.name, "arg-type", f"expected an XlaBuilder, got {type(value).__name__}", a.name)
            candidates = [value]
        elif a.kind == "operand":
            if not isinstance(value, XlaOp):
                raise OpError(spec.name, "arg-type", f"expected an XlaOp, got {type(value).__name__}", a.name)
            candidates = [value.builder]
        elif a.kind == "operands":
            if isinstance(value, XlaOp) or not isinstance(value, (list, tuple)) \
                    or not all(isinstance(v, XlaOp) for v in value):
                raise OpError(spec.name, "arg-type", f"expected a sequence of XlaOps, got {value!r}", a.name)
            candidates = [v.builder for v in value]
        else:
            continue
        for b in candidates:
            if builder is None:
                builder = b
            elif b is not builder:
                raise OpError(spec.name, "arg-type", "operands come from different builders "
                              f"('{builder.name}' and '{b.name}')", a.name)
    if builder is None:  # only variadic operands, all empty: nothing says which builder to add to
        first = next((a.name for a in spec.args if a.kind in ("builder", "operand", "operands")), None)
        raise OpError(spec.name, "arg-type", "no operand or builder given", first)
    return builder


def _check_element_types(spec: Any, shapes: dict[str, Any]) -> None:
    """Each operand's element type is one its type variable allows, and operands sharing a variable
    agree; a per-operand variable (``element: T_i``) is shared position by position (operands[i] with
    init_values[i]), so the operands of one variadic argument may differ."""
    seen: dict[tuple[str, int | None], tuple[str, Any]] = {}
    for a in spec.operand_args:
        if a.element is None or a.name not in shapes:
            continue
        allowed = spec.element_types[a.element]
        group = shapes[a.name] if a.kind == "operands" else [shapes[a.name]]
        for k, s in enumerate(group):
            label = f"{a.name}[{k}]" if a.kind == "operands" else a.name
            if spec.tuple_operands and s.is_tuple() and s.tuple_shapes() and all(x.is_array() for x in s.tuple_shapes()):
                s = _tuple_element(spec, label, s, a.name)  # a tuple of arrays of one type (AllReduce's operand)
            et = s.element_type()
            if not s.is_array() or et not in allowed:
                names = ", ".join(etypes.short_name(t) for t in allowed)
                raise OpError(spec.name, spec.type_constraint, f"element type of '{label}' must be one of "
                              f"[{names}], got {s}", a.name, {a.name: str(s)})
            key = (a.element, k if a.per_operand else None)
            if key in seen and seen[key][1] != et:
                other = seen[key][0]
                raise OpError(spec.name, spec.type_constraint, f"'{other}' and '{label}' must have the same "
                              f"element type, got {etypes.short_name(seen[key][1])} and "
                              f"{etypes.short_name(et)}", a.name)
            seen.setdefault(key, (label, et))


def _tuple_element(spec: Any, label: str, shape: Any, arg: str) -> Any:
    """The first array of a tuple operand whose arrays must share one element type."""
    leaves = shape.tuple_shapes()
    kinds = {x.element_type() for x in leaves}
    if len(kinds) > 1:
        raise OpError(spec.name, spec.type_constraint, f"the arrays of the tuple '{label}' must have one element type, "
                      f"got {shape}", arg, {arg: str(shape)})
    return leaves[0]


def _normalize_attributes(spec: Any, bound: dict[str, Any], progress: list[int] | None = None) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for a in spec.args:
        if a.kind in ("attribute", "computation") and a.name in bound:
            try:
                attrs[a.name] = attributes.normalize(a.type or "computation", bound[a.name])
            except (TypeError, ValueError) as e:
                raise OpError(spec.name, a.constraint or "arg-type", str(e), a.name, {a.name: bound[a.name]}) from None
            if progress is not None:
                progress[0] += 1
    return attrs


def build_op(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> XlaOp:
    """Build ``spec``'s op from a call in the spec's own signature."""
    bound = _bind(spec, args, kwargs)
    builder = _find_builder(spec, bound)
    return _add(spec, bound, builder, _normalize_attributes(spec, bound))


def build_op_in_forms(spec: Any, forms: tuple[Any, ...], name: str, args: tuple[Any, ...],
                      kwargs: dict[str, Any]) -> XlaOp:
    """Build ``spec``'s op from a call in one of ``forms`` (``None``: the spec's own signature; a tuple of
    argument names: one of the spec's ``forms``, an op whose signatures take different arguments).

    The first form the call fits (argument count, names and kinds, attribute values) is used. When
    none fits, the error is the one of the form whose argument kinds the call matches best, then
    the one it got furthest in (the earlier on a tie), so a call in xla_client's form with one bad
    value is told about that value in that form's terms."""
    failures: list[tuple[Any, int, OpError]] = []
    for form in forms:
        progress = [0]
        try:
            if form is None or isinstance(form, tuple):
                bound, extra = _bind(spec, args, kwargs, form), []
            else:
                bound, extra = call_forms.bind_form(name, form, spec, args, kwargs, progress)
            progress[0] = max(progress[0], 1)
            builder = _find_builder(spec, bound, extra[0] if extra else None)
            progress[0] = max(progress[0], 2)
            attrs = _normalize_attributes(spec, bound, progress)
        except OpError as e:
            failures.append((form, progress[0], e))
            continue
        return _add(spec, bound, builder, attrs)
    if spec.forms and all(reached == 0 for _, reached, _ in failures):
        listed = "; ".join(f"{spec.name}({', '.join(f)})" for f in spec.forms.values())
        given = ", ".join([f"{len(args)} positional", *kwargs])
        closest = max(spec.forms.values(), key=lambda f: call_forms.fit(spec, f, args, kwargs))
        stray = next((k for k in map(call_forms.spec_arg_name, kwargs) if k not in closest), None)
        raise OpError(spec.name, "arg-type", f"the arguments ({given}) fit none of its call forms: {listed}", stray)
    scores = [(call_forms.fit(spec, form, args, kwargs), reached, -k) for k, (form, reached, _) in enumerate(failures)]
    raise failures[scores.index(max(scores))][2]


def _add(spec: Any, bound: dict[str, Any], builder: XlaBuilder, attrs: dict[str, Any]) -> XlaOp:
    """Check element types, run the shape rule, insert implicit broadcasts, add the instruction."""
    shapes: dict[str, Any] = {}
    operand_args = [a for a in spec.operand_args if a.name in bound]
    for a in operand_args:
        value = bound[a.name]
        shapes[a.name] = [builder.get_shape(v) for v in value] if a.kind == "operands" else builder.get_shape(value)
    _check_element_types(spec, shapes)
    attrs = _window_defaults(spec.name, attrs, shapes)
    ctx = OpContext(spec, builder, shapes, attrs, {a.name: bound[a.name] for a in operand_args})
    rule = SHAPE_RULES.get(spec.shape_rule)
    if rule is None:
        raise OpError(spec.name, "internal", f"no shape rule '{spec.shape_rule}'")
    result: Shape = rule(ctx)
    fill = DEFAULTS.get(spec.name)
    if fill is not None:
        attrs = {**attrs, **fill(ctx)}
    operands: list[XlaOp] = []
    grouping = []
    for a in operand_args:
        value = bound[a.name]
        if a.kind == "operands":
            operands.extend(value)
            grouping.append((a.name, len(value)))
            continue
        if a.broadcast and result.is_array() and shapes[a.name].dimensions() != result.dimensions():
            value = _broadcast_to(builder, value, shapes[a.name], result, attrs.get("broadcast_dimensions", ()))
        operands.append(value)
        grouping.append((a.name, None))
    return builder.add_instruction(spec.name, operands, tuple(grouping), attrs, result)


# -- window attributes XLA's builder takes empty ----------------------------------------------------------------------
#: Op -> each window attribute an empty list stands for, as the value of every window dimension. XLA's builder
#: (``XlaBuilder::MakeWindow`` for ReduceWindow and SelectAndScatter, ``ShapeInference::InferWindowFromDimensions`` for
#: ConvGeneralDilated and the convolutions built on it) accepts zero or one entry per window dimension for strides,
#: padding, dilations and reversal, zero meaning stride 1, no padding, dilation 1, no reversal.
WINDOW_DEFAULTS: dict[str, dict[str, Any]] = {
    "ReduceWindow": {"window_strides": 1, "padding": (0, 0), "base_dilations": 1, "window_dilations": 1},
    "SelectAndScatter": {"window_strides": 1, "padding": (0, 0)},
    "ConvGeneralDilated": {"window_strides": 1, "padding": (0, 0), "lhs_dilation": 1, "rhs_dilation": 1,
                           "window_reversal": False},
    "ConvGeneral": {"window_strides": 1, "padding": (0, 0)},
    "ConvWithGeneralPadding": {"window_strides": 1, "padding": (0, 0)},
}


def _window_defaults(op: str, attrs: dict[str, Any], shapes: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` with each empty window attribute of :data:`WINDOW_DEFAULTS` filled in for every window dimension
    (the window's dimensions; a convolution's: its kernel's spatial dimensions)."""
    defaults = WINDOW_DEFAULTS.get(op)
    if defaults is None or not any(attrs.get(name) == () for name in defaults):
        return attrs
    if "window_dimensions" in attrs:
        count = len(attrs["window_dimensions"])
    elif attrs.get("dimension_numbers") is not None:
        count = len(attrs["dimension_numbers"].kernel_spatial_dimensions)
    else:  # the default layout: [batch, feature, spatial...] and [out feature, in feature, spatial...]
        count = max(shapes["rhs"].rank() - 2, 0)
    return {**attrs, **{name: (value,) * count for name, value in defaults.items() if attrs.get(name) == ()}}


# -- attributes the ops layer fills in ------------------------------------------------------------------------------
# Shape rules are pure: they return the result shape and never write attributes. What an instruction records
# beyond its arguments is added here, once its rule has accepted it.
def _default_comparator(ctx: OpContext) -> dict[str, Any]:
    """Sort without a comparator: xla_client's default, less-than on the first operand, so the graph has one."""
    if ctx.attrs.get("comparator") is not None:
        return {}
    sub = XlaBuilder("default_less_than")
    pairs = [x for s in scalars(ctx.shape("operands")) for x in (s, s)]
    parameter = __getattr__("Parameter")
    params = [parameter(sub, i, s, f"p{i}") for i, s in enumerate(pairs)]
    return {"comparator": sub.build(__getattr__("Lt")(params[0], params[1]))}


def _transfer_channel(start: str) -> Callable[[OpContext], dict[str, Any]]:
    """SendDone / RecvDone straight from a ``start``'s context record its channel as ``channel_id`` (as HLO's
    send-done/recv-done), which pairs the transfer; any other context of that shape is a completed transfer."""
    def fill(ctx: OpContext) -> dict[str, Any]:
        producer = ctx.producer("context")
        return {"channel_id": producer.attrs["handle"]} if producer.opcode == start else {}
    return fill


#: Op name -> the attributes it adds (a function of the accepted op's context).
DEFAULTS: dict[str, Callable[[OpContext], dict[str, Any]]] = {
    "Sort": _default_comparator,
    "SendDone": _transfer_channel("Send"),
    "RecvDone": _transfer_channel("Recv"),
}


def _broadcast_to(builder: XlaBuilder, op: XlaOp, shape: Shape, result: Shape, bdims: tuple[int, ...]) -> XlaOp:
    """The implicit broadcast XlaBuilder inserts for element-wise ops (an explicit BroadcastInDim)."""
    placement = broadcasting.operand_placement(shape.rank(), result.rank(), bdims)
    dynamic = broadcast_dynamic_dimensions(result.dimensions(), [(shape, placement)])
    target = Shape.array_shape(shape.element_type(), result.dimensions(), dynamic_dimensions=dynamic)
    return builder.add_instruction("BroadcastInDim", [op], (("operand", None),),
                                   {"out_dim_size": result.dimensions(), "broadcast_dimensions": placement}, target)


#: The ops whose xla_client form returned several XlaOps (XLA's ``xla/python/ops.cc`` returned a ``std::pair`` or
#: ``std::tuple`` for them), by the number of XlaOps: ``v, w = ops.Eigh(a)``. Each is one tuple-shaped instruction
#: and a GetTupleElement per result, as XLA's builder made them; :func:`build` gives the tuple-shaped XlaOp itself.
SEVERAL_RESULTS: dict[str, int] = {"Eigh": 2, "LU": 3, "QR": 2, "QrDecomposition": 2, "SVD": 3}

#: The enums xla_client's ``ops`` module defined (``ops.TriangularSolveOptions_Transpose.ADJOINT``...; the first four
#: were ``ops``'s own, the others the ``xla_client`` module's), with xla_client's member names and values; each op
#: taking such an attribute takes the member (or its name).
ENUMS: tuple[str, ...] = ("TriangularSolveOptions_Transpose", "RandomAlgorithm", "CustomCallSchedule",
                          "CustomCallApiVersion", "FftType", "PrecisionConfig_Precision", "ResultAccuracy_Mode",
                          "PaddingType")


def build(name: str, /, *args: Any, **kwargs: Any) -> XlaOp:
    """``ops.<name>(*args, **kwargs)`` as the one XlaOp of its instruction: for the ops of :data:`SEVERAL_RESULTS`
    the tuple-shaped XlaOp (what a graph, a conformance case or GetTupleElement takes), not xla_client's Python tuple
    of XlaOps; for every other op the same XlaOp ``ops.<name>`` returns."""
    try:
        function = __getattr__(name)
    except AttributeError:
        raise OpError(str(name), "arg-type", f"no op named {name!r} (backend.ops lists them: dir(ops))") from None
    return getattr(function, "instruction", function)(*args, **kwargs)  # type: ignore[no-any-return]


def _results(name: str, op: XlaOp) -> tuple[XlaOp, ...]:
    """xla_client's form of a :data:`SEVERAL_RESULTS` op: one GetTupleElement per element of its tuple."""
    count = len(op.builder.get_shape(op).tuple_shapes())
    if count != SEVERAL_RESULTS[name]:
        raise OpError(name, "internal", f"its tuple has {count} elements, xla_client's form {SEVERAL_RESULTS[name]}")
    element = __getattr__("GetTupleElement")
    return tuple(element(op, i) for i in range(count))


def _make(spec: Any, name: str, forms: tuple[Any, ...]) -> Callable[..., Any]:
    """The function ``name``: the spec's own signature (``None`` in ``forms``) and/or its other forms; an op of
    :data:`SEVERAL_RESULTS` returns xla_client's tuple of XlaOps, its one instruction as ``.instruction``."""
    if forms == (None,):
        def instruction(*args: Any, **kwargs: Any) -> XlaOp:
            return build_op(spec, args, kwargs)
    else:
        def instruction(*args: Any, **kwargs: Any) -> XlaOp:
            return build_op_in_forms(spec, forms, name, args, kwargs)

    op_function: Callable[..., Any] = instruction
    if name in SEVERAL_RESULTS:
        def several(*args: Any, **kwargs: Any) -> tuple[XlaOp, ...]:
            return _results(name, instruction(*args, **kwargs))
        several.instruction = instruction  # type: ignore[attr-defined]
        op_function = several

    first = spec.args if forms[0] is None else [spec.arg(n) for n in forms[0]] if isinstance(forms[0], tuple) \
        else [a for a in forms[0].args if not a.keyword_only]
    params: list[inspect.Parameter] = []
    for a in reversed(first):  # an optional argument before a required one shows without its default
        keep_default = not a.required and all(p.default is not inspect.Parameter.empty for p in params)
        params.insert(0, inspect.Parameter(call_forms.python_name(a.name), inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                           default=a.default if keep_default else inspect.Parameter.empty))
    others = [f"{name}({', '.join(f if isinstance(f, tuple) else (a.name for a in f.args))})"
              for f in forms if f is not None]
    also = f"\n\nOther call forms: {'; '.join(others)}" if others else ""
    op_function.__name__ = op_function.__qualname__ = name
    op_function.__doc__ = f"{spec.summary}\n\nSignatures: {'; '.join(spec.signatures)}{also}\n\n{spec.semantics}"
    if not isinstance(forms[0], tuple):  # an op with several argument lists keeps (*args, **kwargs)
        op_function.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    op_function.call_forms = tuple(  # type: ignore[attr-defined]
        tuple((a.name, a.required) for a in (spec.args if f is None else [spec.arg(n) for n in f]
                                             if isinstance(f, tuple) else f.args) if not getattr(a, "keyword_only", False))
        for f in forms)
    return op_function


def _value_functions() -> dict[str, Callable[..., Any]]:
    """The xla_client ``ops`` functions that compute a value instead of building an op, with their one call form."""
    out: dict[str, Callable[..., Any]] = {}
    for function in (ApproxTopKReductionOutputSize,):
        function.call_forms = (tuple(  # type: ignore[attr-defined]
            (p.name, p.default is inspect.Parameter.empty) for p in inspect.signature(function).parameters.values()),)
        out[function.__name__] = function
    return out


def _all_functions() -> dict[str, Callable[..., Any]]:
    out: dict[str, Callable[..., Any]] = dict(_value_functions())
    for name, spec in specs.load_all().items():
        own = tuple(spec.forms.values()) if spec.forms else (None,)
        out[name] = _make(spec, name, (*own, *(f for f in spec.call_forms if f.name is None)))
        for alias in dict.fromkeys(f.name for f in spec.call_forms if f.name is not None):
            out[alias] = _make(spec, alias, tuple(f for f in spec.call_forms if f.name == alias))
    return out


_FUNCTIONS: dict[str, Callable[..., Any]] | None = None


def __getattr__(name: str) -> Callable[..., Any]:
    global _FUNCTIONS
    if _FUNCTIONS is None:
        _FUNCTIONS = _all_functions()
    if name in _FUNCTIONS:
        return _FUNCTIONS[name]
    raise AttributeError(f"module 'backend.ops' has no op '{name}'")


def __dir__() -> list[str]:
    global _FUNCTIONS
    if _FUNCTIONS is None:
        _FUNCTIONS = _all_functions()
    return sorted(_FUNCTIONS)
