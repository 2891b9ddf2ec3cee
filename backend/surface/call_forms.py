"""Alternative call forms of an op (a spec's ``call_forms:`` list), bound to the spec's arguments.

A spec declares its own signature under ``args``; xla_client's names, orders, defaults and
overloads where they differ are further forms (``specs/SCHEMA.md``). A form maps each of its
arguments to a spec argument (renamed, or ``single``: one XlaOp for a variadic argument), takes an
extra leading XlaBuilder (``builder: true``), or feeds an adapter registered here that computes
spec arguments (``Iota(builder, type, size)``). Binding a form yields the spec's bound arguments,
so everything after binding (normalizing, shape rule, the instruction) is the one path of
:mod:`backend.ops`.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import Any

from backend.errors import OpError
from backend.hlo import attributes
from backend.hlo.builder import XlaBuilder
from backend.hlo.graph import XlaComputation, XlaOp
from backend.hlo.shape import Shape


def python_name(arg: str) -> str:
    """The signature's name for a spec argument: a Python keyword gets a trailing underscore (``from_``)."""
    return arg + "_" if keyword.iskeyword(arg) else arg


def spec_arg_name(key: str) -> str:
    """The argument a keyword names: ``from_`` and ``from`` (via ``**{"from": x}``) both name ``from``."""
    return key[:-1] if key.endswith("_") and keyword.iskeyword(key[:-1]) else key


class AdapterError(ValueError):
    """An adapter's input is invalid; ``arg`` names the form's argument."""

    def __init__(self, arg: str, message: str) -> None:
        self.arg = arg
        super().__init__(message)


#: Adapters by name: ``(form inputs) -> spec arguments``; named by a form's ``adapter:``.
ADAPTERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def adapter(name: str) -> Callable[[Callable[[dict[str, Any]], dict[str, Any]]],
                                   Callable[[dict[str, Any]], dict[str, Any]]]:
    def register(fn: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
        ADAPTERS[name] = fn
        return fn
    return register


@adapter("iota_type_and_size")
def _iota_type_and_size(inputs: dict[str, Any]) -> dict[str, Any]:
    """xla_client's ``Iota(builder, type, size)``: a vector of ``size`` elements counting along dimension 0."""
    if inputs["size"] < 0:
        raise AdapterError("size", f"size must be >= 0, got {inputs['size']}")
    return {"shape": Shape.array_shape(inputs["type"], [inputs["size"]]), "iota_dimension": 0}


def _kind_fits(kind: str, value: Any) -> bool:
    if kind == "builder":
        return isinstance(value, XlaBuilder)
    if kind == "operand":
        return isinstance(value, XlaOp)
    if kind == "operands":
        return isinstance(value, (list, tuple)) and all(isinstance(v, XlaOp) for v in value)
    if kind == "computation":
        return isinstance(value, XlaComputation)
    return not isinstance(value, (XlaBuilder, XlaOp, XlaComputation))


def fit(spec: Any, form: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """How many of the call's values have the Python kind ``form`` (``None``: the spec's own signature; a
    tuple of argument names: one of the spec's ``forms``)
    expects in their place (builder, XlaOp, sequence of XlaOps, computation, other): which form a call
    that fits none was meant for."""
    if form is None or isinstance(form, tuple):
        kinds = {n: spec.arg(n).kind for n in (form or [a.name for a in spec.args])}
    else:
        by_name = {a.name: a for a in spec.args}
        kinds = {a.name: "builder" if a.builder else "operand" if a.single else
                 "attribute" if a.to is None else by_name[a.to].kind for a in form.args}
    names = list(kinds)
    keys = ((spec_arg_name(k), v) for k, v in kwargs.items())
    given = list(zip(names, args)) + [(k, v) for k, v in keys if k in kinds]
    return sum(_kind_fits(kinds[name], value) for name, value in given) - (len(args) > len(names))


def bind_form(op: str, form: Any, spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
              progress: list[int] | None = None) -> tuple[dict[str, Any], list[Any]]:
    """The spec's bound arguments for a call in ``form``, and the extra builders the form took.

    Raises an ``arg-type`` OpError for arguments that do not fit the form (count, names, kinds).
    ``progress[0]`` becomes 2 + the number of adapter inputs accepted before an adapter runs (the
    call got as far as the builder and those values)."""
    names = [a.name for a in form.args]
    positional = [a.name for a in form.args if not a.keyword_only]
    if len(args) > len(positional):
        raise OpError(op, "arg-type", f"takes at most {len(positional)} arguments ({', '.join(positional)}), got "
                      f"{len(args)}")
    given = dict(zip(positional, args))
    for key, value in kwargs.items():
        key = spec_arg_name(key)
        if key not in names:
            raise OpError(op, "arg-type", f"unknown argument '{key}' (arguments: {', '.join(names)})", key)
        if key in given:
            raise OpError(op, "arg-type", f"argument '{key}' given twice", key)
        given[key] = value
    bound: dict[str, Any] = {}
    builders: list[Any] = []
    inputs: dict[str, Any] = {}
    for a in form.args:
        if a.name not in given:
            continue
        value = given[a.name]
        if a.builder:
            if not isinstance(value, XlaBuilder):
                raise OpError(op, "arg-type", f"expected an XlaBuilder, got {type(value).__name__}", a.name)
            builders.append(value)
        elif a.to is None:
            try:
                inputs[a.name] = attributes.normalize(a.type, value)
            except (TypeError, ValueError) as e:
                raise OpError(op, "arg-type", str(e), a.name, {a.name: value}) from None
        elif a.to in bound:
            raise OpError(op, "arg-type", f"argument '{a.to}' given twice (as '{a.name}' too)", a.name)
        elif a.single:
            if not isinstance(value, XlaOp):
                raise OpError(op, "arg-type", f"expected an XlaOp, got {type(value).__name__}", a.name)
            bound[a.to] = [value]
        else:
            bound[a.to] = value
    for a in form.args:
        if a.name in given or a.keyword_only or (a.to is not None and a.to in bound):
            continue
        if a.required:
            raise OpError(op, "arg-type", f"missing required argument '{a.name}'", a.name)
        if a.to is None and not a.builder:
            inputs[a.name] = attributes.normalize(a.type, a.default)
        elif a.to is not None:
            bound[a.to] = a.default
    if form.adapter is not None:
        if progress is not None:
            progress[0] = 2 + len(inputs)
        try:
            bound.update(ADAPTERS[form.adapter](inputs))
        except (TypeError, ValueError) as e:
            arg = e.arg if isinstance(e, AdapterError) else next(iter(inputs), None)
            raise OpError(op, "arg-type", str(e), arg, dict(inputs)) from None
    for s in spec.args:
        if s.name not in bound:
            if s.required:
                raise OpError(op, "arg-type", f"missing required argument '{s.name}'", s.name)
            bound[s.name] = s.default
    return bound, builders
