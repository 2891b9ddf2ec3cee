"""Turn a case into a computation: each operand input becomes a Parameter of the builder."""

from __future__ import annotations

import keyword
from typing import Any

import numpy as np

import specs
from backend import ops
from backend.builder import XlaBuilder, XlaComputation, XlaOp
from backend.shape import Shape, shape_from_pyval


def _param_shape(value: Any) -> Shape:
    return value if isinstance(value, Shape) else shape_from_pyval(value)


def build_case(spec: Any, inputs: dict[str, Any], attrs: dict[str, Any]) -> tuple[XlaComputation, list[Any]]:
    """The computation applying ``spec``'s op to parameters bound to ``inputs``, and its arguments.

    An input given for a ``builder`` argument (a shape) is added to the builder as a parameter
    first, for ops whose constraints concern the builder's state (Parameter's unique numbers).
    """
    builder = XlaBuilder(spec.name.lower())
    args: list[Any] = []
    add_op(builder, spec, inputs, attrs, args)
    return builder.build(), [v for v in args if not isinstance(v, Shape)]


def add_op(builder: XlaBuilder, spec: Any, inputs: dict[str, Any], attrs: dict[str, Any], args: list[Any],
           bound: dict[str, XlaOp] | None = None) -> XlaOp:
    """Adds ``spec``'s op to ``builder`` and returns it.

    Operands named in ``bound`` take those existing ops (a program chaining several ops); every
    other operand input becomes a new Parameter, numbered after ``args``, to which its value is
    appended.
    """
    bound = bound or {}
    kwargs: dict[str, Any] = dict(attrs)
    operand_shapes: list[Shape] = []
    for a in spec.args:
        if a.kind == "builder":
            kwargs[a.name] = builder
            if a.name in inputs:
                ops.Parameter(builder, len(args), _param_shape(inputs[a.name]), "existing")
                args.append(inputs[a.name])
        elif a.kind == "operand" and a.name in bound:
            kwargs[a.name] = bound[a.name]
            operand_shapes.append(builder.get_shape(bound[a.name]))
        elif a.kind == "operand" and a.name in inputs:
            kwargs[a.name] = ops.Parameter(builder, len(args), _param_shape(inputs[a.name]), a.name)
            operand_shapes.append(_param_shape(inputs[a.name]))
            args.append(inputs[a.name])
        elif a.kind == "operands" and a.name in inputs:
            group = []
            for v in inputs[a.name]:
                group.append(ops.Parameter(builder, len(args), _param_shape(v), f"{a.name}{len(group)}"))
                operand_shapes.append(_param_shape(v))
                args.append(v)
            kwargs[a.name] = group
    for a in spec.args:
        if (a.kind == "computation" or a.type == "computation") and isinstance(kwargs.get(a.name), dict):
            kwargs[a.name] = computation_from_description(kwargs[a.name], operand_shapes)
    return getattr(ops, spec.name)(**kwargs)


def computation_from_description(desc: dict[str, Any], operand_shapes: list[Shape]) -> XlaComputation:
    """A sub-computation written in a spec as ``{op: Add, params: ...}``.

    ``params`` is a list of shapes (``["f32[]", "f32[]"]``), ``operands`` (the shapes of the
    case's operands, for Call-like ops), or ``scalars`` (the default: one scalar per operand of
    ``op``, of the first operand's element type, for reducer-like ops). ``{op: Add, pairwise: N}``
    is a variadic reducer over the element types of the first N operands: it returns the tuple of
    ``op(acc_i, x_i)``.
    """
    from specs.loader import parse_shape

    op = desc["op"]
    params = desc.get("params", "scalars")
    if "pairwise" in desc:  # a variadic reducer of N values: (acc_0..acc_N-1, x_0..x_N-1) -> (op(acc_i, x_i))...
        n = int(desc["pairwise"])
        scalars = [Shape.scalar_shape(s.element_type()) for s in operand_shapes[:n]]
        sub = XlaBuilder(f"{op.lower()}_pairwise_computation")
        p = [ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(scalars + scalars)]
        ops.Tuple(sub, [getattr(ops, op)(p[i], p[n + i]) for i in range(n)])
        return sub.build()
    if params == "operands":
        shapes = list(operand_shapes)
    elif params == "scalars":
        etype = operand_shapes[0].element_type()
        shapes = [Shape.scalar_shape(etype)] * len(specs.get(op).operand_args)
    else:
        shapes = [parse_shape(p) for p in params]
    sub = XlaBuilder(f"{op.lower()}_computation")
    getattr(ops, op)(*[ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(shapes)])
    return sub.build()


def reproduction(case: Any, backend: str) -> str:
    """A self-contained Python snippet that rebuilds and runs the case."""
    lines = ["import numpy as np", "import ml_dtypes  # noqa: F401", "from backend import XlaBuilder, ops, Shape, "
             "get_backend", "", f"b = XlaBuilder({case.op.lower()!r})"]
    call_args = []
    arg_values = []
    n = 0
    spec_args = {a.name: a.kind for a in specs.get(case.op).args}
    call_args += [f"{n}=b" for n, kind in spec_args.items() if kind == "builder"]
    for name, value in case.inputs.items():
        if spec_args.get(name) == "builder":
            lines.append(f"ops.Parameter(b, {n}, Shape.array_shape({_param_shape(value).element_type().name!r}, "
                         f"{_param_shape(value).dimensions()}), 'existing')")
            n += 1
            continue
        values = value if isinstance(value, list) else [value]
        names = []
        py_name = name + "_" if keyword.iskeyword(name) else name  # `from` is passed as `from_`
        for v in values:
            shape = _param_shape(v)
            var = f"{py_name}{len(names)}" if isinstance(value, list) else py_name
            lines.append(f"{var} = ops.Parameter(b, {n}, Shape.array_shape({str(shape.element_type().name)!r}, "
                         f"{shape.dimensions()}), {var!r})")
            names.append(var)
            n += 1
            if not isinstance(v, Shape):
                arg_values.append(_array_literal(v))
        call_args.append(f"{py_name}=[{', '.join(names)}]" if isinstance(value, list) else f"{py_name}={py_name}")
    call_args += [f"{k}={v!r}" for k, v in case.attrs.items()]
    lines.append(f"ops.{case.op}({', '.join(call_args)})")
    if case.violates:
        lines.append(f"# expected: OpError naming constraint {case.violates}")
        return "\n".join(lines)
    lines.append(f"args = [{', '.join(arg_values)}]")
    lines.append(f"print(get_backend({backend!r}).execute(b.build(), args))")
    lines.append(f"# expected: {_array_literal(case.expected) if not isinstance(case.expected, tuple) else case.expected}")
    return "\n".join(lines)


def _array_literal(v: Any) -> str:
    arr = np.asarray(v)
    return f"np.array({arr.astype(object).tolist() if arr.dtype.kind not in 'fcb' else arr.tolist()!r}, " \
           f"dtype={'ml_dtypes.' + arr.dtype.name if arr.dtype.name not in np.sctypeDict else 'np.' + arr.dtype.name})"
