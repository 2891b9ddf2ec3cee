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
from backend.builder import XlaBuilder, XlaComputation, XlaOp
from backend.errors import OpError
from backend.rules import SHAPE_RULES, OpContext
from backend.shape import Shape, broadcast_dynamic_dimensions


def _python_name(arg: str) -> str:
    """The signature's name for a spec argument: a Python keyword gets a trailing underscore (``from_``)."""
    return arg + "_" if keyword.iskeyword(arg) else arg


def _spec_arg_name(key: str) -> str:
    """The spec argument a keyword names: ``from_`` and ``from`` (via ``**{"from": x}``) both name ``from``."""
    return key[:-1] if key.endswith("_") and keyword.iskeyword(key[:-1]) else key


def _choose_form(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The spec's own signature (``None``) or the call form (xla_client's) the call is written in: a
    leading XlaBuilder the op has no argument for, or a keyword only a call form knows, selects it."""
    names = {a.name for a in spec.args}
    keys = [_spec_arg_name(k) for k in kwargs]
    leading_builder = (bool(args) and isinstance(args[0], XlaBuilder)) or "builder" in keys
    for form in spec.call_forms:
        if leading_builder and "builder" not in names and form.extra_builder:
            return form
        if any(k not in names for k in keys) and all(k in form.args or k in form.rename for k in keys):
            return form
    return None


def _bind_form(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
               only: tuple[str, ...] | None) -> tuple[dict[str, Any], XlaBuilder | None]:
    """``_bind`` for the spec's signature or a call form, or for the arguments ``only`` of one of its forms."""
    form = _choose_form(spec, args, kwargs) if only is None else None
    names = list(only) if only is not None else list(form.args) if form is not None else [a.name for a in spec.args]
    rename = form.rename if form is not None else {}
    if len(args) > len(names):
        raise OpError(spec.name, "arg-type", f"takes at most {len(names)} arguments ({', '.join(names)}), "
                      f"got {len(args)}")
    bound = {rename.get(n, n): v for n, v in zip(names, args)}
    for key, value in kwargs.items():
        key = _spec_arg_name(key)
        if key not in names and key not in rename:
            raise OpError(spec.name, "arg-type", f"unknown argument '{key}' (arguments: {', '.join(names)})", key)
        key = rename.get(key, key)
        if key in bound:
            raise OpError(spec.name, "arg-type", f"argument '{key}' given twice", key)
        bound[key] = value
    extra = bound.pop("builder", None) if form is not None and form.extra_builder else None
    if form is not None and form.extra_builder and not isinstance(extra, XlaBuilder):
        raise OpError(spec.name, "arg-type", f"expected an XlaBuilder, got {type(extra).__name__}", "builder")
    for a in spec.args:
        if (only is None or a.name in only) and a.name not in bound:
            if a.required:
                raise OpError(spec.name, "arg-type", f"missing required argument '{a.name}'", a.name)
            bound[a.name] = a.default
    return bound, extra


def _bind(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[dict[str, Any], XlaBuilder | None]:
    """The arguments by spec name, and the leading XlaBuilder of a call form that takes one; for an op
    whose signatures take different arguments (``forms``), those of the one form the call fits (by the
    number and names of its arguments, then by their kinds)."""
    if not spec.forms:
        return _bind_form(spec, args, kwargs, None)
    fits = []
    for form in spec.forms.values():
        try:
            fits.append(_bind_form(spec, args, kwargs, form))
        except OpError:
            continue
    if len(fits) > 1:  # the same number of arguments: tell the forms apart by what the arguments are
        fits = [fit for fit in fits if _plausible(spec, fit[0])] or fits
    if len(fits) != 1:
        forms = "; ".join(f"{spec.name}({', '.join(f)})" for f in spec.forms.values())
        given = ", ".join([f"{len(args)} positional", *kwargs])
        raise OpError(spec.name, "arg-type", f"the arguments ({given}) fit {'none' if not fits else 'more than one'} "
                      f"of its call forms: {forms}")
    return fits[0]


def _plausible(spec: Any, bound: dict[str, Any]) -> bool:
    """Whether the builder, operand and computation arguments of a binding are of those kinds."""
    kinds = {"builder": XlaBuilder, "operand": XlaOp, "computation": XlaComputation}
    return all(isinstance(bound[a.name], kinds[a.kind]) for a in spec.args if a.name in bound and a.kind in kinds)



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


def build_op(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> XlaOp:
    bound, given_builder = _bind(spec, args, kwargs)
    builder = _find_builder(spec, bound, given_builder)
    attrs: dict[str, Any] = {}
    for a in spec.args:
        if a.kind in ("attribute", "computation") and a.name in bound:
            try:
                attrs[a.name] = attributes.normalize(a.type or "computation", bound[a.name])
            except (TypeError, ValueError) as e:
                raise OpError(spec.name, a.constraint or "arg-type", str(e), a.name, {a.name: bound[a.name]}) from None
    shapes: dict[str, Any] = {}
    operand_args = [a for a in spec.operand_args if a.name in bound]
    for a in operand_args:
        value = bound[a.name]
        shapes[a.name] = [builder.get_shape(v) for v in value] if a.kind == "operands" else builder.get_shape(value)
    _check_element_types(spec, shapes)
    ctx = OpContext(spec, builder, shapes, attrs)
    rule = SHAPE_RULES.get(spec.shape_rule)
    if rule is None:
        raise OpError(spec.name, "internal", f"no shape rule '{spec.shape_rule}'")
    result: Shape = rule(ctx)
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
    if not spec.forms:  # an op with several call forms keeps (*args, **kwargs): its signatures are in the doc
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
