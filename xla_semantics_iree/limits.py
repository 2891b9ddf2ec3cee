"""What IREE 3.13 cannot run, and why, in IREE's (or StableHLO's) own terms: each reason is shown by a minimal
StableHLO program run with IREE alone in docs/iree_differences.md ("Unsupported", U1 to U6), which
tests/test_iree_differences_doc.py runs. One reason is not IREE's: :data:`NOT_EXPORTED_BOUNDED_DYNAMIC`, what this
adapter's export cannot give (U5)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from backend import PrimitiveType, XlaComputation
from backend.export import host_io_op, multi_device_op, static_stand_in

#: Why IREE cannot run an op that exchanges data between devices or reads its device's id, on either target (U1).
NO_COLLECTIVES = (
    "IREE's CPU drivers (local-task, local-sync) implement no collective channels, which every op that "
    "exchanges data between replicas or partitions or reads its device's id needs: a StableHLO "
    "all_reduce, all_gather, all_to_all, reduce_scatter, collective_permute, replica_id or partition_id "
    "compiles, and running it fails in hal.channel.create with 'UNIMPLEMENTED; collectives not "
    "implemented', on one device or several; collective_broadcast, send and recv do not compile "
    "(failed to legalize)"
)
#: Why IREE cannot run an op that talks to the host (U2).
NO_HOST_IO = (
    "IREE has no lowering of StableHLO's host transfers: stablehlo.infeed, stablehlo.outfeed, and stablehlo.send "
    "and stablehlo.recv with is_host_transfer = true do not compile (failed to legalize operation)"
)
#: Why no StableHLO consumer can be given an s1 or u1 value (U3).
NO_ONE_BIT_INTEGERS = (
    "StableHLO has no 1-bit integer type, so no StableHLO program holds {type} values: its signed integers are si2 "
    "to si64 (written as the signless i2 to i64, so i1 is its boolean, XLA's pred) and its unsigned ones ui2 to "
    "ui64; iree-compile's StableHLO verifier rejects tensor<4xui1> ('must be ranked tensor of ... bool or "
    "2/4/8/16/32/64-bit integer ...') and accepts tensor<4xui2>"
)
_ONE_BIT = {PrimitiveType.S1: "s1", PrimitiveType.U1: "u1"}
#: The ops of StableHLO that IREE does not lower, and the linear algebra StableHLO has no op for (U4).
NO_LINEAR_ALGEBRA_OP = (
    "IREE 3.13 does not lower stablehlo.{op} ('failed to legalize operation 'stablehlo.{op}' that was explicitly "
    "marked illegal', on llvm-cpu and vmvx), and jax's CPU export of it is a LAPACK custom_call, which IREE does not "
    "provide either ('failed to legalize operation 'stablehlo.custom_call'')"
)
NO_DECOMPOSITION_OP = (
    "StableHLO has no op for it (XLA builds QR, LU, Eigh, SVD and products of Householder reflectors from other HLO "
    "ops or calls LAPACK or cuSOLVER; jax's CPU export is a LAPACK custom_call), and IREE provides no custom-call "
    "target of a runtime library ('failed to legalize operation 'stablehlo.custom_call' that was explicitly marked "
    "illegal')"
)
LINEAR_ALGEBRA: dict[str, str] = {
    "Cholesky": NO_LINEAR_ALGEBRA_OP.format(op="cholesky"),
    "TriangularSolve": NO_LINEAR_ALGEBRA_OP.format(op="triangular_solve"),
    **dict.fromkeys(("QR", "QrDecomposition", "LU", "Eigh", "SVD", "ProductOfElementaryHouseholderReflectors"),
                    NO_DECOMPOSITION_OP),
}
#: Complex Cbrt (U6).
NO_COMPLEX_CBRT = (
    "IREE 3.13 does not lower stablehlo.cbrt of complex operands, which StableHLO defines ('failed to legalize "
    "operation 'stablehlo.cbrt' that was explicitly marked illegal', on llvm-cpu and vmvx)"
)
#: BitcastConvertType between complex types of different widths (U6).
COMPLEX_BITCAST_CRASHES = (
    "iree-compile 3.13 crashes (SIGSEGV, while converting its StableHLO input) on stablehlo.bitcast_convert between "
    "complex types of different widths ({old} -> {new}), which StableHLO defines (the result gains or loses a "
    "dimension of 2) and its verifier accepts"
)
#: DynamicReshape to a bounded-dynamic shape (U5).
NO_DYNAMIC_RESHAPE = (
    "IREE 3.13 does not lower stablehlo.dynamic_reshape ('failed to legalize operation 'stablehlo.dynamic_reshape' "
    "that was explicitly marked illegal'), with a bounded or unbounded result, even with a constant shape operand"
)
#: Not IREE's limit: what this adapter's export (jax's lowering) cannot give (U5).
NOT_EXPORTED_BOUNDED_DYNAMIC = (
    "not IREE's limit but this adapter's: {opcode}'s result {shape} has a bounded-dynamic dimension that the program "
    "reads, which the export cannot give (it is jax's lowering of a static stand-in, so bounded-dynamic values can "
    "only be results: backend/hlo/bounded_results.py); IREE itself compiles and runs StableHLO's "
    "set_dimension_size and get_dimension_size (docs/iree_differences.md, U5)"
)


def iree_limit(computation: XlaComputation) -> str | None:
    """Why IREE cannot run ``computation`` (its first op that IREE or StableHLO cannot hold, sub-computations first),
    ``"OPCODE: reason"``; or, for a bounded-dynamic value IREE could run, why this adapter cannot give it; ``None``
    when neither applies (the export and IREE's compiler decide)."""
    for find, limit in ((multi_device_op, NO_COLLECTIVES), (host_io_op, NO_HOST_IO)):
        opcode = find(computation)
        if opcode is not None:
            return f"{opcode}: {limit}"
    dynamic = None
    for comp, inst in _instructions(computation):
        reason = _op_limit(comp, inst)
        if reason is not None:
            return f"{inst.opcode}: {reason}"
        if dynamic is None and not all(s.is_static() for s in _leaf_shapes(inst.shape)):
            dynamic = NOT_EXPORTED_BOUNDED_DYNAMIC.format(opcode=inst.opcode, shape=inst.shape)
    return dynamic if static_stand_in(computation) is None else None  # bounded-dynamic results are exported


def _op_limit(comp: XlaComputation, inst: Any) -> str | None:
    for shape in _leaf_shapes(inst.shape):
        name = _ONE_BIT.get(shape.element_type())
        if name is not None:
            return NO_ONE_BIT_INTEGERS.format(type=name)
    if inst.opcode in LINEAR_ALGEBRA:
        return LINEAR_ALGEBRA[inst.opcode]
    if inst.opcode == "Cbrt" and _is_complex(inst.shape.element_type()):
        return NO_COMPLEX_CBRT
    if inst.opcode == "BitcastConvertType":
        old, new = comp.instruction(inst.operands[0]).shape.element_type(), inst.shape.element_type()
        if _is_complex(old) and _is_complex(new) and old != new:
            return COMPLEX_BITCAST_CRASHES.format(old=_short(old), new=_short(new))
    if inst.opcode == "DynamicReshape" and not inst.shape.is_static():
        return NO_DYNAMIC_RESHAPE
    return None


def _instructions(computation: XlaComputation) -> Iterator[tuple[XlaComputation, Any]]:
    for comp in (*computation.subcomputations(), computation):
        for inst in comp.instructions:
            yield comp, inst


def _leaf_shapes(shape: Any) -> list[Any]:
    return [s for s in shape.leaf_shapes() if s.is_array()]


def _is_complex(et: PrimitiveType) -> bool:
    return et in (PrimitiveType.C64, PrimitiveType.C128)


def _short(et: PrimitiveType) -> str:
    return et.name.lower()
