"""Import a StableHLO module (text, MLIR bytecode, or a ``jax.export`` artifact) as an ``XlaComputation``.

The module is parsed by MLIR itself, through the bindings jax ships (``jax.extend.mlir``: ``ir.Module.parse``
inside jax's MLIR context, which has the ``stablehlo`` and ``chlo`` dialects), never by a parser of our own.
Each StableHLO/CHLO op becomes the spec'd op of this project that has its meaning, built with
``backend.ops``: the table ``IMPORTERS`` maps an op name to one small function. Regions become
sub-computations (a reducer, a comparator, a loop's condition and body, a branch); values a branch or a
loop body captures from the enclosing region become extra operands. ``func.call`` is inlined, so every op of
the program is an instruction of the result (what ``check-program`` localises).

    from backend.stablehlo_import import import_module
    computation = import_module(jax.jit(f).lower(x).as_text())

An op without a counterpart raises :class:`~backend.errors.UnsupportedError` naming it and its location; a
module that does not parse raises :class:`~backend.errors.OpError` with MLIR's diagnostic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jax.extend.mlir.dialects import stablehlo

from backend import ops
from backend.errors import ExecutionError, OpError, UnsupportedError
from backend.hlo.attribute_types import ConvolutionDimensionNumbers, GatherDimensionNumbers, ScatterDimensionNumbers
from backend.hlo.builder import XlaBuilder
from backend.hlo.etypes import (
    PrimitiveType,
    bit_width,
    etype_to_dtype,
    from_short_name,
    is_complex,
    is_float,
    is_int,
)
from backend.hlo.graph import XlaComputation, XlaOp
from backend.hlo.shape import Shape

_IMPORTER = "stablehlo_import"
#: The op name ("stablehlo.add") -> the function that builds it: ``fn(ctx, op, operands) -> XlaOp | list``.
IMPORTERS: dict[str, Callable[..., Any]] = {}
#: The first channel id of the collectives the importer adds (above those a program numbers its own with).
CHANNEL_BASE = 1 << 20
#: Custom-call targets that carry no computation (sharding annotations): their operand is their result.
IDENTITY_CUSTOM_CALLS = frozenset({"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})


def importer(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        for name in names:
            IMPORTERS[name] = fn
        return fn
    return register


def mapped_ops() -> list[str]:
    """The StableHLO/CHLO/func op names the importer maps, sorted."""
    return sorted(IMPORTERS)


# ---------------------------------------------------------------------------------------------
# Parsing


def _mlir() -> tuple[Any, Any]:
    from jax._src.interpreters import mlir as jax_mlir  # jax's MLIR context, with the StableHLO dialects
    from jax.extend.mlir import ir
    return jax_mlir, ir


def _to_text(program: str | bytes | Any) -> str | bytes:
    """A ``jax.export.Exported`` or its serialized bytes -> its StableHLO; text and MLIR bytecode unchanged."""
    import jax
    if isinstance(program, jax.export.Exported):
        return program.mlir_module()
    if isinstance(program, (bytes, bytearray)):
        blob = bytes(program)
        if blob.startswith(b"ML\xefR"):  # MLIR bytecode (a portable artifact)
            return blob
        try:
            return jax.export.deserialize(bytearray(blob)).mlir_module()
        except Exception as e:  # neither bytecode nor a jax.export artifact
            raise OpError(_IMPORTER, "module", f"bytes that are neither MLIR bytecode nor a jax.export artifact: "
                          f"{type(e).__name__}: {str(e)[:200]}", "module") from e
    if isinstance(program, str):
        return program
    raise OpError(_IMPORTER, "module", f"expected StableHLO text, bytecode or a jax.export.Exported, got "
                  f"{type(program).__name__}", "module")


def import_module(program: str | bytes | Any, name: str | None = None) -> XlaComputation:
    """The module's public ``main`` (or its only public function) as an ``XlaComputation``."""
    source = _to_text(program)
    jax_mlir, ir = _mlir()
    with jax_mlir.make_ir_context() as context, ir.Location.unknown():
        module = _parse(ir, context, source)
        return _Importer(ir, module).main(name)


def device_counts(program: str | bytes | Any) -> tuple[int, int]:
    """The (replicas, partitions) the module runs on: its ``mhlo.num_replicas`` and ``mhlo.num_partitions`` (1 when
    absent); a program sharded with ``shard_map`` runs on its mesh's devices as partitions."""
    source = _to_text(program)
    jax_mlir, ir = _mlir()
    with jax_mlir.make_ir_context() as context, ir.Location.unknown():
        return module_devices(ir, _parse(ir, context, source))


def module_devices(ir: Any, module: Any) -> tuple[int, int]:
    attrs = module.operation.attributes
    counts = [ir.IntegerAttr(attrs[key]).value if key in attrs else 1 for key in ("mhlo.num_replicas",
                                                                                     "mhlo.num_partitions")]
    return counts[0], counts[1]


def _parse(ir: Any, context: Any, source: str | bytes) -> Any:
    if isinstance(source, bytes):
        try:
            text = stablehlo.deserialize_portable_artifact_str(source)  # versioned VHLO bytecode -> StableHLO
            return ir.Module.parse(text)
        except Exception:  # plain (unversioned) MLIR bytecode: parsed below
            pass
    try:
        return ir.Module.parse(source)
    except Exception as e:  # MLIR's diagnostic (ir.MLIRError)
        raise OpError(_IMPORTER, "module", f"the module does not parse: {str(e)[:600]}", "module") from e


def _loc(op: Any) -> str:
    return str(op.location)


# ---------------------------------------------------------------------------------------------
# Types and attributes


_INT_TYPES = {"i1": "pred", "i2": "s2", "i4": "s4", "i8": "s8", "i16": "s16", "i32": "s32", "i64": "s64",
              "ui1": "u1", "ui2": "u2", "ui4": "u4", "ui8": "u8", "ui16": "u16", "ui32": "u32", "ui64": "u64",
              "complex<f32>": "c64", "complex<f64>": "c128"}


def element_type(ir: Any, t: Any) -> PrimitiveType:
    text = str(t)
    try:
        return from_short_name(_INT_TYPES.get(text, text.lower()))
    except ValueError:
        raise UnsupportedError(_IMPORTER, f"element type {text}", "no element type of this project has it") from None


def shape_of(ir: Any, t: Any) -> Shape:
    if isinstance(t, ir.RankedTensorType):
        rt = ir.RankedTensorType(t)
        return Shape.array_shape(element_type(ir, rt.element_type), tuple(rt.shape))
    if isinstance(t, ir.TupleType):
        tt = ir.TupleType(t)
        return Shape.tuple_shape([shape_of(ir, tt.get_type(i)) for i in range(tt.num_types)])
    if str(t) == "!stablehlo.token":
        return Shape.token_shape()
    raise UnsupportedError(_IMPORTER, f"type {t}", "only ranked tensors, tuples and tokens have shapes here")


def _ints(ir: Any, attr: Any) -> list[int]:
    if attr is None:
        return []
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return list(ir.DenseI64ArrayAttr(attr))
    if isinstance(attr, ir.DenseI32ArrayAttr):
        return list(ir.DenseI32ArrayAttr(attr))
    return [int(v) for v in np.asarray(ir.DenseIntElementsAttr(attr)).reshape(-1)]


def _bools(ir: Any, attr: Any) -> list[bool]:
    if attr is None:
        return []
    if isinstance(attr, ir.DenseBoolArrayAttr):
        return list(ir.DenseBoolArrayAttr(attr))
    return [bool(v) for v in np.asarray(ir.DenseElementsAttr(attr)).reshape(-1)]


def _pairs(ir: Any, attr: Any, rank: int) -> list[tuple[int, int]]:
    if attr is None:
        return [(0, 0)] * rank
    flat = _ints(ir, attr)
    return [(flat[2 * i], flat[2 * i + 1]) for i in range(len(flat) // 2)]


def _attr(op: Any, name: str) -> Any:
    attrs = op.attributes
    return attrs[name] if name in attrs else None


def _int(ir: Any, op: Any, name: str, default: int = 0) -> int:
    a = _attr(op, name)
    return default if a is None else ir.IntegerAttr(a).value


def _bool(ir: Any, op: Any, name: str, default: bool = False) -> bool:
    a = _attr(op, name)
    return default if a is None else ir.BoolAttr(a).value


def _enum(attr: Any) -> str:
    """``#stablehlo<comparison_direction GT>`` -> ``GT``."""
    return str(attr).rstrip(">").split()[-1]


def constant_value(ir: Any, op: Any, shape: Shape) -> np.ndarray:
    """A ``stablehlo.constant``'s value as a NumPy array of the shape's element type."""
    dtype = etype_to_dtype(shape.element_type())
    dims = shape.dimensions()
    try:
        dense = ir.DenseElementsAttr(op.attributes["value"])
    except Exception:  # complex elements: the bindings cannot even hand out the attribute
        return _evaluated_constant(ir, op, shape)
    if dense.is_splat:
        value = dense.get_splat_value()
        if isinstance(value, ir.BoolAttr):
            return np.full(dims, ir.BoolAttr(value).value, dtype=dtype)
        if isinstance(value, ir.FloatAttr):
            return np.full(dims, ir.FloatAttr(value).value, dtype=dtype)
        if isinstance(value, ir.IntegerAttr):
            scalar = ir.IntegerAttr(value).value
            return np.full(dims, bool(scalar) if dtype == np.bool_ else scalar, dtype=dtype)
    try:
        array = np.asarray(dense)
    except Exception:  # bf16 and f8 elements have no buffer in the bindings
        array = None
    if array is None or array.dtype == object:
        if is_int(shape.element_type()):  # integers narrower than 8 bits: the bindings read none of them
            raise UnsupportedError(_IMPORTER, "stablehlo.constant", f"a non-splat {shape.element_type().name} "
                                   "constant cannot be read: the MLIR bindings read no integers narrower than 8 bits")
        return _evaluated_constant(ir, op, shape)
    return np.asarray(array, dtype=dtype).reshape(dims)


def _evaluated_constant(ir: Any, op: Any, shape: Shape) -> np.ndarray:
    """A constant the bindings cannot read, read through StableHLO's own interpreter (``eval_module``): its
    bits as integers (bf16, f8...), or its real and imaginary parts (complex)."""
    from jax.extend.mlir.dialects import func
    dtype = etype_to_dtype(shape.element_type())
    if not (is_float(shape.element_type()) or is_complex(shape.element_type())) \
            or bit_width(shape.element_type()) not in (8, 16, 64, 128):
        raise UnsupportedError(_IMPORTER, "stablehlo.constant", f"a non-splat {shape.element_type().name} constant "
                               "cannot be read through the bindings")
    result = op.results[0]
    tensor = ir.RankedTensorType(result.type)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        if dtype.kind == "c":
            part = ir.F32Type.get() if dtype.itemsize == 8 else ir.F64Type.get()
            out_types = [ir.RankedTensorType.get(tensor.shape, part)] * 2
        else:
            out_types = [ir.RankedTensorType.get(tensor.shape, ir.IntegerType.get_signless(8 * dtype.itemsize))]
        f = func.FuncOp("main", ir.FunctionType.get([], out_types))
        block = f.add_entry_block()
        with ir.InsertionPoint(block):
            value = op.operation.clone().results[0]
            if dtype.kind == "c":
                outs = [stablehlo.real(value), stablehlo.imag(value)]
            else:
                outs = [stablehlo.bitcast_convert(out_types[0], value)]
            func.ReturnOp(outs)
    try:
        parts = [np.asarray(a) for a in stablehlo.eval_module(module, [])]
    except Exception as e:  # an element type the interpreter does not know either
        raise UnsupportedError(_IMPORTER, "stablehlo.constant", f"its {shape.element_type().name} value cannot be "
                               f"read: {e}") from None
    if dtype.kind == "c":
        return (parts[0] + 1j * parts[1]).astype(dtype).reshape(shape.dimensions())
    bits = np.dtype(f"u{dtype.itemsize}")
    return parts[0].astype(bits).view(dtype).reshape(shape.dimensions())


# ---------------------------------------------------------------------------------------------
# The walker


class _Context:
    """What an op's import function sees: the builder, the importer (for regions), the op's location."""

    def __init__(self, importer_: _Importer, builder: XlaBuilder, op: Any) -> None:
        self.importer = importer_
        self.builder = builder
        self.op = op
        self.ir = importer_.ir

    def result_shape(self, k: int = 0) -> Shape:
        return shape_of(self.ir, self.op.results[k].type)

    def region(self, k: int, name: str, tuple_params: bool = False) -> XlaComputation:
        return self.importer.region_computation(self.op.regions[k], name, tuple_params=tuple_params)

    def ints(self, name: str) -> list[int]:
        return _ints(self.ir, _attr(self.op, name))

    def attr(self, name: str) -> Any:
        return _attr(self.op, name)


class _Importer:
    def __init__(self, ir: Any, module: Any) -> None:
        self.ir = ir
        self.module = module
        self.functions: dict[str, Any] = {}
        self.meshes: dict[str, Any] = {}  # sdy.mesh ops by name (a shard_map program's device mesh)
        for op in module.body.operations:
            if op.operation.name == "func.func":
                self.functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
            elif op.operation.name == "sdy.mesh":
                self.meshes[ir.StringAttr(op.attributes["sym_name"]).value] = op.attributes["mesh"]
        self.replicas, self.partitions = module_devices(ir, module)
        self._counter = 0
        self._channel = CHANNEL_BASE

    def main(self, name: str | None) -> XlaComputation:
        if name is None:
            public = [n for n, f in self.functions.items()
                      if "sym_visibility" not in f.attributes
                      or self.ir.StringAttr(f.attributes["sym_visibility"]).value == "public"]
            name = "main" if "main" in self.functions else (public[0] if len(public) == 1 else None)
            if name is None:
                raise OpError(_IMPORTER, "module", f"no function 'main' and not exactly one public function "
                              f"(public: {public})", "module")
        if name not in self.functions:
            raise OpError(_IMPORTER, "module", f"no function '{name}' (functions: {sorted(self.functions)})",
                          "module")
        func = self.functions[name]
        block = func.regions[0].blocks[0]
        b = XlaBuilder(name)
        params = [ops.Parameter(b, i, shape_of(self.ir, arg.type), f"arg{i}") for i, arg in enumerate(block.arguments)]
        results = self.block(b, block, params, {})
        return self._finish(b, results)

    def _finish(self, b: XlaBuilder, results: list[XlaOp]) -> XlaComputation:
        root = results[0] if len(results) == 1 else ops.Tuple(b, list(results))
        return b.build(root)

    def _name(self, base: str) -> str:
        self._counter += 1
        return f"{base}.{self._counter}"

    def channel(self) -> int:
        """A channel id for a collective the importer adds (a sharded program's gathering of its results)."""
        self._channel += 1
        return self._channel

    def block(self, b: XlaBuilder, block: Any, args: Sequence[XlaOp], env: dict[Any, XlaOp]) -> list[XlaOp]:
        """Builds the block's ops into ``b``; ``env`` maps the values defined outside it; returns its results."""
        env = dict(env)
        for arg, value in zip(block.arguments, args):
            env[arg] = value
        for op in block.operations:
            name = op.operation.name
            if name in ("func.return", "stablehlo.return", "sdy.return"):
                return [env[v] for v in op.operands]
            operands = [env[v] for v in op.operands]
            results = self.op(b, op, operands, env)
            for r, v in zip(op.results, results):
                env[r] = v
        raise OpError(_IMPORTER, "module", "a block without a terminator", "module")

    def op(self, b: XlaBuilder, op: Any, operands: list[XlaOp], env: dict[Any, XlaOp]) -> list[XlaOp]:
        name = op.operation.name
        fn = IMPORTERS.get(name)
        if fn is None:
            raise UnsupportedError(_IMPORTER, name, f"no op of this project has its meaning (at {_loc(op)})")
        ctx = _Context(self, b, op)
        ctx.env = env  # type: ignore[attr-defined]
        try:
            out = fn(ctx, op, operands)
        except (OpError, UnsupportedError, ExecutionError) as e:
            if isinstance(e, UnsupportedError) and "(at " not in e.reason:
                raise UnsupportedError(e.backend, e.op, f"{e.reason} (at {_loc(op)})") from e
            raise
        except Exception as e:  # an attribute the bindings cannot read, an unexpected form
            raise UnsupportedError(_IMPORTER, name, f"cannot import it: {type(e).__name__}: {e} (at {_loc(op)})") from e
        if isinstance(out, list):
            return out
        if len(op.results) > 1:
            return [ops.GetTupleElement(out, i) for i in range(len(op.results))]
        return [out]

    def call(self, b: XlaBuilder, callee: str, operands: list[XlaOp]) -> list[XlaOp]:
        func = self.functions.get(callee)
        if func is None:
            raise OpError(_IMPORTER, "module", f"call of an undefined function '{callee}'", "module")
        return self.block(b, func.regions[0].blocks[0], operands, {})

    def region_computation(self, region: Any, name: str, tuple_params: bool = False,
                           extra: Sequence[Any] = ()) -> XlaComputation:
        """A region as a computation: a parameter per block argument (or one tuple parameter of them all,
        then ``extra``, the captured values), a tuple result when it returns several values."""
        block = region.blocks[0]
        b = XlaBuilder(self._name(name))
        arg_shapes = [shape_of(self.ir, a.type) for a in block.arguments]
        extra_shapes = [shape_of(self.ir, v.type) for v in extra]
        env: dict[Any, XlaOp] = {}
        if tuple_params:
            shapes = arg_shapes + extra_shapes
            param = ops.Parameter(b, 0, Shape.tuple_shape(shapes) if len(shapes) != 1 else shapes[0], "state")
            parts = [param] if len(shapes) == 1 else [ops.GetTupleElement(param, i) for i in range(len(shapes))]
            args = parts[:len(arg_shapes)]
            for v, p in zip(extra, parts[len(arg_shapes):]):
                env[v] = p
        else:
            args = [ops.Parameter(b, i, s, f"p{i}") for i, s in enumerate(arg_shapes)]
        results = self.block(b, block, args, env)
        return self._finish(b, results)

    def captures(self, regions: Sequence[Any]) -> list[Any]:
        """The values the regions use that are defined outside them, in first-use order."""
        defined: set[Any] = set()
        used: list[Any] = []

        def walk(region: Any) -> None:
            for block in region.blocks:
                defined.update(block.arguments)
                for op in block.operations:
                    used.extend(op.operands)
                    defined.update(op.results)
                    for inner in op.regions:
                        walk(inner)
        for region in regions:
            walk(region)
        out: list[Any] = []
        for v in used:
            if v not in defined and v not in out:
                out.append(v)
        return out


# ---------------------------------------------------------------------------------------------
# The ops, one small function each


_ELEMENTWISE = {
    "stablehlo.abs": "Abs", "stablehlo.add": "Add", "stablehlo.and": "And", "stablehlo.atan2": "Atan2",
    "stablehlo.cbrt": "Cbrt", "stablehlo.ceil": "Ceil", "stablehlo.count_leading_zeros": "Clz",
    "stablehlo.complex": "Complex", "stablehlo.cosine": "Cos", "stablehlo.divide": "Div",
    "stablehlo.exponential": "Exp", "stablehlo.exponential_minus_one": "Expm1", "stablehlo.floor": "Floor",
    "stablehlo.imag": "Imag", "stablehlo.is_finite": "IsFinite", "stablehlo.log": "Log",
    "stablehlo.log_plus_one": "Log1p", "stablehlo.logistic": "Logistic", "stablehlo.maximum": "Max",
    "stablehlo.minimum": "Min", "stablehlo.multiply": "Mul", "stablehlo.negate": "Neg", "stablehlo.not": "Not",
    "stablehlo.or": "Or", "stablehlo.popcnt": "PopulationCount", "stablehlo.power": "Pow",
    "stablehlo.real": "Real", "stablehlo.remainder": "Rem", "stablehlo.round_nearest_afz": "Round",
    "stablehlo.round_nearest_even": "RoundNearestEven", "stablehlo.rsqrt": "Rsqrt",
    "stablehlo.shift_left": "ShiftLeft", "stablehlo.shift_right_arithmetic": "ShiftRightArithmetic",
    "stablehlo.shift_right_logical": "ShiftRightLogical", "stablehlo.sign": "Sign", "stablehlo.sine": "Sin",
    "stablehlo.sqrt": "Sqrt", "stablehlo.subtract": "Sub", "stablehlo.tan": "Tan", "stablehlo.tanh": "Tanh",
    "stablehlo.xor": "Xor", "stablehlo.select": "Select", "stablehlo.clamp": "Clamp",
    "chlo.acos": "Acos", "chlo.acosh": "Acosh", "chlo.asin": "Asin", "chlo.asinh": "Asinh", "chlo.atan": "Atan",
    "chlo.atanh": "Atanh", "chlo.bessel_i0e": "BesselI0e", "chlo.bessel_i1e": "BesselI1e", "chlo.conj": "Conj",
    "chlo.cosh": "Cosh", "chlo.digamma": "Digamma", "chlo.erf": "Erf", "chlo.erfc": "Erfc", "chlo.erf_inv": "ErfInv",
    "chlo.lgamma": "Lgamma", "chlo.next_after": "NextAfter", "chlo.sinh": "Sinh", "chlo.tan": "Tan",
    "chlo.zeta": "Zeta", "chlo.igamma": "Igamma", "chlo.igammac": "Igammac", "chlo.square": "Square",
}


def _elementwise(name: str) -> Callable[..., Any]:
    def build(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
        return getattr(ops, name)(*operands)
    build.__name__ = f"import_{name}"
    return build


for _op_name, _ops_name in _ELEMENTWISE.items():
    IMPORTERS[_op_name] = _elementwise(_ops_name)


@importer("func.call")
def _call(ctx: _Context, op: Any, operands: list[XlaOp]) -> list[XlaOp]:
    callee = str(op.attributes["callee"]).lstrip("@")
    return ctx.importer.call(ctx.builder, callee, operands)


@importer("stablehlo.composite")
def _composite(ctx: _Context, op: Any, operands: list[XlaOp]) -> list[XlaOp]:
    callee = str(op.attributes["decomposition"]).lstrip("@")  # its meaning is its decomposition
    return ctx.importer.call(ctx.builder, callee, operands)


@importer("stablehlo.constant")
def _constant(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Constant(ctx.builder, constant_value(ctx.ir, op, ctx.result_shape()))


@importer("stablehlo.iota")
def _iota(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Iota(ctx.builder, ctx.result_shape(), _int(ctx.ir, op, "iota_dimension"))


@importer("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.BroadcastInDim(operands[0], ctx.result_shape().dimensions(), ctx.ints("broadcast_dimensions"))


@importer("stablehlo.broadcast")
def _broadcast(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Broadcast(operands[0], ctx.ints("broadcast_sizes"))


@importer("stablehlo.reshape")
def _reshape(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Reshape(operands[0], ctx.result_shape().dimensions())


@importer("stablehlo.transpose")
def _transpose(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Transpose(operands[0], ctx.ints("permutation"))


@importer("stablehlo.reverse")
def _reverse(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Rev(operands[0], ctx.ints("dimensions"))


@importer("stablehlo.slice")
def _slice(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Slice(operands[0], ctx.ints("start_indices"), ctx.ints("limit_indices"), ctx.ints("strides"))


@importer("stablehlo.dynamic_slice")
def _dynamic_slice(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.DynamicSlice(operands[0], operands[1:], ctx.ints("slice_sizes"))


@importer("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.DynamicUpdateSlice(operands[0], operands[1], operands[2:])


@importer("stablehlo.concatenate")
def _concatenate(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.ConcatInDim(ctx.builder, operands, _int(ctx.ir, op, "dimension"))


@importer("stablehlo.pad")
def _pad(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    config = list(zip(ctx.ints("edge_padding_low"), ctx.ints("edge_padding_high"), ctx.ints("interior_padding")))
    return ops.Pad(operands[0], operands[1], config)


@importer("stablehlo.convert")
def _convert(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.ConvertElementType(operands[0], ctx.result_shape().element_type())


@importer("stablehlo.bitcast_convert")
def _bitcast_convert(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.BitcastConvertType(operands[0], ctx.result_shape().element_type())


@importer("stablehlo.reduce_precision")
def _reduce_precision(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.ReducePrecision(operands[0], _int(ctx.ir, op, "exponent_bits"), _int(ctx.ir, op, "mantissa_bits"))


@importer("stablehlo.compare")
def _compare(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    kind = ctx.attr("compare_type")
    return ops.Compare(operands[0], operands[1], (), _enum(ctx.attr("comparison_direction")),
                       None if kind is None else _enum(kind))


def _precision(ctx: _Context) -> list[str] | None:
    a = ctx.attr("precision_config")
    if a is None:
        return None
    array = ctx.ir.ArrayAttr(a)
    return [_enum(array[i]) for i in range(len(array))]


def _preferred(ctx: _Context, operand_shape: Shape) -> Any:
    out = ctx.result_shape().element_type()
    return None if out == operand_shape.element_type() else out


@importer("stablehlo.dot_general")
def _dot_general(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    d = stablehlo.DotDimensionNumbers(ctx.attr("dot_dimension_numbers"))
    numbers = ((list(d.lhs_contracting_dimensions), list(d.rhs_contracting_dimensions)),
               (list(d.lhs_batching_dimensions), list(d.rhs_batching_dimensions)))
    return ops.DotGeneral(operands[0], operands[1], numbers, _precision(ctx),
                          _preferred(ctx, ctx.builder.get_shape(operands[0])))


@importer("stablehlo.dot")
def _dot(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    lhs_rank = len(ctx.builder.get_shape(operands[0]).dimensions())
    numbers = (([lhs_rank - 1], [0]), ([], []))
    return ops.DotGeneral(operands[0], operands[1], numbers, _precision(ctx),
                          _preferred(ctx, ctx.builder.get_shape(operands[0])))


@importer("stablehlo.convolution")
def _convolution(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    d = stablehlo.ConvDimensionNumbers(ctx.attr("dimension_numbers"))
    numbers = ConvolutionDimensionNumbers(
        input_batch_dimension=d.input_batch_dimension, input_feature_dimension=d.input_feature_dimension,
        input_spatial_dimensions=list(d.input_spatial_dimensions),
        kernel_input_feature_dimension=d.kernel_input_feature_dimension,
        kernel_output_feature_dimension=d.kernel_output_feature_dimension,
        kernel_spatial_dimensions=list(d.kernel_spatial_dimensions),
        output_batch_dimension=d.output_batch_dimension, output_feature_dimension=d.output_feature_dimension,
        output_spatial_dimensions=list(d.output_spatial_dimensions))
    spatial = len(numbers.input_spatial_dimensions)
    strides = ctx.ints("window_strides") or [1] * spatial
    lhs_dilation = ctx.ints("lhs_dilation") or [1] * spatial
    rhs_dilation = ctx.ints("rhs_dilation") or [1] * spatial
    reversal = _bools(ctx.ir, ctx.attr("window_reversal")) or None
    return ops.ConvGeneralDilated(
        operands[0], operands[1], strides, _pairs(ctx.ir, ctx.attr("padding"), spatial), lhs_dilation,
        rhs_dilation, numbers, _int(ctx.ir, op, "feature_group_count", 1), _int(ctx.ir, op, "batch_group_count", 1),
        _precision(ctx), _preferred(ctx, ctx.builder.get_shape(operands[0])),
        reversal if reversal and any(reversal) else None)


def _no_captures(ctx: _Context) -> None:
    captured = ctx.importer.captures(list(ctx.op.regions))
    if captured:
        raise UnsupportedError(_IMPORTER, ctx.op.operation.name,
                               f"its region uses {len(captured)} value(s) defined outside it")


@importer("stablehlo.reduce")
def _reduce(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    _no_captures(ctx)
    n = len(operands) // 2
    return ops.Reduce(operands[:n], operands[n:], ctx.region(0, "reducer"), ctx.ints("dimensions"))


@importer("stablehlo.reduce_window")
def _reduce_window(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    _no_captures(ctx)
    n = len(operands) // 2
    rank = len(ctx.builder.get_shape(operands[0]).dimensions())
    return ops.ReduceWindow(operands[:n], operands[n:], ctx.region(0, "reducer"), ctx.ints("window_dimensions"),
                            ctx.ints("window_strides") or [1] * rank, _pairs(ctx.ir, ctx.attr("padding"), rank),
                            ctx.ints("base_dilations") or [1] * rank, ctx.ints("window_dilations") or [1] * rank)


@importer("stablehlo.select_and_scatter")
def _select_and_scatter(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    _no_captures(ctx)
    rank = len(ctx.builder.get_shape(operands[0]).dimensions())
    return ops.SelectAndScatter(operands[0], ctx.region(0, "select"), ctx.ints("window_dimensions"),
                                ctx.ints("window_strides") or [1] * rank, _pairs(ctx.ir, ctx.attr("padding"), rank),
                                operands[1], operands[2], ctx.region(1, "scatter"))


@importer("stablehlo.gather")
def _gather(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    d = stablehlo.GatherDimensionNumbers(ctx.attr("dimension_numbers"))
    numbers = GatherDimensionNumbers(
        offset_dims=list(d.offset_dims), collapsed_slice_dims=list(d.collapsed_slice_dims),
        start_index_map=list(d.start_index_map), index_vector_dim=d.index_vector_dim,
        operand_batching_dims=list(d.operand_batching_dims),
        start_indices_batching_dims=list(d.start_indices_batching_dims))
    return ops.Gather(operands[0], operands[1], numbers, ctx.ints("slice_sizes"),
                      _bool(ctx.ir, op, "indices_are_sorted"))


@importer("stablehlo.scatter")
def _scatter(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    _no_captures(ctx)
    d = stablehlo.ScatterDimensionNumbers(ctx.attr("scatter_dimension_numbers"))
    numbers = ScatterDimensionNumbers(
        update_window_dims=list(d.update_window_dims), inserted_window_dims=list(d.inserted_window_dims),
        scatter_dims_to_operand_dims=list(d.scattered_dims_to_operand_dims), index_vector_dim=d.index_vector_dim,
        input_batching_dims=list(d.input_batching_dims),
        scatter_indices_batching_dims=list(d.scatter_indices_batching_dims))
    n = (len(operands) - 1) // 2
    return ops.Scatter(operands[:n], operands[n], operands[n + 1:], ctx.region(0, "update"), numbers,
                       _bool(ctx.ir, op, "indices_are_sorted"), _bool(ctx.ir, op, "unique_indices"))


@importer("stablehlo.sort")
def _sort(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    _no_captures(ctx)
    return ops.Sort(operands, ctx.region(0, "comparator"), _int(ctx.ir, op, "dimension", -1),
                    _bool(ctx.ir, op, "is_stable"))


@importer("stablehlo.while")
def _while(ctx: _Context, op: Any, operands: list[XlaOp]) -> list[XlaOp]:
    imp, b = ctx.importer, ctx.builder
    captured = imp.captures(list(op.regions))
    env = ctx.env  # type: ignore[attr-defined]
    state = operands + [env[v] for v in captured]
    init = state[0] if len(state) == 1 else ops.Tuple(b, state)
    cond = imp.region_computation(op.regions[0], "cond", tuple_params=True, extra=captured)
    body = _loop_body(imp, op.regions[1], captured)
    loop = ops.While(cond, body, init)
    if len(state) == 1:
        return [loop]
    return [ops.GetTupleElement(loop, i) for i in range(len(operands))]


def _loop_body(imp: _Importer, region: Any, captured: Sequence[Any]) -> XlaComputation:
    """The body passes the captured values through unchanged, after its own results."""
    if not captured:
        return imp.region_computation(region, "body", tuple_params=True)
    block = region.blocks[0]
    b = XlaBuilder(imp._name("body"))
    shapes = [shape_of(imp.ir, a.type) for a in block.arguments] + [shape_of(imp.ir, v.type) for v in captured]
    param = ops.Parameter(b, 0, Shape.tuple_shape(shapes), "state")
    parts = [ops.GetTupleElement(param, i) for i in range(len(shapes))]
    n = len(block.arguments)
    results = imp.block(b, block, parts[:n], dict(zip(captured, parts[n:])))
    ops.Tuple(b, results + parts[n:])
    return b.build()


def _branch(imp: _Importer, region: Any, captured: Sequence[Any]) -> XlaComputation:
    """A branch taking one tuple of the captured values."""
    block = region.blocks[0]
    b = XlaBuilder(imp._name("branch"))
    shapes = [shape_of(imp.ir, v.type) for v in captured]
    param = ops.Parameter(b, 0, Shape.tuple_shape(shapes), "captured")
    env = {v: ops.GetTupleElement(param, i) for i, v in enumerate(captured)}
    return imp._finish(b, imp.block(b, block, [], env))


@importer("stablehlo.case", "stablehlo.if")
def _case(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    imp, b = ctx.importer, ctx.builder
    env = ctx.env  # type: ignore[attr-defined]
    regions = list(op.regions)
    captured_each = [imp.captures([r]) for r in regions]
    branches = [_branch(imp, r, c) for r, c in zip(regions, captured_each)]
    arguments = [ops.Tuple(b, [env[v] for v in c]) for c in captured_each]
    if op.operation.name == "stablehlo.if":  # regions: true, false
        return ops.Conditional(operands[0], arguments[0], branches[0], arguments[1], branches[1])
    return ops.Conditional(operands[0], branches, arguments)


def _float_attr(ctx: _Context, name: str) -> float:
    return ctx.ir.FloatAttr(ctx.attr(name)).value


@importer("stablehlo.batch_norm_training")
def _batch_norm_training(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.BatchNormTraining(*operands, _float_attr(ctx, "epsilon"), _int(ctx.ir, op, "feature_index"))


@importer("stablehlo.batch_norm_inference")
def _batch_norm_inference(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.BatchNormInference(*operands, _float_attr(ctx, "epsilon"), _int(ctx.ir, op, "feature_index"))


@importer("stablehlo.batch_norm_grad")
def _batch_norm_grad(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.BatchNormGrad(*operands, _float_attr(ctx, "epsilon"), _int(ctx.ir, op, "feature_index"))


@importer("stablehlo.create_token")
def _create_token(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.CreateToken(ctx.builder)


@importer("stablehlo.after_all")
def _after_all(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.AfterAll(ctx.builder, operands) if operands else ops.CreateToken(ctx.builder)


@importer("stablehlo.get_dimension_size")
def _get_dimension_size(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.GetDimensionSize(operands[0], _int(ctx.ir, op, "dimension"))


@importer("stablehlo.map")
def _map(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    _no_captures(ctx)
    return ops.Map(operands, ctx.region(0, "mapped"), ctx.ints("dimensions"))


def _is_inf(ctx: _Context, x: XlaOp, sign: int) -> XlaOp:
    """|x| == inf (sign 0), x == +inf (1) or x == -inf (-1)."""
    dtype = etype_to_dtype(ctx.builder.get_shape(x).element_type())
    inf = ops.Broadcast(ops.Constant(ctx.builder, np.array(np.inf if sign >= 0 else -np.inf, dtype)),
                        ctx.builder.get_shape(x).dimensions())
    return ops.Eq(ops.Abs(x) if sign == 0 else x, inf)


@importer("chlo.is_inf")
def _chlo_is_inf(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return _is_inf(ctx, operands[0], 0)


@importer("chlo.is_pos_inf")
def _chlo_is_pos_inf(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return _is_inf(ctx, operands[0], 1)


@importer("chlo.is_neg_inf")
def _chlo_is_neg_inf(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return _is_inf(ctx, operands[0], -1)


@importer("chlo.constant_like")
def _chlo_constant_like(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    shape = ctx.result_shape()
    value = np.asarray(ir_scalar(ctx.ir, ctx.attr("value")), etype_to_dtype(shape.element_type()))
    return ops.Broadcast(ops.Constant(ctx.builder, value), shape.dimensions())


def ir_scalar(ir: Any, attr: Any) -> Any:
    for kind in (ir.BoolAttr, ir.IntegerAttr, ir.FloatAttr):
        if isinstance(attr, kind):
            return kind(attr).value
    raise UnsupportedError(_IMPORTER, "chlo.constant_like", f"a value {attr} that is not a number")


@importer("stablehlo.rng")
def _rng(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    distribution = _enum(ctx.attr("rng_distribution"))
    make = ops.RngNormal if distribution == "NORMAL" else ops.RngUniform
    return make(operands[0], operands[1], ctx.result_shape())


@importer("stablehlo.rng_bit_generator")
def _rng_bit_generator(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    algorithm = {"DEFAULT": "RNG_DEFAULT", "THREE_FRY": "RNG_THREE_FRY", "PHILOX": "RNG_PHILOX"}[
        _enum(ctx.attr("rng_algorithm"))]
    return ops.RngBitGenerator(algorithm, operands[0], ctx.result_shape(1))


@importer("stablehlo.optimization_barrier")
def _optimization_barrier(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    if len(operands) == 1:
        return ops.OptimizationBarrier(operands[0])
    return ops.OptimizationBarrier(ops.Tuple(ctx.builder, operands))


@importer("stablehlo.tuple")
def _tuple(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Tuple(ctx.builder, operands)


@importer("stablehlo.get_tuple_element")
def _get_tuple_element(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.GetTupleElement(operands[0], _int(ctx.ir, op, "index"))


@importer("stablehlo.cholesky")
def _cholesky(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Cholesky(operands[0], _bool(ctx.ir, op, "lower"))


@importer("stablehlo.triangular_solve")
def _triangular_solve(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    transpose = _enum(ctx.attr("transpose_a"))
    return ops.TriangularSolve(operands[0], operands[1], _bool(ctx.ir, op, "left_side"), _bool(ctx.ir, op, "lower"),
                               _bool(ctx.ir, op, "unit_diagonal"), transpose)


@importer("stablehlo.fft")
def _fft(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.Fft(operands[0], _enum(ctx.attr("fft_type")), ctx.ints("fft_length"))


@importer("chlo.top_k")
def _top_k(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.TopK(operands[0], _int(ctx.ir, op, "k"))


#: LAPACK's linear-algebra targets jax emits on CPU (``lapack_<t>getrf_ffi``, t in s, d, c, z) -> the function that
#: builds their results from the spec'd ops.
LAPACK_TARGETS: dict[str, Callable[..., list[XlaOp]]] = {}


def lapack(*routines: str) -> Callable[[Callable[..., list[XlaOp]]], Callable[..., list[XlaOp]]]:
    def register(fn: Callable[..., list[XlaOp]]) -> Callable[..., list[XlaOp]]:
        for routine in routines:
            LAPACK_TARGETS[routine] = fn
        return fn
    return register


def _lapack_routine(target: str) -> str | None:
    """``lapack_spotrf_ffi`` -> ``potrf``; ``cusolver_potrf_ffi`` -> ``cusolver_potrf``."""
    if target.startswith("lapack_") and target.endswith("_ffi") and target[7] in "sdcz":
        return target[8:-4]
    if target.startswith(("cusolver_", "hipsolver_")) and target.endswith("_ffi"):
        return "cusolver_" + target.split("_", 1)[1][:-4]
    return None


def _flag(ctx: _Context, key: str, default: bool) -> bool:
    """A boolean entry of the custom call's ``mhlo.backend_config`` (cuSOLVER's flags)."""
    config = ctx.attr("mhlo.backend_config")
    if config is None or key not in ctx.ir.DictAttr(config):
        return default
    return ctx.ir.BoolAttr(ctx.ir.DictAttr(config)[key]).value


def _config(ctx: _Context, key: str, default: int = 0) -> int:
    """An entry of the custom call's ``mhlo.backend_config`` dictionary (LAPACK's flags, as character codes)."""
    config = ctx.attr("mhlo.backend_config")
    if config is None:
        return default
    d = ctx.ir.DictAttr(config)
    return ctx.ir.IntegerAttr(d[key]).value if key in d else default


def _info(ctx: _Context, values: XlaOp, k: int) -> XlaOp:
    """LAPACK's ``info`` (result ``k``, one per matrix of the batch): 0 where the matrix's factor is finite, 1
    where the factorisation broke down (the spec'd op gives NaN there)."""
    b = ctx.builder
    shape = b.get_shape(values)
    rank = len(shape.dimensions())
    batch = len(ctx.result_shape(k).dimensions())
    pred = Shape.array_shape(PrimitiveType.PRED, ())
    sub = XlaBuilder(ctx.importer._name("all"))
    ops.And(ops.Parameter(sub, 0, pred, "x"), ops.Parameter(sub, 1, pred, "y"))
    if shape.element_type() in (PrimitiveType.C64, PrimitiveType.C128):
        is_finite = ops.And(ops.IsFinite(ops.Real(values)), ops.IsFinite(ops.Imag(values)))
    else:
        is_finite = ops.IsFinite(values)
    finite = ops.Reduce([is_finite], [ops.Constant(b, np.bool_(True))], sub.build(),
                        list(range(batch, rank)))
    etype = ctx.result_shape(k).element_type()
    zero = ops.Constant(b, np.zeros((), etype_to_dtype(etype)))
    one = ops.Constant(b, np.ones((), etype_to_dtype(etype)))
    dims = ctx.result_shape(k).dimensions()
    return ops.Select(finite, ops.Broadcast(zero, dims), ops.Broadcast(one, dims))


def _adjoint(x: XlaOp, b: XlaBuilder) -> XlaOp:
    shape = b.get_shape(x)
    rank = len(shape.dimensions())
    t = ops.Transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])
    return ops.Conj(t) if shape.element_type() in (PrimitiveType.C64, PrimitiveType.C128) else t


def _leading(x: XlaOp, b: XlaBuilder, dims: Sequence[int]) -> XlaOp:
    """The leading ``dims`` block of x (the columns or rows a reduced factorisation keeps)."""
    have = b.get_shape(x).dimensions()
    if tuple(have) == tuple(dims):
        return x
    return ops.Slice(x, [0] * len(dims), list(dims), [1] * len(dims))


@lapack("potrf")
def _potrf(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    factor = ops.Cholesky(operands[0], _config(ctx, "uplo", ord("L")) == ord("L"))
    return [factor, _info(ctx, factor, 1)]


@lapack("trsm")
def _trsm(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    transpose = {ord("N"): "NO_TRANSPOSE", ord("T"): "TRANSPOSE", ord("C"): "ADJOINT"}[_config(ctx, "trans_x", ord("N"))]
    return [ops.TriangularSolve(operands[0], operands[1], _config(ctx, "side", ord("L")) == ord("L"),
                                _config(ctx, "uplo", ord("L")) == ord("L"), _config(ctx, "diag", ord("N")) == ord("U"),
                                transpose)]


@lapack("getrf")
def _getrf(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    b = ctx.builder
    factors, pivots, _ = ops.LU(operands[0])
    one = ops.Constant(b, np.ones((), etype_to_dtype(b.get_shape(pivots).element_type())))
    return [factors, ops.Add(pivots, ops.Broadcast(one, b.get_shape(pivots).dimensions())),  # LAPACK's are 1-based
            _info(ctx, factors, 2)]


@lapack("geqrf")
def _geqrf(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    return list(ops.QrDecomposition(operands[0]))


@lapack("orgqr", "ungqr")
def _orgqr(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    return [ops.ProductOfElementaryHouseholderReflectors(operands[0], operands[1])]


def _eigh(ctx: _Context, a: XlaOp, lower: bool) -> list[XlaOp]:
    """(v, w, info) of syevd/heevd (LAPACK's and cuSOLVER's)."""
    v, w = ops.Eigh(a, lower)
    return [v, w, _info(ctx, w, 2)]


@lapack("syevd", "heevd")
def _syevd(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    return _eigh(ctx, operands[0], _config(ctx, "uplo", ord("L")) == ord("L"))


@lapack("gesdd")
def _gesdd(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    b = ctx.builder
    u, d, v = ops.SVD(operands[0])
    dims = [ctx.result_shape(k).dimensions() for k in range(4)]
    if 0 in dims[2] or 0 in dims[3]:  # mode N: no vectors
        return [operands[0], d, _zeros(b, ctx.result_shape(2)), _zeros(b, ctx.result_shape(3)), _info(ctx, d, 4)]
    return [operands[0], d, _leading(u, b, dims[2]), _leading(_adjoint(v, b), b, dims[3]), _info(ctx, d, 4)]


@lapack("cusolver_potrf")
def _cusolver_potrf(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    factor = ops.Cholesky(operands[0], _flag(ctx, "lower", True))
    return [factor, _info(ctx, factor, 1)]


@lapack("cusolver_getrf")
def _cusolver_getrf(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    return _getrf(ctx, operands)


@lapack("cusolver_geqrf")
def _cusolver_geqrf(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    return _geqrf(ctx, operands)


@lapack("cusolver_orgqr")
def _cusolver_orgqr(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    return _orgqr(ctx, operands)


@lapack("cusolver_syevd")
def _cusolver_syevd(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    return _eigh(ctx, operands[0], _flag(ctx, "lower", True))


@lapack("cusolver_gesvdj")
def _cusolver_gesvdj(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    """Jacobi SVD: (a, s, u, v, info), V itself (jax transposes it after the call)."""
    b = ctx.builder
    u, d, v = ops.SVD(operands[0])
    dims = [ctx.result_shape(k).dimensions() for k in range(4)]
    return [operands[0], d, _leading(u, b, dims[2]), _leading(v, b, dims[3]), _info(ctx, d, 4)]


def _pivots_to_permutation(ctx: _Context, operands: list[XlaOp]) -> list[XlaOp]:
    """``cu_lu_pivots_to_permutation``: the row order the row swaps make (0-based: jax has already subtracted
    one from cuSOLVER's), swap by swap."""
    b = ctx.builder
    pivots = operands[0]
    shape = b.get_shape(pivots)
    out = ctx.result_shape()
    if len(shape.dimensions()) != 1:
        raise UnsupportedError(_IMPORTER, "stablehlo.custom_call @cu_lu_pivots_to_permutation",
                               "batched pivots (one matrix only)")
    dtype = etype_to_dtype(shape.element_type())
    perm = ops.Iota(b, out, 0)
    for i in range(shape.dimensions()[0]):
        at = ops.Constant(b, np.array(i, dtype))
        target = ops.Reshape(ops.Slice(pivots, [i], [i + 1], [1]), [])
        here, there = ops.DynamicSlice(perm, [at], [1]), ops.DynamicSlice(perm, [target], [1])
        perm = ops.DynamicUpdateSlice(ops.DynamicUpdateSlice(perm, there, [at]), here, [target])
    return [perm]


def _zeros(b: XlaBuilder, shape: Shape) -> XlaOp:
    return ops.Broadcast(ops.Constant(b, np.zeros((), etype_to_dtype(shape.element_type()))), shape.dimensions())


def _approx_top_k(ctx: _Context, operands: list[XlaOp]) -> XlaOp:
    """jax's ``approx_max_k``/``approx_min_k``: ApproxTopK (ApproxTopKFallback where jax asks for the exact form)
    with the comparator function the call names."""
    ir = ctx.ir
    config = ir.DictAttr(ctx.attr("mhlo.backend_config"))
    callee = str(ir.ArrayAttr(ctx.attr("called_computations"))[0]).lstrip("@")
    comparator = ctx.importer.region_computation(ctx.importer.functions[callee].regions[0], "comparator")
    n = len(operands) // 2
    fallback = "is_fallback" in config and ir.BoolAttr(config["is_fallback"]).value
    make = ops.ApproxTopKFallback if fallback else ops.ApproxTopK
    out = make(ctx.builder, operands[:n], operands[n:], ir.IntegerAttr(config["top_k"]).value,
               ir.IntegerAttr(config["reduction_dim"]).value, comparator, ir.FloatAttr(config["recall_target"]).value,
               ir.BoolAttr(config["aggregate_to_topk"]).value,
               ir.IntegerAttr(config["reduction_input_size_override"]).value)
    return [ops.GetTupleElement(out, i) for i in range(n)] if n > 1 else [out]


@importer("stablehlo.custom_call")
def _custom_call(ctx: _Context, op: Any, operands: list[XlaOp]) -> Any:
    target = ctx.ir.StringAttr(ctx.attr("call_target_name")).value
    if target in IDENTITY_CUSTOM_CALLS and len(operands) == 1:
        return [operands[0]]
    if target in ("cu_lu_pivots_to_permutation", "hip_lu_pivots_to_permutation"):
        return _pivots_to_permutation(ctx, operands)
    if target == "ApproxTopK":
        return _approx_top_k(ctx, operands)
    routine = _lapack_routine(target)
    if routine in LAPACK_TARGETS:
        return LAPACK_TARGETS[routine](ctx, operands)
    raise UnsupportedError(_IMPORTER, f"stablehlo.custom_call @{target}",
                           "no op of this project has this custom-call target's meaning")


# ---------------------------------------------------------------------------------------------
# Devices and collectives; shard_map's manual computation


def _replica_groups(ctx: _Context) -> list[list[int]]:
    attr = ctx.attr("replica_groups")
    if attr is None:
        return []
    groups = np.asarray(ctx.ir.DenseIntElementsAttr(attr))
    return [[int(v) for v in row if v >= 0] for row in groups.reshape(groups.shape[0], -1)] if groups.size else []


def _channel_id(ctx: _Context) -> int | None:
    attr = ctx.attr("channel_handle")
    if attr is None:
        return None
    handle = stablehlo.ChannelHandle(attr).handle
    return handle if handle > 0 else None


@importer("stablehlo.partition_id")
def _partition_id(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.PartitionId(ctx.builder)


@importer("stablehlo.replica_id")
def _replica_id(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.ReplicaId(ctx.builder)


@importer("stablehlo.all_reduce")
def _all_reduce(ctx: _Context, op: Any, operands: list[XlaOp]) -> list[XlaOp]:
    _no_captures(ctx)
    reducer = ctx.region(0, "reducer")
    return [ops.AllReduce(x, reducer, _replica_groups(ctx), _channel_id(ctx), None,
                          "use_global_device_ids" in op.attributes) for x in operands]


@importer("stablehlo.all_gather")
def _all_gather(ctx: _Context, op: Any, operands: list[XlaOp]) -> list[XlaOp]:
    dim = _int(ctx.ir, op, "all_gather_dim")
    out = []
    for k, x in enumerate(operands):
        count = ctx.result_shape(k).dimensions()[dim] // max(1, ctx.builder.get_shape(x).dimensions()[dim])
        out.append(ops.AllGather(x, dim, count, _replica_groups(ctx), _channel_id(ctx), None,
                                 "use_global_device_ids" in op.attributes))
    return out


@importer("stablehlo.reduce_scatter")
def _reduce_scatter(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    _no_captures(ctx)
    dim = _int(ctx.ir, op, "scatter_dimension")
    count = ctx.builder.get_shape(operands[0]).dimensions()[dim] // max(1, ctx.result_shape().dimensions()[dim])
    return ops.ReduceScatter(operands[0], ctx.region(0, "reducer"), dim, count, _replica_groups(ctx),
                             _channel_id(ctx), None, "use_global_device_ids" in op.attributes)


@importer("stablehlo.all_to_all")
def _all_to_all(ctx: _Context, op: Any, operands: list[XlaOp]) -> list[XlaOp]:
    return [ops.AllToAll(x, _int(ctx.ir, op, "split_dimension"), _int(ctx.ir, op, "concat_dimension"),
                         _int(ctx.ir, op, "split_count"), _replica_groups(ctx), None, _channel_id(ctx))
            for x in operands]


@importer("stablehlo.collective_broadcast")
def _collective_broadcast(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    return ops.CollectiveBroadcast(operands[0], _replica_groups(ctx), _channel_id(ctx))


@importer("stablehlo.collective_permute")
def _collective_permute(ctx: _Context, op: Any, operands: list[XlaOp]) -> XlaOp:
    flat = _ints(ctx.ir, ctx.attr("source_target_pairs"))
    return ops.CollectivePermute(operands[0], [[flat[2 * i], flat[2 * i + 1]] for i in range(len(flat) // 2)],
                                 _channel_id(ctx))


def _mesh_axes(ctx: _Context, sharding: Any) -> list[tuple[str, int]]:
    """The (name, size) axes of a sharding's mesh (a reference to a module's ``sdy.mesh``, or the mesh itself)."""
    from jax.extend.mlir.dialects import sdy

    ref = sharding.mesh_or_ref
    name = str(ref).lstrip("@")
    mesh_attr = ctx.importer.meshes.get(name) if name in ctx.importer.meshes else ref
    try:
        mesh = sdy.MeshAttr(mesh_attr)
    except Exception as e:
        raise UnsupportedError(_IMPORTER, "sdy.manual_computation", f"its mesh {ref} is not a mesh of this module") \
            from e
    axes = [sdy.MeshAxisAttr(a) for a in mesh.axes]
    if list(mesh.device_ids) and list(mesh.device_ids) != list(range(int(np.prod([a.size for a in axes])))):
        raise UnsupportedError(_IMPORTER, "sdy.manual_computation", f"its mesh orders the devices as "
                               f"{list(mesh.device_ids)}: only meshes of devices in id order are imported")
    return [(a.name, a.size) for a in axes]


def _dim_axes(sharding: Any) -> list[list[str]]:
    """Per dimension, the mesh axes it is split over (major first)."""
    from jax.extend.mlir.dialects import sdy

    out = []
    for dim in sharding.dimension_shardings:
        refs = [sdy.AxisRefAttr(a) for a in sdy.DimensionShardingAttr(dim).axes]
        if any(r.sub_axis_info is not None for r in refs):
            raise UnsupportedError(_IMPORTER, "sdy.manual_computation", "a dimension split over a sub-axis")
        out.append([r.name for r in refs])
    return out


class _Mesh:
    """A device mesh: axes (name, size), devices numbered in row-major order of the axes."""

    def __init__(self, axes: list[tuple[str, int]]) -> None:
        self.names = [a for a, _ in axes]
        self.sizes = [n for _, n in axes]

    def size(self, names: Sequence[str]) -> int:
        return int(np.prod([self.sizes[self.names.index(a)] for a in names]))

    def index(self, b: XlaBuilder, device: XlaOp, names: Sequence[str]) -> XlaOp:
        """The device's position along the axes ``names`` (major first), from its id ``device`` (s32)."""
        total = None
        for a in names:
            k = self.names.index(a)
            stride = int(np.prod(self.sizes[k + 1:]))
            i = ops.Rem(ops.Div(device, ops.Constant(b, np.int32(stride))), ops.Constant(b, np.int32(self.sizes[k])))
            total = i if total is None else ops.Add(ops.Mul(total, ops.Constant(b, np.int32(self.sizes[k]))), i)
        return total if total is not None else ops.Constant(b, np.int32(0))

    def groups(self, names: Sequence[str]) -> list[list[int]]:
        """The device groups that differ only along ``names``, each in the order of its position along them."""
        ids = np.arange(int(np.prod(self.sizes))).reshape(self.sizes)
        moved = [self.names.index(a) for a in names]
        rest = [k for k in range(len(self.names)) if k not in moved]
        return np.transpose(ids, rest + moved).reshape(-1, self.size(names)).tolist()


@importer("sdy.manual_computation")
def _manual_computation(ctx: _Context, op: Any, operands: list[XlaOp]) -> list[XlaOp]:
    """``shard_map``: each device takes its shard of every operand (a DynamicSlice at its mesh position, from its
    partition id), runs the body, and the results split over mesh axes are gathered back (AllGather over the
    devices that differ along those axes), so that every device holds the global results."""
    from jax.extend.mlir.dialects import sdy

    ins = [sdy.TensorShardingAttr(s) for s in sdy.TensorShardingPerValueAttr(ctx.attr("in_shardings")).shardings]
    outs = [sdy.TensorShardingAttr(s) for s in sdy.TensorShardingPerValueAttr(ctx.attr("out_shardings")).shardings]
    manual = set(sdy.ManualAxesAttr(ctx.attr("manual_axes")))
    mesh = _Mesh(_mesh_axes(ctx, (ins + outs)[0]))
    devices = mesh.size(mesh.names)
    if manual != {a for a, n in zip(mesh.names, mesh.sizes) if n > 1}:
        raise UnsupportedError(_IMPORTER, "sdy.manual_computation", f"manual axes {sorted(manual)} of the mesh "
                               f"{dict(zip(mesh.names, mesh.sizes))}: only programs manual over the whole mesh")
    importer_ = ctx.importer
    if importer_.partitions != devices or importer_.replicas != 1:
        raise UnsupportedError(_IMPORTER, "sdy.manual_computation", f"a mesh of {devices} devices in a module of "
                               f"{importer_.replicas} replicas x {importer_.partitions} partitions")
    b = ctx.builder
    device = ops.ConvertElementType(ops.PartitionId(b), PrimitiveType.S32)
    local = []
    for x, sharding in zip(operands, ins):
        split = _dim_axes(sharding)
        if not any(split):
            local.append(x)
            continue
        dims = b.get_shape(x).dimensions()
        sizes = [d // mesh.size(axes) for d, axes in zip(dims, split)]
        starts = [ops.Mul(mesh.index(b, device, axes), ops.Constant(b, np.int32(n))) if axes
                  else ops.Constant(b, np.int32(0)) for axes, n in zip(split, sizes)]
        local.append(ops.DynamicSlice(x, starts, sizes))
    results = importer_.block(b, op.regions[0].blocks[0], local, ctx.env)  # type: ignore[attr-defined]
    out = []
    for r, sharding in zip(results, outs):
        for d, axes in enumerate(_dim_axes(sharding)):
            if axes:
                groups = mesh.groups(axes)
                r = ops.AllGather(r, d, len(groups[0]), groups, importer_.channel(), None, True)
        out.append(r)
    return out
