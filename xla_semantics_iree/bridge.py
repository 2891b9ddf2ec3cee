"""Element types IREE's Python runtime cannot pass in or out of a module, passed as bytes.

IREE's runtime maps NumPy dtypes to its element types, and has no mapping for some types the compiler
handles: the 8-bit floats ``f8E4M3``, ``f8E3M4`` and ``f8E4M3B11FNUZ``, the sub-byte integers ``i2``,
``i4``, ``ui2``, ``ui4`` and the 4-bit float ``f4E2M1FN``. :func:`bridge_module` wraps a StableHLO
module's ``main`` (built with IREE's MLIR Python bindings, no text surgery) in a function of the same
name whose parameters and results of those types are 8-bit integers, converted inside the module:

- 8-bit floats travel as ``i8`` bit patterns (``stablehlo.bitcast_convert``, bit-exact, NaN payloads
  included; signless, not ``ui8``: IREE 3.13 does not lower some ops on unsigned types, ``set_dimension_size``
  among them, and a carrier of ours must not bring in such a failure);
- sub-byte integers travel as ``i8`` / ``ui8`` values (``stablehlo.convert``: every value of the narrow
  type is an 8-bit value, so both directions are exact);
- ``f4E2M1FN`` travels as its 4-bit pattern, sign-extended to ``i8`` (``stablehlo.convert`` to ``i4``,
  exact, then ``stablehlo.bitcast_convert`` to ``f4E2M1FN``; the reverse for results).

:func:`to_module` and :func:`from_module` do the matching conversions of NumPy values on the host.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np

#: MLIR element type -> (the type it travels as, the NumPy dtype of the values), for the types bridged.
_BITS = "bits"  # bitcast to an integer of the same width
_VALUE = "value"  # convert the value (every value of the narrow type is a value of the wide one)
_NIBBLE = "nibble"  # the 4-bit pattern as an i4 value, carried as i8
BRIDGED: dict[str, tuple[str, str]] = {
    "f8E4M3": ("i8", _BITS), "f8E3M4": ("i8", _BITS), "f8E4M3B11FNUZ": ("i8", _BITS),
    "i2": ("i8", _VALUE), "i4": ("i8", _VALUE), "ui2": ("ui8", _VALUE), "ui4": ("ui8", _VALUE),
    "f4E2M1FN": ("i8", _NIBBLE),
}
_FLOAT8: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (ml_dtypes.float8_e4m3, ml_dtypes.float8_e3m4, ml_dtypes.float8_e4m3b11fnuz))
_SUB_BYTE_INTEGERS: frozenset[np.dtype[Any]] = frozenset(
    np.dtype(t) for t in (ml_dtypes.int2, ml_dtypes.int4, ml_dtypes.uint2, ml_dtypes.uint4))
_FLOAT4 = np.dtype(ml_dtypes.float4_e2m1fn)
#: The NumPy dtypes of the bridged element types.
BRIDGED_DTYPES: frozenset[np.dtype[Any]] = _FLOAT8 | _SUB_BYTE_INTEGERS | {_FLOAT4}
#: The private name the bridged module gives the original ``main``.
TYPED_MAIN = "main_typed"


def needs_bridge(dtypes: Sequence[np.dtype[Any]]) -> bool:
    return any(np.dtype(d) in BRIDGED_DTYPES for d in dtypes)


def to_module(value: np.ndarray) -> np.ndarray:
    """A host value as the bridged module's parameter takes it (other values unchanged)."""
    dtype = value.dtype
    if dtype in _FLOAT8:
        return value.view(np.int8)
    if dtype == _FLOAT4:
        nibble = value.view(np.uint8).astype(np.int16) & 0xF
        return np.where(nibble >= 8, nibble - 16, nibble).astype(np.int8)
    if dtype in _SUB_BYTE_INTEGERS:
        return value.astype(np.uint8 if dtype.name.startswith("u") else np.int8)
    return value


def from_module(value: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """A result of the bridged module as the original ``main`` gives it, of ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype in _FLOAT8:
        return value.view(dtype)
    if dtype == _FLOAT4:
        return (value.astype(np.int16) & 0xF).astype(np.uint8).view(dtype)
    if dtype in _SUB_BYTE_INTEGERS:
        return value.astype(dtype)
    return value


def bridge_module(text: str) -> str:
    """The StableHLO module ``text`` with a ``main`` that takes and gives the bridged types as 8-bit integers
    (the original ``main`` made private as ``main_typed``), or ``text`` itself when ``main`` has none (or MLIR
    cannot parse ``text``)."""
    from iree.compiler import ir
    from iree.compiler.dialects import func

    with ir.Context(), ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
        except Exception:  # noqa: BLE001 - text MLIR cannot read (jax's printer has such forms): iree-compile,
            return text  # which reads it with the same parser, reports the failure itself
        main = next(op for op in module.body.operations
                    if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main")
        signature = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        inputs, results = list(signature.inputs), list(signature.results)
        if not any(_bridge_of(t) for t in [*inputs, *results]):
            return text
        ir.SymbolTable.set_symbol_name(main, TYPED_MAIN)
        main.attributes["sym_visibility"] = ir.StringAttr.get("private")
        outer_inputs = [_carrier(t) for t in inputs]
        outer_results = [_carrier(t) for t in results]
        with ir.InsertionPoint(module.body):
            wrapper = func.FuncOp("main", (outer_inputs, outer_results))
        block = wrapper.add_entry_block()
        with ir.InsertionPoint(block):
            typed = [_into(arg, t) for arg, t in zip(block.arguments, inputs)]
            call = func.CallOp(results, ir.FlatSymbolRefAttr.get(TYPED_MAIN), typed)
            func.ReturnOp([_out_of(v, t) for v, t in zip(call.results, outer_results)])
        if not module.operation.verify():  # (newer bindings raise instead) a bridge of ours that is not valid IR
            raise ValueError("the bridged module does not verify")
        return str(module)


def _bridge_of(tensor_type: Any) -> tuple[str, str] | None:
    from iree.compiler import ir

    try:
        ranked = ir.RankedTensorType(tensor_type)
    except ValueError:  # not a ranked tensor (a token)
        return None
    return BRIDGED.get(str(ranked.element_type))


def _carrier(tensor_type: Any) -> Any:
    """The type a value of ``tensor_type`` crosses the module boundary as."""
    from iree.compiler import ir

    bridge = _bridge_of(tensor_type)
    if bridge is None:
        return tensor_type
    return _with_element(tensor_type, ir.Type.parse(bridge[0]))


def _with_element(tensor_type: Any, element: Any) -> Any:
    from iree.compiler import ir

    ranked = ir.RankedTensorType(tensor_type)
    return ir.RankedTensorType.get(ranked.shape, element, ranked.encoding)  # bounds of a dynamic dimension kept


def _op(name: str, value: Any, result_type: Any) -> Any:
    from iree.compiler import ir

    return ir.Operation.create(name, results=[result_type], operands=[value]).result


def _into(value: Any, tensor_type: Any) -> Any:
    """``value`` (of the carrier type) as ``tensor_type``, inside the module."""
    from iree.compiler import ir

    bridge = _bridge_of(tensor_type)
    if bridge is None:
        return value
    if bridge[1] == _BITS:
        return _op("stablehlo.bitcast_convert", value, tensor_type)
    if bridge[1] == _VALUE:
        return _op("stablehlo.convert", value, tensor_type)
    nibbles = _op("stablehlo.convert", value, _with_element(tensor_type, ir.IntegerType.get_signless(4)))
    return _op("stablehlo.bitcast_convert", nibbles, tensor_type)


def _out_of(value: Any, carrier_type: Any) -> Any:
    """``value`` (of a bridged type, or any other) as ``carrier_type``, inside the module."""
    from iree.compiler import ir

    bridge = _bridge_of(value.type)
    if bridge is None:
        return value
    if bridge[1] == _BITS:
        return _op("stablehlo.bitcast_convert", value, carrier_type)
    if bridge[1] == _VALUE:
        return _op("stablehlo.convert", value, carrier_type)
    nibbles = _op("stablehlo.bitcast_convert", value, _with_element(value.type, ir.IntegerType.get_signless(4)))
    return _op("stablehlo.convert", nibbles, carrier_type)
