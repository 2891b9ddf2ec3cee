"""XLA's math-library functions, written the way xla_client's own tests were: builder first,
``ops.Acos(ops.Constant(c, np.float32(...)))``, run on the reference and on jax.

Expected values come from mpmath at 50 digits, computed here (mpmath is independent of the code
under test), and are compared within a few ulps of each type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import pytest

from backend import ops
from backend.backends import get_backend
from backend.errors import OpError
from backend.hlo.builder import XlaBuilder
from backend.hlo.shape import Shape

mpmath.mp.dps = 50
BACKENDS = ["reference", "jax"]
RTOL = {np.float32: 4e-6, np.float64: 1e-14, np.complex64: 4e-6, np.complex128: 1e-14}


def _execute(backend: str, c: XlaBuilder) -> np.ndarray:
    return get_backend(backend).execute(c.build(), [])[0]


def _mp(fn: Callable[[Any], Any], x: Any) -> complex | float:
    """fn at 50 digits, as the nearest double (NaN where mpmath has no real value)."""
    if isinstance(x, complex | np.complexfloating):
        z = fn(mpmath.mpc(float(x.real), float(x.imag)))
        return complex(float(z.real), float(z.imag))
    y = fn(mpmath.mpf(float(x)))
    return float(y) if isinstance(y, mpmath.mpf) else float("nan")  # outside the domain: a complex value


def _expected(fn: Callable[[Any], Any], values: np.ndarray) -> np.ndarray:
    return np.array([_mp(fn, v) for v in values.ravel()]).reshape(values.shape)


REAL_CASES: dict[str, tuple[Callable[[Any], Any], list[float]]] = {
    "Acos": (mpmath.acos, [-1, -0.75, -0.1, 0, 0.3, 0.999, 1, 1.5]),
    "Asin": (mpmath.asin, [-1, -0.75, -0.1, 0, 0.3, 0.999, 1, -2]),
    "Atan": (mpmath.atan, [-1e10, -3, -0.5, 0, 0.25, 1, 7, 1e30]),
    "Acosh": (mpmath.acosh, [1, 1.0001, 1.5, 2, 10, 1e5, 1e30, 0.5]),
    "Asinh": (mpmath.asinh, [-1e20, -3, -0.5, 0, 1e-3, 1, 7, 1e30]),
    "Atanh": (mpmath.atanh, [-0.999, -0.5, -1e-3, 0, 0.1, 0.75, 0.9375, 3]),
    "Sinh": (mpmath.sinh, [-20, -3, -0.5, 0, 1e-3, 1, 7, 50]),
    "Erfc": (mpmath.erfc, [-3, -1, -0.1, 0, 0.5, 1, 4, 9]),
    "Square": (lambda x: x * x, [-1e18, -3, -0.1, 0, 1e-3, 1.5, 7, 1e15]),
    "Reciprocal": (lambda x: 1 / x, [-1e30, -3, -0.1, 0.2, 1e-3, 1.5, 7, 3e20]),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(REAL_CASES))
def test_real_values_match_mpmath(backend: str, dtype: type, op: str) -> None:
    fn, values = REAL_CASES[op]
    x = np.array(values, dtype)
    c = XlaBuilder(op.lower())
    getattr(ops, op)(ops.Constant(c, x))
    out = _execute(backend, c)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, _expected(fn, x), rtol=RTOL[dtype])


COMPLEX_OPS = {"Acos": mpmath.acos, "Asin": mpmath.asin, "Atan": mpmath.atan, "Acosh": mpmath.acosh,
               "Asinh": mpmath.asinh, "Atanh": mpmath.atanh, "Sinh": mpmath.sinh,
               "Square": lambda z: z * z, "Reciprocal": lambda z: 1 / z}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op", sorted(COMPLEX_OPS))
def test_complex_values_match_mpmath(backend: str, dtype: type, op: str) -> None:
    z = np.array([1 + 1j, -2 + 0.5j, 0.5 - 3j, -0.25 - 0.75j], dtype)  # off every branch cut
    c = XlaBuilder(op.lower())
    getattr(ops, op)(ops.Constant(c, z))
    out = _execute(backend, c)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, _expected(COMPLEX_OPS[op], z), rtol=RTOL[dtype])


# special values: (op, operand, expected); compared exactly, signed zeros included
SPECIAL = [
    ("Acos", [1.0, -0.0, np.nan, 1.5, -np.inf], [0.0, float(mpmath.pi / 2), np.nan, np.nan, np.nan]),
    ("Asin", [-0.0, -1.0, 2.0], [-0.0, -float(mpmath.pi / 2), np.nan]),
    ("Atan", [-0.0, np.inf, -np.inf], [-0.0, float(mpmath.pi / 2), -float(mpmath.pi / 2)]),
    ("Acosh", [1.0, np.inf, 0.0], [0.0, np.inf, np.nan]),
    ("Asinh", [-0.0, np.inf, -np.inf], [-0.0, np.inf, -np.inf]),
    ("Atanh", [1.0, -1.0, -0.0, 1.5], [np.inf, -np.inf, -0.0, np.nan]),
    ("Sinh", [-0.0, np.inf, -1000.0], [-0.0, np.inf, -np.inf]),
    ("Erfc", [np.inf, -np.inf, -0.0, np.nan], [0.0, 2.0, 1.0, np.nan]),
    ("Square", [-0.0, -np.inf, 1e200], [0.0, np.inf, np.inf]),
    ("Reciprocal", [0.0, -0.0, -np.inf], [np.inf, -np.inf, -0.0]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op,operand,expected", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_values(backend: str, op: str, operand: list[float], expected: list[float]) -> None:
    # a Parameter, not a Constant: XLA's constant folder gives asinh(-0) = +0 (Asinh's spec declares it)
    c = XlaBuilder("special")
    x = np.array(operand, np.float64)
    getattr(ops, op)(ops.Parameter(c, 0, Shape.array_shape("f64", x.shape), "x"))
    out = get_backend(backend).execute(c.build(), [x])[0]
    np.testing.assert_array_equal(out, np.array(expected))
    numbers = ~np.isnan(expected)  # a NaN's sign is not specified
    assert (np.signbit(out) == np.signbit(np.array(expected)))[numbers].all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_asinh_of_constant_negative_zero(backend: str) -> None:
    """The implementation-defined case: -0 or +0 (XLA's constant folder gives +0); the value is 0 either way."""
    c = XlaBuilder("asinh")
    ops.Asinh(ops.Constant(c, np.float32([-0.0, 1.0])))
    out = _execute(backend, c)
    assert out[0] == 0
    np.testing.assert_allclose(out[1], float(mpmath.asinh(1)), rtol=RTOL[np.float32])


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_square_and_reciprocal(backend: str) -> None:
    c = XlaBuilder("ints")
    x = ops.Constant(c, np.array([3, -4, 46341, 1, -1, 2], np.int32))
    ops.Tuple(c, [ops.Square(x), ops.Reciprocal(x)])
    square, reciprocal = get_backend(backend).execute(c.build(), [])
    np.testing.assert_array_equal(square, np.int32([9, 16, 46341 ** 2 - 2 ** 32, 1, 1, 4]))  # wraps
    np.testing.assert_array_equal(reciprocal, np.int32([0, 0, 0, 1, -1, 0]))  # rounds toward zero


@pytest.mark.parametrize("backend", BACKENDS)
def test_conj(backend: str) -> None:
    c = XlaBuilder("conj")
    ops.Conj(ops.Constant(c, np.array([1 + 2j, 3 - 4j, -0.0 + 0j], np.complex64)))
    out = _execute(backend, c)
    np.testing.assert_array_equal(out, np.complex64([1 - 2j, 3 + 4j, 0j]))
    assert list(np.signbit(out.imag)) == [True, False, True]

    c = XlaBuilder("conj_real")  # Complex(Real(x), Neg(Imag(x))): a real x becomes x - 0i
    ops.Conj(ops.Constant(c, np.float64([1.5, -2.0])))
    out = _execute(backend, c)
    assert out.dtype == np.complex128
    np.testing.assert_array_equal(out.real, [1.5, -2.0])
    assert np.signbit(out.imag).all() and (out.imag == 0).all()


def _ulp_f32(x: float) -> float:
    """The spacing of f32 values in the binade [2^e, 2^(e+1)) holding x: 2^(e - 23)."""
    return float(mpmath.ldexp(1, int(mpmath.floor(mpmath.log(abs(mpmath.mpf(x)), 2))) - 23))


@pytest.mark.parametrize("backend", BACKENDS)
def test_next_after(backend: str) -> None:
    c = XlaBuilder("next_after")
    frm = np.float32([1, 1, 3, 0, 0, 2.0 ** -149, -0.0, 5])
    to = np.float32([2, 0, -np.inf, 1, -1, 0, 0.0, 5])
    ops.NextAfter(ops.Constant(c, frm), ops.Constant(c, to))
    out = _execute(backend, c)
    # 1 up: 1 + ulp(1); 1 down: 1 - ulp(0.5) (the binade below is twice as fine); 3 down: 3 - ulp(3)
    expected = np.float32([1 + _ulp_f32(1), 1 - _ulp_f32(0.5), 3 - _ulp_f32(3),
                           2.0 ** -149, -2.0 ** -149, 0.0, 0.0, 5])
    np.testing.assert_array_equal(out, expected)
    assert not np.signbit(out[6])  # from -0 toward +0 gives to: +0


@pytest.mark.parametrize("backend", BACKENDS)
def test_next_after_nan_and_infinity(backend: str) -> None:
    c = XlaBuilder("next_after")
    largest = float(np.finfo(np.float64).max)
    ops.NextAfter(ops.Constant(c, np.float64([np.nan, 1, largest, np.inf])),
                  ops.Constant(c, np.float64([0, np.nan, np.inf, 0])))
    out = _execute(backend, c)
    np.testing.assert_array_equal(out, [np.nan, np.nan, np.inf, largest])


def test_next_after_argument_forms() -> None:
    """`from` is a Python keyword: positional, ``**{"from": x}`` and ``from_=`` all bind it."""
    c = XlaBuilder("forms")
    x, y = ops.Constant(c, np.float32([1])), ops.Constant(c, np.float32([2]))
    shapes = {str(c.get_shape(op)) for op in (ops.NextAfter(x, y), ops.NextAfter(**{"from": x, "to": y}),
                                               ops.NextAfter(from_=x, to=y), ops.NextAfter(x, to=y))}
    assert shapes == {"f32[1]"}
    with pytest.raises(OpError) as info:
        ops.NextAfter(x, **{"from": x, "to": y})
    assert info.value.constraint == "arg-type" and "twice" in str(info.value)


def _error(fn: Callable[[], Any]) -> OpError:
    with pytest.raises(OpError) as info:
        fn()
    return info.value


def test_errors_name_the_constraint() -> None:
    c = XlaBuilder("errors")
    s32 = ops.Parameter(c, 0, Shape.array_shape("s32", [3]), "s32")
    c64 = ops.Parameter(c, 1, Shape.array_shape("c64", [3]), "c64")
    f16 = ops.Parameter(c, 2, Shape.array_shape("f16", [3]), "f16")
    f32 = ops.Parameter(c, 3, Shape.array_shape("f32", [3]), "f32")
    f32_2 = ops.Parameter(c, 4, Shape.array_shape("f32", [2]), "f32_2")
    for op in ("Acos", "Asin", "Atan", "Acosh", "Asinh", "Atanh", "Sinh", "Erfc"):
        err = _error(lambda op=op: getattr(ops, op)(s32))
        assert (err.op, err.constraint, err.arg) == (op, "C1", "operand")
    assert _error(lambda: ops.Erfc(c64)).constraint == "C1"
    assert _error(lambda: ops.Conj(f16)).constraint == "C1"
    assert _error(lambda: ops.NextAfter(f32, f16)).constraint == "C1"
    assert _error(lambda: ops.NextAfter(c64, c64)).constraint == "C1"
    err = _error(lambda: ops.NextAfter(f32, f32_2))
    assert (err.constraint, err.arg) == ("C2", "to")


def test_result_shapes() -> None:
    c = XlaBuilder("shapes")
    x = ops.Parameter(c, 0, Shape.array_shape("f32", [2, 3]), "x")
    z = ops.Parameter(c, 1, Shape.array_shape("c128", [4]), "z")
    assert c.get_shape(ops.Conj(x)) == Shape.array_shape("c64", [2, 3])
    assert c.get_shape(ops.Conj(z)) == Shape.array_shape("c128", [4])
    assert c.get_shape(ops.Acosh(z)) == Shape.array_shape("c128", [4])
    assert c.get_shape(ops.Square(x)) == Shape.array_shape("f32", [2, 3])


# -- NextAfter on the F8 and F4 types ------------------------------------------------------------------------------
_NARROW_FLOATS = ("float8_e5m2", "float8_e4m3fn", "float8_e4m3b11fnuz", "float8_e5m2fnuz", "float8_e4m3fnuz",
                  "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float4_e2m1fn")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", _NARROW_FLOATS)
def test_next_after_steps_to_the_neighbour_on_every_narrow_float(backend, name):
    """Every value of the type toward its largest and its smallest value: the neighbour in the type's ordered
    set of values (listed by ml_dtypes from every bit pattern), a zero counted once; NaN stays NaN."""
    import ml_dtypes

    dtype = np.dtype(getattr(ml_dtypes, name))
    if dtype.itemsize == 1 and name.startswith("float8"):
        x = np.arange(256, dtype=np.uint8).view(dtype)
    else:  # F4E2M1FN: its 16 values
        x = np.array([s * v for s in (1, -1) for v in (0, 0.5, 1, 1.5, 2, 3, 4, 6)], np.float32).astype(dtype)
    values = x.astype(np.float64)
    grid = np.unique(values[~np.isnan(values)])
    for target in (grid[-1], grid[0]):
        b = XlaBuilder("next_after")
        ops.NextAfter(ops.Constant(b, x), ops.Constant(b, np.full(x.shape, target).astype(dtype)))
        got = get_backend(backend).execute(b.build(), [])[0].astype(np.float64)
        for v, g in zip(values, got):
            if np.isnan(v):
                assert np.isnan(g)
            elif v == target:
                assert g == target
            else:
                assert g == (grid[grid > v].min() if target > v else grid[grid < v].max()), (name, v, target, g)


_F4_VALUES = [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6]


@pytest.mark.parametrize("op", ["Acos", "Asin"])
def test_f4e2m1fn_acos_and_asin_on_every_value(op: str) -> None:
    """Every f4e2m1fn value: inside [-1, 1] mpmath's value (50 digits) rounded to f4e2m1fn (asin(1) = 1.5708 to 1.5,
    acos(-1) = pi to 3, acos(0.5) = 1.0472 to 1); outside, the NaN f4e2m1fn cannot hold: +0 (no_nan_encoding)."""
    import ml_dtypes

    values = np.array(_F4_VALUES, ml_dtypes.float4_e2m1fn)
    c = XlaBuilder(op)
    getattr(ops, op)(ops.Constant(c, values))
    got = _execute("reference", c)
    fn = REAL_CASES[op][0]
    # asin keeps the sign of a zero (mpmath has no -0); outside [-1, 1] the zero of no_nan_encoding
    exact = [v if op == "Asin" and v == 0 else _mp(fn, v) if abs(v) <= 1 else 0.0 for v in _F4_VALUES]
    assert got.dtype == ml_dtypes.float4_e2m1fn
    assert got.tobytes() == np.array(exact).astype(ml_dtypes.float4_e2m1fn).tobytes(), got.astype(np.float64).tolist()
