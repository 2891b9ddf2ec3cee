"""Turn a case into a computation: each operand input becomes a Parameter of the builder, or a
Constant holding the value (the case's ``operand_form``)."""

from __future__ import annotations

import keyword
from typing import Any

import numpy as np

import specs
from backend import ops
from backend.hlo.builder import XlaBuilder
from backend.hlo.graph import XlaComputation, XlaOp
from backend.hlo.shape import Shape, shape_from_pyval
from backend.hlo.token import is_token
from conformance.cases import CONSTANTS, PARAMETERS, PROGRAM, program_command
from specs.loader import PerDevice


def _param_shape(value: Any) -> Shape:
    value = value[0] if isinstance(value, PerDevice) else value
    return value if isinstance(value, Shape) else shape_from_pyval(value)


def _holds_token(value: Any) -> bool:
    return is_token(value) or (isinstance(value, tuple) and any(_holds_token(v) for v in value))


def device_arguments(args: list[Any], count: int) -> list[list[Any]]:
    """The per-device argument lists of a multi-device case: a PerDevice argument gives each device its own
    value, any other argument is every device's."""
    return [[v[d] if isinstance(v, PerDevice) else v for v in args] for d in range(count)]


def build_case(spec: Any, inputs: dict[str, Any], attrs: dict[str, Any],
               operand_form: str = PARAMETERS) -> tuple[XlaComputation, list[Any]]:
    """The computation applying ``spec``'s op to ``inputs``, and its arguments.

    Operands are parameters bound to the input values, or (``operand_form`` CONSTANTS) constants
    holding them. An input given for a ``builder`` argument (a shape) is added to the builder as a
    parameter first, for ops whose constraints concern the builder's state (Parameter's unique numbers).
    """
    builder = XlaBuilder(spec.name.lower())
    args: list[Any] = []
    add_op(builder, spec, inputs, attrs, args, operand_form=operand_form)
    return builder.build(), [v for v in args if not isinstance(v, Shape)]


def add_op(builder: XlaBuilder, spec: Any, inputs: dict[str, Any], attrs: dict[str, Any], args: list[Any],
           bound: dict[str, XlaOp] | None = None, operand_form: str = PARAMETERS) -> XlaOp:
    """Adds ``spec``'s op to ``builder`` and returns it.

    Operands named in ``bound`` take those existing ops (a program chaining several ops); every
    other operand input becomes a new Parameter, numbered after ``args``, to which its value is
    appended, or (``operand_form`` CONSTANTS) a Constant holding the value.
    """
    bound = bound or {}
    kwargs: dict[str, Any] = dict(attrs)
    operand_shapes: list[Shape] = []

    def operand(value: Any, name: str) -> Any:
        if is_token(value):  # a token input ({"token[]": []}) is made by CreateToken in both forms
            operand_shapes.append(Shape.token_shape())
            return ops.CreateToken(builder)
        operand_shapes.append(_param_shape(value))
        if operand_form == CONSTANTS and not isinstance(value, (Shape, PerDevice)) and not _holds_token(value):
            return ops.Constant(builder, value)  # a tuple holding a token (a Send context) stays a parameter
        args.append(value)
        return ops.Parameter(builder, len(args) - 1, _param_shape(value), name)

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
            kwargs[a.name] = operand(inputs[a.name], a.name)
        elif a.kind == "operands" and a.name in inputs:
            kwargs[a.name] = [operand(v, f"{a.name}{i}") for i, v in enumerate(inputs[a.name])]
    named = {a.name: [_param_shape(v) for v in inputs[a.name]] if a.kind == "operands" else _param_shape(inputs[a.name])
             for a in spec.operand_args if a.name in inputs}
    named.update({name: builder.get_shape(op) for name, op in bound.items()})
    for a in spec.args:
        value = kwargs.get(a.name)
        if (a.kind == "computation" or a.type == "computation") and isinstance(value, dict):
            kwargs[a.name] = computation_from_description(value, operand_shapes, named, a.name)
        elif a.type == "computation_list" and isinstance(value, list):
            kwargs[a.name] = [computation_from_description(d, operand_shapes, named, f"{a.name}_{k}")
                              if isinstance(d, dict) else d for k, d in enumerate(value)]
    return ops.build(spec.name, **kwargs)


_TIE_OPS = {"Lt": "Eq", "Gt": "Eq", "Le": "Eq", "Ge": "Eq", "LtTotalOrder": "EqTotalOrder",
            "GtTotalOrder": "EqTotalOrder"}


def computation_from_description(desc: dict[str, Any], operand_shapes: list[Shape],
                                 named: dict[str, Any] | None = None, name: str = "computation") -> XlaComputation:
    """A sub-computation written in a spec as ``{op: Add, ...}`` or ``{params: [...], ops: [...]}``.

    - ``params``: a list of shapes (``["f32[]", "f32[]"]``), ``operands`` (the shapes of the case's
      operands, for Call-like ops), ``elements`` (one scalar of each operand's element type, for Map),
      or ``scalars`` (the default: one scalar per operand of ``op``, of the first operand's element
      type, for reducer-like ops).
    - ``pairwise: N``: a variadic reducer over the element types of the first N operands, returning
      the tuple of ``op(acc_i, x_i)``.
    - ``select: N``: a variadic reducer keeping ``(x_0..x_N-1)`` where ``op(x_0, acc_0)`` holds, else
      ``(acc_0..)`` (the seed's max/argmax reducer is ``{op: Ge, select: 2}``).
    - ``compare: N``: a Sort comparator over 2N scalars (``p_2k``, ``p_2k+1`` of operand k's type),
      lexicographic over the operands in ``keys`` (default ``[0]``): ``op`` decides, a tie on one key
      (the matching Eq) passes to the next.
    - ``{op: Tuple, params: [...], returns: [i, ...]}``: the tuple of the parameters at those positions.
    - ``scan: inclusive | exclusive``: a Scan body over m inputs and m carries (the inits' shapes):
      ``c'_i = op(x_i, c_i)``, the outputs are the new carries (inclusive) or the old ones (exclusive).
    - ``{params: [...], ops: [step, ...], name: x}``: any small computation. A ``params`` entry is a
      shape (``"(s32[], f32[3])"``), the name of an operand argument of the case (its shape: ``init``)
      or ``name[k]`` (the k-th shape of a variadic one: ``branch_operands[1]``); ``operands`` is all of
      the case's operand shapes. The parameters are ``p0``, ``p1``...; each step ``{op: Name, args:
      [...], name: x}`` applies an op (the last one is the root; no steps: the root is ``p0``). ``args``
      are the op's arguments after its builder, in order: operand arguments are names of parameters or
      earlier steps (a list of names for a variadic one), a literal attribute a literal (``{"s32[]": 1}``),
      other attributes as written. The computation is called ``name`` (the description's, else the
      argument's).
    """
    from specs.loader import COMPUTATION_DESCRIPTION_KEYS

    unknown = set(desc) - set(COMPUTATION_DESCRIPTION_KEYS)
    if unknown or ("op" in desc) == ("ops" in desc):
        raise ValueError(f"computation description {desc!r}: needs 'op' or 'ops', unknown keys {sorted(unknown)} "
                         f"(allowed: {', '.join(COMPUTATION_DESCRIPTION_KEYS)})")
    if "ops" in desc:
        if set(desc) - {"params", "ops", "name"}:
            raise ValueError(f"computation description {desc!r}: a list of ops takes only params, ops and name")
        shapes = _description_params(desc.get("params", []), operand_shapes, named or {})
        sub = XlaBuilder(str(desc.get("name", name)))
        values = {f"p{i}": ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(shapes)}
        for step in desc["ops"]:
            _description_step(sub, step, values, operand_shapes, named)
        return sub.build()
    op = desc["op"]
    scalars = [Shape.scalar_shape(_first_array(s).element_type()) for s in operand_shapes]
    sub = XlaBuilder(f"{op.lower()}_computation")
    if "pairwise" in desc or "select" in desc:
        n = int(desc.get("pairwise", desc.get("select")))
        p = [ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(scalars[:n] + scalars[:n])]
        if "pairwise" in desc:
            ops.Tuple(sub, [getattr(ops, op)(p[i], p[n + i]) for i in range(n)])
        else:
            take = getattr(ops, op)(p[n], p[0])
            ops.Tuple(sub, [ops.Select(take, p[n + i], p[i]) for i in range(n)])
        return sub.build()
    if "compare" in desc:
        return _comparator(sub, op, scalars[:int(desc["compare"])], desc.get("keys", [0]))
    if "scan" in desc:
        return _scan_body(sub, op, operand_shapes, desc["scan"])
    params = desc.get("params", "scalars")
    if params == "operands":
        shapes = list(operand_shapes)
    elif params == "elements":
        shapes = scalars
    elif params == "scalars":
        shapes = scalars[:1] * len(specs.get(op).operand_args)
    elif isinstance(params, list):
        shapes = _description_params(params, operand_shapes, named or {})
    else:
        raise ValueError(f"computation description {desc!r}: params is a list of shapes, 'operands', 'elements' or "
                         "'scalars'")
    p = [ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(shapes)]
    if op == "Tuple":
        returns = desc.get("returns", list(range(len(p))))
        if not isinstance(returns, list) or any(not isinstance(i, int) or not 0 <= i < len(p) for i in returns):
            raise ValueError(f"computation description {desc!r}: returns lists parameter positions below {len(p)}")
        return sub.build(ops.Tuple(sub, [p[i] for i in returns]))
    getattr(ops, op)(*p)
    return sub.build()


def _first_array(shape: Shape) -> Shape:
    """The shape itself, or a tuple's first array (a tuple operand of one element type: AllReduce's)."""
    while shape.is_tuple() and shape.tuple_shapes():
        shape = shape.tuple_shapes()[0]
    return shape


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
            out.append(named[name][int(index.rstrip("]"))] if index else named[name])
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
    result = ops.build(spec.name, **kwargs)
    if "name" in step:
        values[str(step["name"])] = result


def _comparator(sub: XlaBuilder, op: str, scalars: list[Shape], keys: list[int]) -> XlaComputation:
    if op not in _TIE_OPS or not keys or any(not isinstance(k, int) or not 0 <= k < len(scalars) for k in keys):
        raise ValueError(f"comparator description: op is one of {sorted(_TIE_OPS)} and keys are operand positions "
                         f"below {len(scalars)}, got op {op!r} and keys {keys!r}")
    p = [ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(x for s in scalars for x in (s, s))]
    result = getattr(ops, op)(p[2 * keys[-1]], p[2 * keys[-1] + 1])
    for k in reversed(keys[:-1]):  # lexicographic: op on key k, or a tie on k and the rest decides
        tie = getattr(ops, _TIE_OPS[op])(p[2 * k], p[2 * k + 1])
        result = ops.Or(getattr(ops, op)(p[2 * k], p[2 * k + 1]), ops.And(tie, result))
    return sub.build(result)


def _scan_body(sub: XlaBuilder, op: str, operand_shapes: list[Shape], kind: str) -> XlaComputation:
    if kind not in ("inclusive", "exclusive") or len(operand_shapes) % 2:
        raise ValueError(f"scan description: 'inclusive' or 'exclusive' over m inputs and m inits, got {kind!r} "
                         f"over {len(operand_shapes)} operands")
    m = len(operand_shapes) // 2
    inits = operand_shapes[m:]
    xs = [ops.Parameter(sub, i, Shape.array_shape(operand_shapes[i].element_type(), inits[i].dimensions()), f"x{i}")
          for i in range(m)]
    cs = [ops.Parameter(sub, m + i, s, f"c{i}") for i, s in enumerate(inits)]
    new = [getattr(ops, op)(x, c) for x, c in zip(xs, cs)]
    return sub.build(ops.Tuple(sub, (new if kind == "inclusive" else cs) + new))


#: The head of every reproduction snippet (array literals print NaN and infinities as nan and inf).
REPRODUCTION_IMPORTS = ("import numpy as np", "import ml_dtypes  # noqa: F401",
                        "from numpy import inf, nan  # noqa: F401")


def reproduction(case: Any, backend: str) -> str:
    """A self-contained Python snippet that rebuilds and runs the case (for a program: the command that checks it)."""
    if case.kind == PROGRAM:
        return program_command(case, backend)
    lines = [*REPRODUCTION_IMPORTS, "from backend import XlaBuilder, ops, Shape, "
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
        py_name = _variable(name)
        for v in values:
            var = f"{py_name}{len(names)}" if isinstance(value, list) else py_name
            names.append(var)
            if is_token(v):
                lines.append(f"{var} = ops.CreateToken(b)")
                continue
            shape = _param_shape(v)
            if getattr(case, "operand_form", PARAMETERS) == CONSTANTS and not isinstance(v, Shape):
                lines.append(f"{var} = ops.Constant(b, {_array_literal(v)})")
                continue
            lines.append(f"{var} = ops.Parameter(b, {n}, {_shape_code(shape)}, {var!r})")
            n += 1
            if not isinstance(v, Shape):
                arg_values.append(_array_literal(v))
        keyword_name = name + "_" if keyword.iskeyword(name) else name  # `from` is passed as `from_`
        call_args.append(f"{keyword_name}=[{', '.join(names)}]" if isinstance(value, list)
                         else f"{keyword_name}={py_name}")
    lines += _computation_lines(case)
    call_args += [f"{k}={k}" if _is_description(case.op, k, v) else f"{k}={v!r}" for k, v in case.attrs.items()]
    call = f"ops.{case.op}({', '.join(call_args)})"
    if case.op in ops.SEVERAL_RESULTS:  # xla_client's Python tuple of XlaOps, as the case's one tuple result
        call = f"ops.Tuple(b, list({call}))"
    lines.append(call)
    if case.violates:
        lines.append(f"# expected: OpError naming constraint {case.violates}")
        return "\n".join(lines)
    if not case.inputs and _is_own_parameter(case):
        arg_values = [_array_literal(case.expected)]  # the op is itself a parameter: the runner binds it so
    lines.append(f"args = [{', '.join(arg_values)}]")
    devices = getattr(case, "devices", None)
    if devices is not None and devices != (1, 1):
        count = devices[0] * devices[1]
        per_device = [[_array_literal(v[d]) if isinstance(v, PerDevice) else _array_literal(v) for v in values]
                      for d in range(count) for values in [_reproduction_values(case, spec_args)]]
        lines[-1] = "args = [" + ",\n        ".join(f"[{', '.join(a)}]" for a in per_device) + "]  # one list per device"
        lines.append(f"print(get_backend({backend!r}).execute(b.build(), args, replicas={devices[0]}, "
                     f"partitions={devices[1]}))")
        lines.append(_comment(f"expected, per device: {case.expected!r}"))
        return "\n".join(lines)
    if getattr(case, "infeed", ()) or getattr(case, "outfeed", None) is not None:
        infeed = ", ".join(_array_literal(v) if not isinstance(v, tuple) else
                           "(" + ", ".join(_array_literal(x) for x in v) + ",)" for v in case.infeed)
        lines.append("outfeed = []")
        lines.append(f"print(get_backend({backend!r}).execute(b.build(), args, infeed=[{infeed}], outfeed=outfeed))")
        lines.append("print(outfeed)")
        lines.append(_comment(f"expected outfeed: {case.outfeed!r}"))
    else:
        lines.append(f"print(get_backend({backend!r}).execute(b.build(), args))")
    lines.append(_comment(f"expected: {_array_literal(case.expected)}"))
    return "\n".join(lines)


def _is_own_parameter(case: Any) -> bool:
    """Whether the case's computation has a parameter no input feeds (the op is a Parameter)."""
    try:
        comp, args = build_case(specs.get(case.op), case.inputs, case.attrs)
    except Exception:  # noqa: BLE001 - a case that does not build has no parameters to bind
        return False
    return len(comp.parameters) > len(args)


RESERVED_NAMES = frozenset({"b", "np", "ml_dtypes", "inf", "nan", "ops", "Shape", "XlaBuilder", "get_backend", "args",
                            "shapes", "named", "outfeed", "computation_from_description"})


def _variable(name: str) -> str:
    """The reproduction's variable for the input ``name``: ``from`` is ``from_``, and ``b`` (the builder's) ``b_``."""
    return name + "_" if keyword.iskeyword(name) or name in RESERVED_NAMES else name


def _comment(text: str) -> str:
    """``text`` as Python comment lines (a value's repr may span several lines)."""
    return "\n".join(f"# {line}" for line in text.splitlines())


def _is_description(op: str, name: str, value: Any) -> bool:
    """Whether attribute ``name`` of ``op`` holds a spec's description of a sub-computation (or a list of them)."""
    arg = next((a for a in specs.get(op).args if a.name == name), None)
    if arg is None:
        return False
    if arg.kind == "computation" or arg.type == "computation":
        return isinstance(value, dict)
    return arg.type == "computation_list" and isinstance(value, list) and any(isinstance(d, dict) for d in value)


def _computation_lines(case: Any) -> list[str]:
    """Lines building the case's sub-computations from their descriptions, as :func:`add_op` does (the operand
    shapes read back from the builder ``b``)."""
    spec = specs.get(case.op)
    described = [(k, v) for k, v in case.attrs.items() if _is_description(case.op, k, v)]
    if not described:
        return []
    shapes, named = [], []
    for a in spec.args:
        if a.kind not in ("operand", "operands") or a.name not in case.inputs:
            continue
        py_name = _variable(a.name)
        if a.kind == "operands":
            names = [f"{py_name}{i}" for i in range(len(case.inputs[a.name]))]
            shapes += [f"b.get_shape({n})" for n in names]
            named.append(f"{a.name!r}: [{', '.join(f'b.get_shape({n})' for n in names)}]")
        else:
            shapes.append(f"b.get_shape({py_name})")
            named.append(f"{a.name!r}: b.get_shape({py_name})")
    lines = ["from conformance.build import computation_from_description",
             f"shapes, named = [{', '.join(shapes)}], {{{', '.join(named)}}}"]
    for name, value in described:
        if isinstance(value, dict):
            lines.append(f"{name} = computation_from_description({value!r}, shapes, named, {name!r})")
        else:
            parts = [f"computation_from_description({d!r}, shapes, named, '{name}_{k}')" if isinstance(d, dict)
                     else repr(d) for k, d in enumerate(value)]
            lines.append(f"{name} = [{', '.join(parts)}]")
    return lines


def _reproduction_values(case: Any, spec_args: dict[str, str]) -> list[Any]:
    """The case's parameter values in parameter order (the builder's existing parameter first)."""
    values: list[Any] = []
    for name, value in case.inputs.items():
        for v in value if isinstance(value, list) else [value]:
            if spec_args.get(name) == "builder" or not (is_token(v) or isinstance(v, Shape)):
                values.append(v)
    return values


def _shape_code(shape: Shape) -> str:
    if shape.is_tuple():
        return "Shape.tuple_shape([" + ", ".join(_shape_code(s) for s in shape.tuple_shapes()) + "])"
    return f"Shape.array_shape({shape.element_type().name!r}, {shape.dimensions()})"


def _array_literal(v: Any) -> str:
    """Python source for the value ``v`` (an array, or a tuple of them), exact: a float array holding a NaN of
    another sign or payload than the default one is written as its bit patterns."""
    if isinstance(v, tuple):
        return "(" + "".join(f"{_array_literal(x)}, " for x in v) + ")"
    arr = np.asarray(v)
    name = arr.dtype.name
    dtype = "np.bool_" if name == "bool" else f"np.{name}" if hasattr(np, name) else f"ml_dtypes.{name}"
    if arr.dtype.kind in "fc" and _has_unusual_nan(arr):
        bits = np.dtype(f"u{arr.dtype.itemsize // (2 if arr.dtype.kind == 'c' else 1)}")
        flat = arr.reshape(-1).view(bits).tolist()
        return f"np.array({flat!r}, dtype=np.{bits.name}).view({dtype}).reshape({arr.shape!r})"
    if arr.dtype.kind == "c":
        return f"np.array({_complex_list(arr.tolist())}, dtype={dtype})"
    values = arr.astype(object).tolist() if arr.dtype.kind not in "fb" else arr.tolist()
    return f"np.array({values!r}, dtype={dtype})"


def _complex_list(values: Any) -> str:
    """A nested list of complex numbers as source (``complex(nan, -inf)``: a repr like ``nanj`` is no Python)."""
    if isinstance(values, list):
        return "[" + ", ".join(_complex_list(x) for x in values) + "]"
    return f"complex({values.real!r}, {values.imag!r})"


def _has_unusual_nan(arr: np.ndarray) -> bool:
    """Whether a NaN of ``arr`` (of either part) has a sign or payload other than ``np.nan``'s in its type."""
    for part in ([arr.real, arr.imag] if arr.dtype.kind == "c" else [arr]):
        part = np.asarray(part)
        with np.errstate(invalid="ignore"):
            nans = part[np.isnan(part.astype(np.float64))]
        if nans.size:
            bits = np.dtype(f"u{nans.dtype.itemsize}")
            if np.any(nans.view(bits) != np.array(np.nan, nans.dtype).reshape(1).view(bits)):
                return True
    return False
