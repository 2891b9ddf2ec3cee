"""The op functions (``ops.Add(lhs, rhs, broadcast_dimensions=())`` ...), generated from the specs.

Every spec under ``specs/ops`` becomes a function here with the spec's argument names and
order. Building an op: bind the arguments, normalize attributes, check element types, run the
op's shape rule, insert implicit broadcasts, add the instruction.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable
from typing import Any

from backend import attributes, broadcasting, etypes
from backend.builder import XlaBuilder, XlaOp
from backend.errors import OpError
from backend.rules import SHAPE_RULES, OpContext
from backend.shape import Shape, broadcast_dynamic_dimensions


def _python_name(arg: str) -> str:
    """The signature's name for a spec argument: a Python keyword gets a trailing underscore (``from_``)."""
    return arg + "_" if keyword.iskeyword(arg) else arg


def _spec_arg_name(key: str) -> str:
    """The spec argument a keyword names: ``from_`` and ``from`` (via ``**{"from": x}``) both name ``from``."""
    return key[:-1] if key.endswith("_") and keyword.iskeyword(key[:-1]) else key


def _bind(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    names = [a.name for a in spec.args]
    if len(args) > len(names):
        raise OpError(spec.name, "arg-type", f"takes at most {len(names)} arguments ({', '.join(names)}), "
                      f"got {len(args)}")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        key = _spec_arg_name(key)
        if key not in names:
            raise OpError(spec.name, "arg-type", f"unknown argument '{key}' (arguments: {', '.join(names)})", key)
        if key in bound:
            raise OpError(spec.name, "arg-type", f"argument '{key}' given twice", key)
        bound[key] = value
    for a in spec.args:
        if a.name not in bound:
            if a.required:
                raise OpError(spec.name, "arg-type", f"missing required argument '{a.name}'", a.name)
            bound[a.name] = a.default
    return bound


def _find_builder(spec: Any, bound: dict[str, Any]) -> XlaBuilder:
    builder = None
    for a in spec.args:
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
    seen: dict[str, tuple[str, Any]] = {}
    for a in spec.operand_args:
        if a.element is None:
            continue
        allowed = spec.element_types[a.element]
        group = shapes[a.name] if a.kind == "operands" else [shapes[a.name]]
        for k, s in enumerate(group):
            label = f"{a.name}[{k}]" if a.kind == "operands" else a.name
            et = s.element_type()
            if not s.is_array() or et not in allowed:
                names = ", ".join(etypes.short_name(t) for t in allowed)
                raise OpError(spec.name, spec.type_constraint, f"element type of '{label}' must be one of "
                              f"[{names}], got {s}", a.name, {a.name: str(s)})
            if a.element in seen and seen[a.element][1] != et:
                other = seen[a.element][0]
                raise OpError(spec.name, spec.type_constraint, f"'{other}' and '{label}' must have the same "
                              f"element type, got {etypes.short_name(seen[a.element][1])} and "
                              f"{etypes.short_name(et)}", a.name)
            seen.setdefault(a.element, (label, et))


def build_op(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> XlaOp:
    bound = _bind(spec, args, kwargs)
    builder = _find_builder(spec, bound)
    attrs: dict[str, Any] = {}
    for a in spec.args:
        if a.kind in ("attribute", "computation"):
            try:
                attrs[a.name] = attributes.normalize(a.type or "computation", bound[a.name])
            except (TypeError, ValueError) as e:
                raise OpError(spec.name, a.constraint or "arg-type", str(e), a.name, {a.name: bound[a.name]}) from None
    shapes: dict[str, Any] = {}
    for a in spec.operand_args:
        value = bound[a.name]
        shapes[a.name] = [builder.get_shape(v) for v in value] if a.kind == "operands" else builder.get_shape(value)
    _check_element_types(spec, shapes)
    ctx = OpContext(spec, builder, shapes, attrs)
    rule = SHAPE_RULES.get(spec.shape_rule)
    if rule is None:
        raise OpError(spec.name, "internal", f"no shape rule '{spec.shape_rule}'")
    result: Shape = rule(ctx)
    operands: list[XlaOp] = []
    operand_args = []
    for a in spec.operand_args:
        value = bound[a.name]
        if a.kind == "operands":
            operands.extend(value)
            operand_args.append((a.name, len(value)))
            continue
        if a.broadcast and result.is_array() and shapes[a.name].dimensions() != result.dimensions():
            value = _broadcast_to(builder, value, shapes[a.name], result, attrs.get("broadcast_dimensions", ()))
        operands.append(value)
        operand_args.append((a.name, None))
    return builder.add_instruction(spec.name, operands, tuple(operand_args), attrs, result)


def _broadcast_to(builder: XlaBuilder, op: XlaOp, shape: Shape, result: Shape, bdims: tuple[int, ...]) -> XlaOp:
    """The implicit broadcast XlaBuilder inserts for element-wise ops (an explicit BroadcastInDim)."""
    placement = broadcasting.operand_placement(shape.rank(), result.rank(), bdims)
    dynamic = broadcast_dynamic_dimensions(result.dimensions(), [(shape, placement)])
    target = Shape.array_shape(shape.element_type(), result.dimensions(), dynamic_dimensions=dynamic)
    return builder.add_instruction("BroadcastInDim", [op], (("operand", None),),
                                   {"out_dim_size": result.dimensions(), "broadcast_dimensions": placement}, target)


def _make(spec: Any) -> Callable[..., XlaOp]:
    def op_function(*args: Any, **kwargs: Any) -> XlaOp:
        return build_op(spec, args, kwargs)

    params = [inspect.Parameter(_python_name(a.name), inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=inspect.Parameter.empty if a.required else a.default) for a in spec.args]
    op_function.__name__ = op_function.__qualname__ = spec.name
    op_function.__doc__ = f"{spec.summary}\n\nSignatures: {'; '.join(spec.signatures)}\n\n{spec.semantics}"
    op_function.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return op_function


def _all_functions() -> dict[str, Callable[..., XlaOp]]:
    import specs
    return {name: _make(spec) for name, spec in specs.load_all().items()}


_FUNCTIONS: dict[str, Callable[..., XlaOp]] | None = None


def __getattr__(name: str) -> Callable[..., XlaOp]:
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
