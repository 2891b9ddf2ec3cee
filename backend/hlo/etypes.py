"""XLA primitive (element) types, their classes, and the mapping to NumPy dtypes.

The numbering follows ``xla_data.proto``'s ``PrimitiveType``.
"""

from __future__ import annotations

import enum

import ml_dtypes
import numpy as np


class PrimitiveType(enum.IntEnum):
    PRIMITIVE_TYPE_INVALID = 0
    PRED = 1
    S8 = 2
    S16 = 3
    S32 = 4
    S64 = 5
    U8 = 6
    U16 = 7
    U32 = 8
    U64 = 9
    F16 = 10
    F32 = 11
    F64 = 12
    TUPLE = 13
    OPAQUE_TYPE = 14
    C64 = 15
    BF16 = 16
    TOKEN = 17
    C128 = 18
    F8E5M2 = 19
    F8E4M3FN = 20
    S4 = 21
    U4 = 22
    F8E4M3B11FNUZ = 23
    F8E5M2FNUZ = 24
    F8E4M3FNUZ = 25
    S2 = 26
    U2 = 27
    F8E4M3 = 28
    F8E3M4 = 29
    S1 = 30
    U1 = 31
    F4E2M1FN = 32
    F8E8M0FNU = 33


_DTYPES: dict[PrimitiveType, np.dtype] = {
    PrimitiveType.PRED: np.dtype(np.bool_),
    PrimitiveType.S1: np.dtype(ml_dtypes.int1),
    PrimitiveType.S2: np.dtype(ml_dtypes.int2),
    PrimitiveType.S4: np.dtype(ml_dtypes.int4),
    PrimitiveType.S8: np.dtype(np.int8),
    PrimitiveType.S16: np.dtype(np.int16),
    PrimitiveType.S32: np.dtype(np.int32),
    PrimitiveType.S64: np.dtype(np.int64),
    PrimitiveType.U1: np.dtype(ml_dtypes.uint1),
    PrimitiveType.U2: np.dtype(ml_dtypes.uint2),
    PrimitiveType.U4: np.dtype(ml_dtypes.uint4),
    PrimitiveType.U8: np.dtype(np.uint8),
    PrimitiveType.U16: np.dtype(np.uint16),
    PrimitiveType.U32: np.dtype(np.uint32),
    PrimitiveType.U64: np.dtype(np.uint64),
    PrimitiveType.F16: np.dtype(np.float16),
    PrimitiveType.BF16: np.dtype(ml_dtypes.bfloat16),
    PrimitiveType.F32: np.dtype(np.float32),
    PrimitiveType.F64: np.dtype(np.float64),
    PrimitiveType.C64: np.dtype(np.complex64),
    PrimitiveType.C128: np.dtype(np.complex128),
    PrimitiveType.F8E5M2: np.dtype(ml_dtypes.float8_e5m2),
    PrimitiveType.F8E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
    PrimitiveType.F8E4M3B11FNUZ: np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    PrimitiveType.F8E5M2FNUZ: np.dtype(ml_dtypes.float8_e5m2fnuz),
    PrimitiveType.F8E4M3FNUZ: np.dtype(ml_dtypes.float8_e4m3fnuz),
    PrimitiveType.F8E4M3: np.dtype(ml_dtypes.float8_e4m3),
    PrimitiveType.F8E3M4: np.dtype(ml_dtypes.float8_e3m4),
    PrimitiveType.F4E2M1FN: np.dtype(ml_dtypes.float4_e2m1fn),
    PrimitiveType.F8E8M0FNU: np.dtype(ml_dtypes.float8_e8m0fnu),
}
_ETYPES: dict[np.dtype, PrimitiveType] = {dt: et for et, dt in _DTYPES.items()}

ARRAY_TYPES: tuple[PrimitiveType, ...] = tuple(_DTYPES)

SIGNED_INTS = (PrimitiveType.S1, PrimitiveType.S2, PrimitiveType.S4, PrimitiveType.S8,
               PrimitiveType.S16, PrimitiveType.S32, PrimitiveType.S64)
UNSIGNED_INTS = (PrimitiveType.U1, PrimitiveType.U2, PrimitiveType.U4, PrimitiveType.U8,
                 PrimitiveType.U16, PrimitiveType.U32, PrimitiveType.U64)
F8_TYPES = (PrimitiveType.F8E5M2, PrimitiveType.F8E4M3FN, PrimitiveType.F8E4M3B11FNUZ,
            PrimitiveType.F8E5M2FNUZ, PrimitiveType.F8E4M3FNUZ, PrimitiveType.F8E4M3,
            PrimitiveType.F8E3M4, PrimitiveType.F8E8M0FNU)
FLOATS = (PrimitiveType.F16, PrimitiveType.BF16, PrimitiveType.F32, PrimitiveType.F64,
          *F8_TYPES, PrimitiveType.F4E2M1FN)
COMPLEX = (PrimitiveType.C64, PrimitiveType.C128)

#: Named classes usable in specs (``element_types: {T: [float, complex]}``).
TYPE_CLASSES: dict[str, tuple[PrimitiveType, ...]] = {
    "pred": (PrimitiveType.PRED,),
    "signed": SIGNED_INTS,
    "unsigned": UNSIGNED_INTS,
    "int": SIGNED_INTS + UNSIGNED_INTS,
    "float": FLOATS,
    "f8": F8_TYPES,
    "complex": COMPLEX,
    "numeric": SIGNED_INTS + UNSIGNED_INTS + FLOATS + COMPLEX,
    "integral": (PrimitiveType.PRED,) + SIGNED_INTS + UNSIGNED_INTS,
    "any": ARRAY_TYPES,
}

_SHORT_NAMES: dict[PrimitiveType, str] = {et: et.name.lower() for et in ARRAY_TYPES}
_SHORT_NAMES[PrimitiveType.TOKEN] = "token"
_BY_SHORT_NAME = {name: et for et, name in _SHORT_NAMES.items()}


def dtype_to_etype(dtype: object) -> PrimitiveType:
    """The XLA element type of a NumPy dtype (or anything ``np.dtype`` accepts)."""
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise ValueError(f"not a NumPy dtype: {dtype!r}") from e
    if dt not in _ETYPES:
        raise ValueError(f"NumPy dtype {dt} has no XLA element type")
    return _ETYPES[dt]


def etype_to_dtype(etype: PrimitiveType) -> np.dtype:
    """The NumPy dtype that holds an XLA element type."""
    if etype not in _DTYPES:
        raise ValueError(f"element type {PrimitiveType(etype).name} has no NumPy dtype")
    return _DTYPES[PrimitiveType(etype)]


def short_name(etype: PrimitiveType) -> str:
    """``f32``, ``bf16``, ``pred``..."""
    return _SHORT_NAMES[PrimitiveType(etype)]


def from_short_name(name: str) -> PrimitiveType:
    """Inverse of :func:`short_name`; also accepts enum names (``F32``)."""
    key = name.strip().lower()
    if key not in _BY_SHORT_NAME:
        raise ValueError(f"unknown element type '{name}'")
    return _BY_SHORT_NAME[key]


def in_class(etype: PrimitiveType, cls: str) -> bool:
    return etype in TYPE_CLASSES[cls]


def is_float(etype: PrimitiveType) -> bool:
    return etype in FLOATS


def is_complex(etype: PrimitiveType) -> bool:
    return etype in COMPLEX


def is_signed_int(etype: PrimitiveType) -> bool:
    return etype in SIGNED_INTS


def is_unsigned_int(etype: PrimitiveType) -> bool:
    return etype in UNSIGNED_INTS


def is_int(etype: PrimitiveType) -> bool:
    return etype in SIGNED_INTS or etype in UNSIGNED_INTS


def bit_width(etype: PrimitiveType) -> int:
    """Bits of one element (PRED counts as 8, as XLA stores it)."""
    et = PrimitiveType(etype)
    if et == PrimitiveType.PRED:
        return 8
    dt = etype_to_dtype(et)
    if et in (PrimitiveType.S1, PrimitiveType.U1):
        return 1
    if et in (PrimitiveType.S2, PrimitiveType.U2):
        return 2
    if et in (PrimitiveType.S4, PrimitiveType.U4, PrimitiveType.F4E2M1FN):
        return 4
    return dt.itemsize * 8


def resolve_types(names: list[str] | tuple[str, ...]) -> tuple[PrimitiveType, ...]:
    """Expand a spec's list of class names and type names into element types, in order."""
    out: list[PrimitiveType] = []
    for name in names:
        types = TYPE_CLASSES.get(name) or (from_short_name(name),)
        out.extend(t for t in types if t not in out)
    return tuple(out)
