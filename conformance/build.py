"""Turn a case into a computation: each operand input becomes a Parameter of the builder."""

from __future__ import annotations

from typing import Any

import numpy as np

import specs
from backend import ops
from backend.builder import XlaBuilder, XlaComputation
from backend.shape import Shape, shape_from_pyval


def _param_shape(value: Any) -> Shape:
    return value if isinstance(value, Shape) else shape_from_pyval(value)


def build_case(spec: Any, inputs: dict[str, Any], attrs: dict[str, Any]) -> tuple[XlaComputation, list[Any]]:
    """The computation applying ``spec``'s op to parameters bound to ``inputs``, and its arguments.

    An input given for a ``builder`` argument (a shape) is added to the builder as a parameter
    first, for ops whose constraints concern the builder's state (Parameter's unique numbers).
    """
    builder = XlaBuilder(spec.name.lower())
    kwargs: dict[str, Any] = dict(attrs)
    args: list[Any] = []
    for a in spec.args:
        if a.kind == "builder":
            kwargs[a.name] = builder
            if a.name in inputs:
                ops.Parameter(builder, len(args), _param_shape(inputs[a.name]), "existing")
                args.append(inputs[a.name])
        elif a.kind == "operand" and a.name in inputs:
            kwargs[a.name] = ops.Parameter(builder, len(args), _param_shape(inputs[a.name]), a.name)
            args.append(inputs[a.name])
        elif a.kind == "operands" and a.name in inputs:
            group = []
            for v in inputs[a.name]:
                group.append(ops.Parameter(builder, len(args), _param_shape(v), f"{a.name}{len(group)}"))
                args.append(v)
            kwargs[a.name] = group
    operand_shapes = [_param_shape(v) for a in spec.operand_args if a.name in inputs
                      for v in (inputs[a.name] if a.kind == "operands" else [inputs[a.name]])]
    named = {a.name: [_param_shape(v) for v in inputs[a.name]] if a.kind == "operands" else _param_shape(inputs[a.name])
             for a in spec.operand_args if a.name in inputs}
    for a in spec.args:
        value = kwargs.get(a.name)
        if a.kind == "computation" or a.type == "computation":
            if isinstance(value, dict):
                kwargs[a.name] = computation_from_description(value, operand_shapes, named, a.name)
        elif a.type == "computation_list" and isinstance(value, list):
            kwargs[a.name] = [computation_from_description(d, operand_shapes, named, f"{a.name}_{k}")
                              if isinstance(d, dict) else d for k, d in enumerate(value)]
    getattr(ops, spec.name)(**kwargs)
    return builder.build(), [v for v in args if not isinstance(v, Shape)]


def computation_from_description(desc: dict[str, Any], operand_shapes: list[Shape],
                                 named: dict[str, Any] | None = None, name: str = "computation") -> XlaComputation:
    """A sub-computation written in a spec as ``{op: Add, params: ...}`` or ``{params: ..., ops: [...]}``.

    ``params`` is a list of entries, each a shape (``"f32[]"``, ``"(s32[], f32[3])"``), the name of one
    of the case's operand arguments (its shape: ``true_operand``) or ``name[k]`` (the k-th shape of a
    variadic one: ``branch_operands[1]``); or ``operands`` (the shapes of all the case's operands, for
    Call-like ops), or ``scalars`` (the default: one scalar per operand of ``op``, of the first
    operand's element type, for reducer-like ops). ``{op: Add, pairwise: N}`` is a variadic reducer
    over the element types of the first N operands: it returns the tuple of ``op(acc_i, x_i)``.

    ``ops`` is a list of steps ``{op: Name, args: [...], name: x}`` applied in order (the last is the
    root): the parameters are ``p0``, ``p1``..., a step's ``name`` refers to its result; ``args`` are
    the op's arguments after its builder, in order: operand arguments are names (a list of names for a
    variadic one), a literal attribute is a literal (``{"s32[]": 1}``), other attributes are as written.
    The computation is called ``name`` unless the description gives its own ``name``.
    """

    if "ops" in desc:
        unknown = set(desc) - {"params", "ops", "name"}
        if unknown:
            raise ValueError(f"unknown keys {sorted(unknown)} in a computation description (params, ops, name)")
        shapes = _description_params(desc.get("params", []), operand_shapes, named or {})
        sub = XlaBuilder(str(desc.get("name", name)))
        values = {f"p{i}": ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(shapes)}
        for step in desc["ops"]:
            _description_step(sub, step, values, operand_shapes, named)
        return sub.build()
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
        shapes = _description_params(params, operand_shapes, named or {})
    sub = XlaBuilder(f"{op.lower()}_computation")
    getattr(ops, op)(*[ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(shapes)])
    return sub.build()


def _description_params(params: Any, operand_shapes: list[Shape], named: dict[str, Any]) -> list[Shape]:
    from specs.loader import parse_shape

    if params == "operands":
        return list(operand_shapes)
    if not isinstance(params, list):
        raise ValueError(f"params is 'operands' or a list of shapes and argument names, got {params!r}")
    out = []
    for entry in params:
        name, _, index = str(entry).partition("[")
        if name in named and (not index or isinstance(named[name], list)):
            shape = named[name][int(index.rstrip("]"))] if index else named[name]
            out.append(shape)
        else:
            out.append(parse_shape(str(entry)))
    return out


def _description_step(sub: XlaBuilder, step: Any, values: dict[str, Any], operand_shapes: list[Shape],
                      named: dict[str, Any] | None) -> None:
    from specs.loader import parse_literal

    if not isinstance(step, dict) or "op" not in step or set(step) - {"op", "args", "name"}:
        raise ValueError(f"a step is {{op: Name, args: [...], name: x}}, got {step!r}")
    spec = specs.get(step["op"])
    call_args = [a for a in spec.args if a.kind != "builder"]
    given = list(step.get("args", []))
    if len(given) > len(call_args):
        raise ValueError(f"{spec.name} takes {len(call_args)} arguments after the builder, got {len(given)}")

    def ref(name: Any) -> Any:
        if not isinstance(name, str) or name not in values:
            raise ValueError(f"'{name}' is not a parameter (p0, p1...) or an earlier step's name")
        return values[name]

    kwargs: dict[str, Any] = {a.name: sub for a in spec.args if a.kind == "builder"}
    for a, v in zip(call_args, given):
        if a.kind == "operand":
            kwargs[a.name] = ref(v)
        elif a.kind == "operands":
            kwargs[a.name] = [ref(x) for x in v]
        elif a.type == "literal" and isinstance(v, dict):
            kwargs[a.name] = parse_literal(v)
        elif (a.kind == "computation" or a.type == "computation") and isinstance(v, dict):
            kwargs[a.name] = computation_from_description(v, operand_shapes, named)
        else:
            kwargs[a.name] = v
    result = getattr(ops, spec.name)(**kwargs)
    if "name" in step:
        values[str(step["name"])] = result


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
        for v in values:
            shape = _param_shape(v)
            var = f"{name}{len(names)}" if isinstance(value, list) else name
            lines.append(f"{var} = ops.Parameter(b, {n}, {_shape_code(shape)}, {var!r})")
            names.append(var)
            n += 1
            if not isinstance(v, Shape):
                arg_values.append(_array_literal(v))
        call_args.append(f"{name}=[{', '.join(names)}]" if isinstance(value, list) else f"{name}={name}")
    call_args += [f"{k}={v!r}" for k, v in case.attrs.items()]
    lines.append(f"ops.{case.op}({', '.join(call_args)})")
    if case.violates:
        lines.append(f"# expected: OpError naming constraint {case.violates}")
        return "\n".join(lines)
    lines.append(f"args = [{', '.join(arg_values)}]")
    lines.append(f"print(get_backend({backend!r}).execute(b.build(), args))")
    lines.append(f"# expected: {_array_literal(case.expected) if not isinstance(case.expected, tuple) else case.expected}")
    return "\n".join(lines)


def _shape_code(shape: Shape) -> str:
    if shape.is_tuple():
        return "Shape.tuple_shape([" + ", ".join(_shape_code(s) for s in shape.tuple_shapes()) + "])"
    return f"Shape.array_shape({shape.element_type().name!r}, {shape.dimensions()})"


def _array_literal(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + "".join(f"{_array_literal(x)}, " for x in v) + ")"
    arr = np.asarray(v)
    return f"np.array({arr.astype(object).tolist() if arr.dtype.kind not in 'fcb' else arr.tolist()!r}, " \
           f"dtype={'ml_dtypes.' + arr.dtype.name if arr.dtype.name not in np.sctypeDict else 'np.' + arr.dtype.name})"
