"""Export a computation: its StableHLO, and jax's portable serialized artifact for other machines.

The StableHLO is the ``jax`` backend's lowering of the computation (``jax.lax``, traced once).
``export(computation, platforms)`` gives the bytes of ``jax.export``'s serialized ``Exported``:
versioned StableHLO with its calling convention, lowered for every platform named. A host with
plain jax and flatbuffers (``pip install jax flatbuffers``: jax's deserializer needs flatbuffers, which jax
does not install; no copy of this package) loads and runs it::

    import jax
    exported = jax.export.deserialize(bytearray(open("bias_add.jaxexport", "rb").read()))
    results = exported.call(x, v)   # on the host's default device: cpu, cuda or tpu

A computation with 64-bit values needs ``jax.config.update("jax_enable_x64", True)`` in the
loading process (jax otherwise holds its arguments as 32-bit). A tuple-shaped result comes back as a
tuple. Exports are single-device: ops that talk to other replicas or partitions, and Infeed/Outfeed
(host callbacks, which cannot be serialized), raise :class:`~backend.errors.UnsupportedError`.

``stablehlo_text`` also gives computations with bounded-dynamic results (which jax's arrays cannot hold):
``static_stand_in`` (from ``backend.hlo.bounded_results``) and ``with_bounded_results`` are its two steps, for a
consumer that rewrites the static module in between.

``stablehlo_module(computations, names)`` gives one StableHLO module holding several computations as
public functions of those names (``link_stablehlo_modules`` does the same from their StableHLO text).

The command line form writes the artifact to a file (``python -m backend.export --help``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

import specs
from backend.errors import ExecutionError, OpError, SpecError, UnsupportedError
from backend.hlo.bounded_results import StaticStandIn, static_stand_in
from backend.hlo.graph import XlaComputation
from backend.runtime.host_io import HOST_IO_OPCODES
from backend.runtime.protocol import check_computation
from specs.loader import COLLECTIVES

#: The platforms ``export`` lowers for unless told otherwise.
DEFAULT_PLATFORMS: tuple[str, ...] = ("cpu", "cuda", "tpu")
#: The platforms jax can lower for (on any machine, with or without such a device).
KNOWN_PLATFORMS: tuple[str, ...] = ("cpu", "cuda", "rocm", "tpu")
#: The spec category of the ops that exchange data between replicas or partitions (the families collectives,
#: collective_exchange and point_to_point): an export is one device's program.
MULTI_DEVICE_CATEGORY = COLLECTIVES
_EXPORTER = "export"
#: Ops with an exact form that takes the same arguments and gives a result of the same shape, which XLA itself runs
#: on the platforms without the approximate kernel: ApproxTopK -> ApproxTopKFallback (a sort by the comparator and a
#: slice; the "exact" outcome of ApproxTopK's spec). jax lowers ApproxTopK on the CPU to ``custom_call @ApproxTopK``,
#: which only XLA expands; a consumer of the StableHLO without XLA's custom-call targets exports the exact form
#: (:func:`with_exact_forms`).
EXACT_FORMS: dict[str, str] = {"ApproxTopK": "ApproxTopKFallback"}


def _lowering_backend() -> Any:
    from backend.jax_backend.executor import JaxBackend  # deferred: importing the lowerings takes a while
    global _BACKEND
    if _BACKEND is None:
        _BACKEND = JaxBackend()  # the jax backend's lowering: its custom-call targets and limitations apply
    return _BACKEND


_BACKEND: Any = None


def unsupported_reason(computation: XlaComputation) -> str | None:
    """Why ``computation`` cannot be exported, or ``None`` when it can."""
    opcode = multi_device_op(computation)
    if opcode is not None:
        return f"{opcode} exchanges data between replicas or partitions; an export is a single device's program"
    opcode = host_io_op(computation)
    if opcode is not None:
        return f"{opcode} runs as a host callback, which jax.export cannot serialize"
    try:
        return _lowering_backend().supports(computation)
    except UnsupportedError as e:  # a refusal raised rather than returned (a custom-call target not registered)
        return e.reason


def multi_device_op(computation: XlaComputation) -> str | None:
    """The opcode of the first op of ``computation`` (its sub-computations first) that exchanges data between
    replicas or partitions or reads its device's id (see :func:`_multi_device`), or ``None``."""
    return _first_op(computation, _multi_device)


def host_io_op(computation: XlaComputation) -> str | None:
    """The opcode of the first op of ``computation`` (its sub-computations first) that talks to the host (Infeed,
    Outfeed, SendToHost, RecvFromHost: ``HOST_IO_OPCODES``), or ``None``."""
    return _first_op(computation, HOST_IO_OPCODES.__contains__)


def _first_op(computation: XlaComputation, holds: Callable[[str], bool]) -> str | None:
    check_computation(computation)
    for comp in (*computation.subcomputations(), computation):
        for inst in comp.instructions:
            if holds(inst.opcode):
                return inst.opcode
    return None


def _multi_device(opcode: str) -> bool:
    """Whether the op exchanges data between replicas or partitions, from its spec: the collectives category,
    or an op of another category whose examples run on several devices (XLA's internal AllGatherStart...)."""
    try:
        spec = specs.get(opcode)
    except SpecError:  # an opcode without a spec (the builder's own Parameter, Tuple...)
        return False
    return spec.category == MULTI_DEVICE_CATEGORY or any(
        e.devices is not None and e.devices[0] * e.devices[1] > 1 for e in spec.examples)


def with_exact_forms(computation: XlaComputation) -> XlaComputation:
    """``computation`` with each op of :data:`EXACT_FORMS` (in it and in the computations it calls) replaced by its
    exact form: a new computation of the same parameters and result, or ``computation`` itself when it has none."""
    check_computation(computation)
    rebuilt: dict[int, XlaComputation] = {}  # uid -> the computation with exact forms, for those that changed

    def callee(value: Any) -> Any:
        if isinstance(value, XlaComputation):
            return rebuilt.get(value.uid, value)
        if isinstance(value, (list, tuple)) and any(isinstance(v, XlaComputation) for v in value):
            return type(value)(callee(v) for v in value)
        return value

    for comp in (*computation.subcomputations(), computation):  # callees first
        instructions = []
        for inst in comp.instructions:
            attrs = {key: callee(value) for key, value in inst.attrs.items()}
            opcode = EXACT_FORMS.get(inst.opcode, inst.opcode)
            changed = opcode != inst.opcode or any(attrs[k] is not v for k, v in inst.attrs.items())
            instructions.append(dataclasses.replace(inst, opcode=opcode, attrs=attrs) if changed else inst)
        if any(new is not old for new, old in zip(instructions, comp.instructions)):
            rebuilt[comp.uid] = XlaComputation(comp.name, instructions, comp.root)
    return rebuilt.get(computation.uid, computation)


def argument_specs(computation: XlaComputation) -> list[Any]:
    """The ``jax.ShapeDtypeStruct`` of each parameter (a token is an empty pred array, a tuple a tuple)."""
    return [_spec(s) for s in check_computation(computation).program_shape().parameter_shapes()]


def _spec(shape: Any) -> Any:
    if shape.is_tuple():
        return tuple(_spec(s) for s in shape.tuple_shapes())
    if shape.is_token():
        return jax.ShapeDtypeStruct((0,), np.bool_)
    return jax.ShapeDtypeStruct(shape.dimensions(), shape.numpy_dtype())


def _check_platforms(platforms: Any) -> tuple[str, ...]:
    if isinstance(platforms, str):
        platforms = (platforms,)
    try:
        names = tuple(platforms)
    except TypeError:
        names = (platforms,)
    bad = [p for p in names if p not in KNOWN_PLATFORMS]
    if not names or bad or len(set(names)) != len(names):
        raise OpError(_EXPORTER, "platforms", f"platforms must be distinct names among {', '.join(KNOWN_PLATFORMS)}, "
                      f"got {platforms!r}", "platforms", {"platforms": platforms})
    return names


def _lowered(computation: XlaComputation, platforms: Sequence[str], make: Any) -> Any:
    """``make(jitted_function, platforms, argument_specs)``, after the checks, in the right x64 mode."""
    names = _check_platforms(platforms)
    reason = unsupported_reason(computation)
    if reason is not None:
        raise UnsupportedError(_EXPORTER, computation.root_instruction.opcode, reason)
    backend = _lowering_backend()
    lowered = backend.lower(computation)
    fn = jax.jit(lambda *args: lowered(*args), keep_unused=True)  # every parameter stays in the signature
    with jax.enable_x64(True) if backend.needs_x64(computation) else contextlib.nullcontext():
        try:
            return make(fn, names, argument_specs(computation))
        except (OpError, UnsupportedError):
            raise
        except Exception as e:  # a lowering that does not exist for one of the platforms, a jax limit
            raise ExecutionError(_EXPORTER, computation.root_instruction.opcode, e) from e


def exported(computation: XlaComputation, platforms: Sequence[str] = DEFAULT_PLATFORMS) -> jax.export.Exported:
    """The computation as a ``jax.export.Exported`` lowered for ``platforms`` (no device of them needed)."""
    return _lowered(computation, platforms, lambda fn, names, specs: jax.export.export(fn, platforms=names)(*specs))


def export(computation: XlaComputation, platforms: Sequence[str] = DEFAULT_PLATFORMS) -> bytes:
    """jax's portable serialized artifact (``Exported.serialize()``): load it with
    ``jax.export.deserialize(blob)`` and run it with ``.call(*arguments)``."""
    return bytes(exported(computation, platforms).serialize())


def stablehlo_text(computation: XlaComputation, platform: str = "cpu") -> str:
    """The computation's StableHLO module as MLIR text, lowered for one platform. Bounded-dynamic results
    (``SetDimensionSize`` values the computation returns and reads nowhere else) are StableHLO's
    ``set_dimension_size`` applied to the results of the static stand-in (:mod:`backend.hlo.bounded_results`),
    which jax lowers; other bounded-dynamic values raise :class:`~backend.errors.UnsupportedError`."""
    stand_in = static_stand_in(computation)
    if stand_in is not None:
        return with_bounded_results(stablehlo_text(stand_in.computation, platform), stand_in)
    return str(_lowered(computation, (platform,), lambda fn, names, specs: fn.trace(*specs).lower(
        lowering_platforms=names).as_text()))


def stablehlo_unsupported_reason(computation: XlaComputation) -> str | None:
    """Why :func:`stablehlo_text` cannot give ``computation`` (which, unlike jax's artifact of :func:`export`, may
    have bounded-dynamic results), or ``None`` when it can."""
    stand_in = static_stand_in(computation)
    return unsupported_reason(stand_in.computation if stand_in is not None else computation)


def with_bounded_results(text: str, stand_in: StaticStandIn) -> str:
    """The stand-in's StableHLO module ``text`` with a ``main`` of the original computation's results: its ``main``
    (made private as ``main_static``) called, and ``set_dimension_size`` applied to each dynamic result's operand
    and size. ``text`` may be the stand-in's module as a consumer rewrote it (other element types at its boundary):
    the result types are read from its ``main``."""
    from jax._src.interpreters import mlir as jax_mlir  # jax's MLIR context, with the StableHLO dialects
    from jax._src.lib.mlir import ir
    from jax._src.lib.mlir.dialects import func

    with jax_mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        main = next(op for op in module.body.operations if ir.StringAttr(op.attributes["sym_name"]).value == "main")
        signature = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        inputs, static_results = list(signature.inputs), list(signature.results)
        ir.SymbolTable.set_symbol_name(main, "main_static")
        main.attributes["sym_visibility"] = ir.StringAttr.get("private")
        results, k = [], 0  # (the stand-in's results read, the DynamicResult or None)
        for result in stand_in.results:
            results.append((static_results[k:k + (1 if result is None else 2)], result))
            k += 1 if result is None else 2
        types = [values[0] if result is None else _bounded(values[0], result.shape, result.dimension)
                 for values, result in results]
        with ir.InsertionPoint(module.body):
            wrapper = func.FuncOp("main", (inputs, types))
        block = wrapper.add_entry_block()
        with ir.InsertionPoint(block):
            call = iter(func.CallOp(static_results, ir.FlatSymbolRefAttr.get("main_static"), block.arguments).results)
            returned = []
            for (values, result), result_type in zip(results, types):
                read = [next(call) for _ in values]
                returned.append(read[0] if result is None else ir.Operation.create(
                    "stablehlo.set_dimension_size", results=[result_type], operands=read,
                    attributes={"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                                result.dimension)}).result)
            func.ReturnOp(returned)
        module.operation.verify()
        return str(module)


def _bounded(static_type: Any, shape: Any, dimension: int) -> Any:
    """``static_type`` (the operand's tensor type) with ``dimension`` bounded-dynamic, as ``shape`` has it."""
    from jax._src.lib.mlir import ir

    ranked = ir.RankedTensorType(static_type)
    dims = [ir.ShapedType.get_dynamic_size() if shape.is_dynamic_dimension(d) else n
            for d, n in enumerate(ranked.shape)]
    bounds = ", ".join(str(n) if shape.is_dynamic_dimension(d) else "?" for d, n in enumerate(ranked.shape))
    return ir.RankedTensorType.get(dims, ranked.element_type, ir.Attribute.parse(f"#stablehlo.bounds<{bounds}>"))


def stablehlo_bytecode(computation: XlaComputation, platform: str = "cpu") -> bytes:
    """The computation's StableHLO module as a versioned portable artifact (MLIR bytecode,
    readable by ``stablehlo.deserialize_portable_artifact`` and by StableHLO consumers such as IREE)."""
    return bytes(exported(computation, (platform,)).mlir_module_serialized)


def stablehlo_module(computations: Sequence[XlaComputation], names: Sequence[str], platform: str = "cpu") -> str:
    """One StableHLO module (MLIR text) holding each computation as a public function named by ``names``
    (its ``main``; the helpers jax lowered it with become private functions prefixed ``NAME__``), for
    consumers that compile several computations at once. See :func:`link_stablehlo_modules`."""
    if len(computations) != len(names):
        raise OpError(_EXPORTER, "names", f"got {len(computations)} computations and {len(names)} names",
                      "names", {"computations": len(computations), "names": len(names)})
    return link_stablehlo_modules([stablehlo_text(c, platform) for c in computations], names)


def link_stablehlo_modules(modules: Sequence[str], names: Sequence[str]) -> str:
    """StableHLO modules (MLIR text, as :func:`stablehlo_text` gives them) linked into one: module ``k``'s
    public ``main`` becomes the public function ``names[k]``, its private functions ``names[k]__NAME``
    (calls renamed with them). The modules must agree on their attributes (replicas, partitions)."""
    _check_function_names(names, len(modules))
    from jax._src.interpreters import mlir as jax_mlir  # jax's MLIR context, with the StableHLO dialects
    from jax._src.lib.mlir import ir

    with jax_mlir.make_ir_context(), ir.Location.unknown():
        linked = ir.Module.create()
        for k, (text, name) in enumerate(zip(modules, names)):
            try:
                module = ir.Module.parse(text)
            except Exception as e:  # an MLIR parse error (jax's printer has forms its parser rejects)
                raise OpError(_EXPORTER, "modules", f"module {k} ('{name}') does not parse: {str(e)[:300]}",
                              "modules", {"module": k}) from e
            own = module.operation.attributes
            attributes = {key: str(own[key]) for key in own if key != "sym_name"}
            if k == 0:
                for key in attributes:
                    linked.operation.attributes[key] = own[key]
                first = attributes
            elif attributes != first:
                raise OpError(_EXPORTER, "modules", f"module {k} ('{name}') has attributes {attributes}, module 0 "
                              f"has {first}", "modules", {"module": k})
            functions = list(module.body.operations)
            for op in functions:
                symbol = ir.StringAttr(op.attributes["sym_name"]).value
                renamed = name if symbol == "main" else f"{name}__{symbol}"
                ir.SymbolTable.replace_all_symbol_uses(symbol, renamed, module.operation)
                ir.SymbolTable.set_symbol_name(op, renamed)
            for op in functions:
                linked.body.append(op)  # moved out of ``module``
        linked.operation.attributes["sym_name"] = ir.StringAttr.get("linked")
        return str(linked)


def _check_function_names(names: Sequence[str], count: int) -> None:
    bad = [n for n in names if not isinstance(n, str) or not n.isidentifier() or "__" in n]
    if len(names) != count or bad or len(set(names)) != len(names):
        raise OpError(_EXPORTER, "names", f"expected {count} distinct function names (identifiers without '__'), "
                      f"got {list(names)!r}", "names", {"names": list(names)})


# ---------------------------------------------------------------------------------------------
# Command line


_HELP_EPILOG = """\
Load and run the artifact on any host with jax and flatbuffers (this package is not needed there;
jax.export.deserialize needs flatbuffers, which jax does not install: pip install jax flatbuffers,
or on a Cloud TPU VM pip install 'jax[tpu]' flatbuffers):

    import jax, numpy as np
    exported = jax.export.deserialize(bytearray(open("out.jaxexport", "rb").read()))
    print(exported.in_avals)                 # the arguments it expects
    results = exported.call(*arguments)      # runs on the host's default device

For a computation with 64-bit values, first: jax.config.update("jax_enable_x64", True).
"""


def load_computation(target: str) -> XlaComputation:
    """``MODULE:NAME`` -> the XlaComputation it names: the value itself, or what calling it returns."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected MODULE:FUNCTION, got '{target}'")
    try:
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"cannot load '{target}': {e}") from None
    value = obj() if callable(obj) and not isinstance(obj, XlaComputation) else obj
    if not isinstance(value, XlaComputation):
        raise ValueError(f"'{target}' gave {type(value).__name__}, not an XlaComputation (from XlaBuilder.build())")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m backend.export", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Export a computation to jax's portable serialized artifact (versioned StableHLO), or print "
                    "its StableHLO.", epilog=_HELP_EPILOG)
    parser.add_argument("target", metavar="MODULE:FUNCTION",
                        help="a function taking no arguments that returns an XlaComputation (or the computation "
                             "itself), e.g. mypkg.models:build_bias_add")
    parser.add_argument("--platforms", default=",".join(DEFAULT_PLATFORMS),
                        help=f"comma-separated platforms to lower for, among {', '.join(KNOWN_PLATFORMS)} "
                             f"(default: {','.join(DEFAULT_PLATFORMS)}); no such device is needed")
    parser.add_argument("-o", "--output", help="the file to write (default: the computation's name + .jaxexport)")
    parser.add_argument("--stablehlo", action="store_true",
                        help="print the StableHLO text (for the first platform) instead of writing an artifact")
    args = parser.parse_args(argv)
    sys.path.insert(0, "")  # MODULE is looked up from the current directory too, as python -m does
    platforms = tuple(p.strip() for p in args.platforms.split(",") if p.strip())
    try:
        computation = load_computation(args.target)
        if args.stablehlo:
            print(stablehlo_text(computation, platforms[0] if platforms else ""), end="")
            return 0
        blob = export(computation, platforms)
    except (ValueError, UnsupportedError, ExecutionError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    path = args.output or f"{computation.name}.jaxexport"
    with open(path, "wb") as f:
        f.write(blob)
    print(f"wrote {path} ({len(blob)} bytes; platforms {','.join(platforms)}; arguments "
          f"{', '.join(f'{s.dtype}{list(s.shape)}' for s in jax.tree_util.tree_leaves(argument_specs(computation)))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
