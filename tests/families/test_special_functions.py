"""XLA's math-library special functions, written the way xla_client's tests were: builder first,
``ops.Lgamma(ops.Constant(c, ...))``, run on the reference and on jax, and checked against mpmath
at 50 digits computed here (an independent source: the reference evaluates with SciPy); Zeta below the series'
domain (an implementation-defined entry narrowed to a closed set)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import mpmath as mp
import numpy as np
import pytest

from backend import ops
from backend.backends import get_backend
from backend.errors import OpError
from backend.hlo.builder import XlaBuilder
from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
from tests.support.cases import FunctionBackend, allowed_table, golden_case
from tests.support.mutant_backends import mutant_backend

inf, nan = np.inf, np.nan


def _exact(fn: Callable[..., Any]) -> Callable[..., float]:
    """``fn`` on mpf arguments at 50 digits, as a float (poles and domain edges given as inf / nan)."""
    def value(*args: float) -> float:
        with mp.workdps(50):
            return float(fn(*[mp.mpf(a) for a in args]))
    return value


def _dp_da(a: Any, x: Any) -> Any:
    """dP(a, x)/da, through the upper function where x > a (so no digits are lost to 1 - Q)."""
    if x > a:
        return -mp.diff(lambda s: mp.gammainc(s, x, mp.inf, regularized=True), a)
    return mp.diff(lambda s: mp.gammainc(s, 0, x, regularized=True), a)


def _gamma_density(a: Any, x: Any) -> Any:
    return mp.exp((a - 1) * mp.log(x) - x - mp.loggamma(a))


MPMATH: dict[str, Callable[..., float]] = {
    "ErfInv": _exact(mp.erfinv),
    "Lgamma": _exact(lambda x: mp.log(abs(mp.gamma(x)))),
    "Digamma": _exact(mp.digamma),
    "BesselI0e": _exact(lambda x: mp.besseli(0, x) * mp.exp(-abs(x))),
    "BesselI1e": _exact(lambda x: mp.besseli(1, x) * mp.exp(-abs(x))),
    "Igamma": _exact(lambda a, x: mp.gammainc(a, 0, x, regularized=True)),
    "Igammac": _exact(lambda a, x: mp.gammainc(a, x, mp.inf, regularized=True)),
    "IgammaGradA": _exact(_dp_da),
    "RandomGammaGrad": _exact(lambda a, x: -_dp_da(a, x) / _gamma_density(a, x)),
    "Zeta": _exact(mp.zeta),
    "RegularizedIncompleteBeta": _exact(lambda a, b, x: mp.betainc(a, b, 0, x, regularized=True)),
}

# operands (one list per argument, in xla_client's order) inside each function's domain
POINTS: dict[str, list[list[float]]] = {
    "ErfInv": [[0.5, -0.9, 0.1, 0.99]],
    "Lgamma": [[0.5, 3.0, -2.5, 30.0]],
    "Digamma": [[1.0, 0.25, -1.5, 12.0]],
    "BesselI0e": [[0.0, 1.0, -3.5, 40.0]],
    "BesselI1e": [[0.5, -1.0, 3.5, 40.0]],
    "Igamma": [[0.5, 2.0, 5.0, 1.0], [0.5, 1.0, 7.0, 0.1]],
    "Igammac": [[0.5, 2.0, 5.0, 1.0], [0.5, 1.0, 7.0, 0.1]],
    "IgammaGradA": [[0.5, 2.0, 5.0, 1.0], [0.5, 1.0, 7.0, 0.1]],
    "RandomGammaGrad": [[0.5, 2.0, 5.0, 1.0], [0.5, 1.0, 7.0, 0.1]],
    "Zeta": [[2.0, 3.0, 1.5, 6.0], [1.0, 2.0, 0.5, 0.25]],
    "RegularizedIncompleteBeta": [[0.5, 2.0, 5.0, 1.0], [0.5, 3.0, 1.0, 1.0], [0.3, 0.5, 0.9, 0.25]],
}

# special values and domain edges: (operands, expected), the mathematical values
SPECIAL: dict[str, tuple[list[list[float]], list[float]]] = {
    "ErfInv": ([[1.0, -1.0, 1.5, -0.0]], [inf, -inf, nan, -0.0]),
    "Lgamma": ([[0.0, -1.0, -3.0, inf]], [inf, inf, inf, inf]),
    "Digamma": ([[-1.0, -2.0, inf, nan]], [nan, nan, inf, nan]),
    "BesselI0e": ([[inf, -inf, nan, -0.0]], [0.0, 0.0, nan, 1.0]),
    "BesselI1e": ([[inf, -inf, -0.0, nan]], [0.0, -0.0, -0.0, nan]),
    "Igamma": ([[1.0, 2.0, -1.0, 1.0], [0.0, inf, 1.0, -1.0]], [0.0, 1.0, nan, nan]),
    "Igammac": ([[1.0, 2.0, -1.0, 1.0], [0.0, inf, 1.0, -1.0]], [1.0, 0.0, nan, nan]),
    "IgammaGradA": ([[1.0, 3.0, -1.0, 1.0], [0.0, 0.0, 1.0, -1.0]], [0.0, 0.0, nan, nan]),
    "RandomGammaGrad": ([[1.0, 3.0, -1.0, 1.0], [0.0, 0.0, 1.0, -1.0]], [0.0, 0.0, nan, nan]),
    "Zeta": ([[1.0, 1.0, 2.0, 3.0], [1.0, 4.0, 0.0, -1.0]], [inf, inf, inf, nan]),
    "RegularizedIncompleteBeta": ([[2.0, 2.0, 2.0, -1.0], [3.0, 3.0, 3.0, 1.0], [0.0, 1.0, 1.5, 0.5]],
                                  [0.0, 1.0, nan, nan]),
}

RTOL = {np.float32: 1e-4, np.float64: 1e-12}


def _build_all(dtype: type) -> tuple[XlaBuilder, list[str]]:
    """One computation with every function applied to its points and special values (one compile on jax)."""
    c = XlaBuilder("special_functions")
    outputs, names = [], []
    for name, points in POINTS.items():
        specials, _ = SPECIAL[name]
        operands = [ops.Constant(c, np.array(p + s, dtype)) for p, s in zip(points, specials)]
        outputs.append(getattr(ops, name)(*operands))
        names.append(name)
    ops.Tuple(c, outputs)
    return c, names


@pytest.mark.parametrize("backend,dtype", [("reference", np.float32), ("reference", np.float64), ("jax", np.float32)])
def test_every_function_against_mpmath(backend: str, dtype: type) -> None:
    c, names = _build_all(dtype)
    results = get_backend(backend).execute(c.build(), [])
    for name, got in zip(names, results):
        assert got.dtype == dtype, name
        points = [np.array(p, dtype).astype(np.float64) for p in POINTS[name]]
        expected = np.array([MPMATH[name](*args) for args in zip(*points)])
        n = len(expected)
        np.testing.assert_allclose(got[:n].astype(np.float64), expected, rtol=RTOL[dtype], atol=1e-30, err_msg=name)
        special = np.array(SPECIAL[name][1])
        np.testing.assert_allclose(got[n:].astype(np.float64), special, rtol=RTOL[dtype], err_msg=name)
        signed = ~np.isnan(special)
        assert list(np.signbit(got[n:][signed])) == list(np.signbit(special[signed])), name


def test_known_closed_forms() -> None:
    # Independent of any library: erfinv(0) = 0, ln Gamma(1/2) = ln sqrt(pi), psi(1) = -Euler's gamma,
    # P(1, x) = 1 - e^-x, zeta(2, 1) = pi^2 / 6, I_x(1, 1) = x.
    c = XlaBuilder("closed_forms")
    ops.Tuple(c, [ops.ErfInv(ops.Constant(c, np.float64(0.0))),
                  ops.Lgamma(ops.Constant(c, np.float64(0.5))),
                  ops.Digamma(ops.Constant(c, np.float64(1.0))),
                  ops.Igamma(ops.Constant(c, np.float64(1.0)), ops.Constant(c, np.float64(2.0))),
                  ops.Zeta(ops.Constant(c, np.float64(2.0)), ops.Constant(c, np.float64(1.0))),
                  ops.RegularizedIncompleteBeta(ops.Constant(c, np.float64(1.0)), ops.Constant(c, np.float64(1.0)),
                                                ops.Constant(c, np.float64(0.375)))])
    got = [float(v) for v in get_backend("reference").execute(c.build(), [])]
    want = [0.0, 0.5 * np.log(np.pi), -0.5772156649015329, 1 - np.exp(-2.0), np.pi ** 2 / 6, 0.375]
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_keyword_arguments_use_xla_client_names() -> None:
    c = XlaBuilder("keywords")
    one = ops.Constant(c, np.float32([1.5, 2.0]))
    half = ops.Constant(c, np.float32([0.5, 0.25]))
    ops.Tuple(c, [ops.ErfInv(operand=half), ops.Igamma(a=one, x=half), ops.Zeta(x=one, q=half),
                  ops.RegularizedIncompleteBeta(a=one, b=one, x=half)])
    erfinv, igamma, zeta, betainc = get_backend("reference").execute(c.build(), [])
    np.testing.assert_allclose(betainc, [MPMATH["RegularizedIncompleteBeta"](1.5, 1.5, 0.5),
                                         MPMATH["RegularizedIncompleteBeta"](2.0, 2.0, 0.25)], rtol=1e-6)
    np.testing.assert_allclose(igamma, [MPMATH["Igamma"](1.5, 0.5), MPMATH["Igamma"](2.0, 0.25)], rtol=1e-6)
    np.testing.assert_allclose(zeta, [MPMATH["Zeta"](1.5, 0.5), MPMATH["Zeta"](2.0, 0.25)], rtol=1e-6)
    np.testing.assert_allclose(erfinv, [MPMATH["ErfInv"](0.5), MPMATH["ErfInv"](0.25)], rtol=1e-6)


@pytest.mark.parametrize("build,constraint,arg", [
    (lambda c: ops.Lgamma(ops.Constant(c, np.int32([1, 2]))), "C1", "operand"),
    (lambda c: ops.BesselI1e(ops.Constant(c, np.complex64([1]))), "C1", "operand"),
    (lambda c: ops.Igamma(ops.Constant(c, np.float32([1])), ops.Constant(c, np.float64([1]))), "C1", None),
    (lambda c: ops.Zeta(ops.Constant(c, np.float32([1, 2])), ops.Constant(c, np.float32([1, 2, 3]))), "C2", "q"),
    (lambda c: ops.Igammac(ops.Constant(c, np.float32([1, 2])), ops.Constant(c, np.float32(1))), "C2", "x"),
    (lambda c: ops.RegularizedIncompleteBeta(ops.Constant(c, np.float32([1])), ops.Constant(c, np.float32([1])),
                                             ops.Constant(c, np.float32([[1]]))), "C2", "x"),
])
def test_invalid_operands_name_the_constraint(build: Callable[[XlaBuilder], Any], constraint: str,
                                              arg: str | None) -> None:
    with pytest.raises(OpError) as e:
        build(XlaBuilder("invalid"))
    assert e.value.constraint == constraint
    if arg is not None:
        assert e.value.arg == arg


# -- Zeta: x < 1 ---------------------------------------------------------------------------------------
# x = 0.5: NaN; x = -2 and x = 0 (even integers) at the pole q = -1: +inf; x = -3 (odd) at q = 0: NaN
ZETA = golden_case("Zeta", {"x": np.float32([0.5, -2, 0, -3]), "q": np.float32([1, -1, -1, 0])},
                   np.float32([nan, inf, inf, nan]), tag="outside_series_domain")


def test_zeta_below_one_is_the_pole_rule_or_nan_and_nothing_else() -> None:
    table = allowed_table("Zeta", ZETA.inputs, {})
    allowed = table["outside_series_domain"]
    assert set(allowed.outcomes) == {"nan"} and allowed.mask.tolist() == [True] * 4
    assert np.isnan(allowed.outcomes["nan"]).all()
    assert run_case(ZETA, get_backend("jax")).status == PASSED
    cephes = run_case(ZETA, mutant_backend("zeta_nan_below_one"))  # NaN at the two poles: the other outcome
    assert cephes.status == IMPL_DEFINED and "chose 'nan'" in cephes.message and "2 element(s)" in cephes.message
    assert run_case(ZETA, mutant_backend("zeta_nan_below_one"), profile="xla").status == FAILED
    continued = run_case(ZETA, mutant_backend("zeta_continues_below_one"))  # zeta(0.5, 1) as 1/2 - 1 = -0.5
    assert continued.status == FAILED and "-0.5" in continued.message


def test_digamma_at_a_zero_takes_nan_a_one_sided_limit_or_minus_infinity_only() -> None:
    """psi(x) ~ -1/x at the pole: NaN for both zeros (XLA), -inf / +inf by the zero's sign, or -inf for both (IREE);
    +inf for both, or a finite value, is none of them."""
    case = golden_case("Digamma", {"operand": np.float32([0.0, -0.0])}, np.float32([np.nan, np.nan]),
                       tag="pole_at_zero")
    for name, values in (("one_sided_limit", [-np.inf, np.inf]), ("minus_infinity", [-np.inf, -np.inf])):
        result = run_case(case, FunctionBackend(name, lambda x, v=values: np.float32(v)))
        assert result.status == IMPL_DEFINED and f"chose '{name}'" in result.message, result.message
        assert run_case(case, FunctionBackend(name, lambda x, v=values: np.float32(v)), profile="xla").status == FAILED
    for wrong in ([np.inf, np.inf], [0.0, -0.0]):
        assert run_case(case, FunctionBackend("wrong", lambda x, v=wrong: np.float32(v))).status == FAILED


def test_digamma_of_a_subnormal_may_take_the_outcomes_of_the_zero_it_reads_as() -> None:
    """A backend that reads subnormals as zero (subnormal_flush) gives Digamma(-1e-40) the value of Digamma(-0): NaN
    (XLA on CPU), +inf, or -inf (IREE 3.13: it reads subnormals as zero and its chlo.digamma is -inf at a zero). The
    IEEE value is +inf (psi(x) ~ -1/x, 1e40 overflows f32). A tiny negative *normal* operand has no such excuse:
    -inf there (the wrong side of the pole) fails, under the xla profile too."""
    x = np.float32([-1e-40, 1e-40, -1e-30])
    case = golden_case("Digamma", {"operand": x}, np.float32([np.inf, -np.inf, 1e30]))
    table = allowed_table("Digamma", case.inputs, {})
    assert table["pole_at_zero"].mask.tolist() == [True, True, False]
    for name, value, chosen in (("xla", np.nan, "flush"), ("iree", -np.inf, "minus_infinity")):
        got = np.float32([value, value, 1e30])
        result = run_case(case, FunctionBackend(name, lambda _, v=got: v))
        assert result.status == IMPL_DEFINED and f"chose '{chosen}'" in result.message, result.message
    iree = FunctionBackend("iree", lambda _: np.float32([-np.inf, -np.inf, 1e30]))
    assert run_case(case, iree, profile="xla").status == FAILED  # XLA's flush gives NaN there
    wrong_side = FunctionBackend("wrong_side", lambda _: np.float32([-np.inf, -np.inf, -np.inf]))
    result = run_case(case, wrong_side)
    assert result.status == FAILED, result.message
    assert "got np.float32(-inf), expected np.float32(1e+30)" in result.message, result.message


# -- the 8- and 4-bit types: the exact value rounded once to the type ---------------------------------------------
# points inside each domain that every narrow type below holds exactly (ml_dtypes checks that each is representable)
NARROW_POINTS: dict[str, list[list[float]]] = {
    "Lgamma": [[0.5, 1.0, 1.5, 3.0, 10.0, -2.5]],
    "Digamma": [[0.5, 1.0, 2.0, 3.0, 12.0, -1.5]],
    "ErfInv": [[0.5, -0.25, 0.875, 0.125, -0.75, 0.0625]],
    "BesselI0e": [[0.5, 1.0, -2.0, 4.0, 12.0, 0.25]],
    "Zeta": [[2.0, 3.0, 1.5, 6.0, 4.0, 2.0], [1.0, 2.0, 0.5, 0.25, 1.0, 3.0]],
    "Igamma": [[0.5, 2.0, 5.0, 1.0, 3.0, 0.25], [0.5, 1.0, 7.0, 0.125, 3.0, 2.0]],
    "Igammac": [[0.5, 2.0, 5.0, 1.0, 3.0, 0.25], [0.5, 1.0, 7.0, 0.125, 3.0, 2.0]],
    "IgammaGradA": [[0.5, 2.0, 5.0, 1.0, 3.0, 0.25], [0.5, 1.0, 7.0, 0.125, 3.0, 2.0]],
    "RandomGammaGrad": [[0.5, 2.0, 5.0, 1.0, 3.0, 0.25], [0.5, 1.0, 7.0, 0.125, 3.0, 2.0]],
}
NARROW_TYPES = (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2fnuz, ml_dtypes.float8_e4m3b11fnuz, ml_dtypes.float8_e3m4)
#: the ops XLA computes through f32 and rounds once (chlo decompositions); jax evaluates the Igamma family's series in
#: the narrow type itself, which departs (conformance/known_failures/xla_algorithms.txt)
THROUGH_F32 = ("Lgamma", "Digamma", "ErfInv", "BesselI0e", "Zeta")


def _narrow_results(backend: str, dtype: Any, names: Any) -> dict[str, np.ndarray]:
    c = XlaBuilder("narrow")
    outputs = []
    for name in names:
        operands = [np.array(p, dtype) for p in NARROW_POINTS[name]]
        assert all((o.astype(np.float64) == p).all() for o, p in zip(operands, NARROW_POINTS[name])), (name, dtype)
        outputs.append(getattr(ops, name)(*[ops.Constant(c, o) for o in operands]))
    ops.Tuple(c, outputs)
    return dict(zip(names, get_backend(backend).execute(c.build(), [])))


def _mpmath_rounded(name: str, dtype: Any) -> np.ndarray:
    return np.array([MPMATH[name](*args) for args in zip(*NARROW_POINTS[name])]).astype(dtype)


@pytest.mark.parametrize("dtype", NARROW_TYPES, ids=lambda d: np.dtype(d).name)
def test_narrow_types_are_the_exact_value_rounded_once(dtype: Any) -> None:
    """The reference gives mpmath's value (50 digits) rounded to the type, bit for bit; XLA's f32 result rounded to the
    type lies within one ulp of it (the spec's f8 tolerance, 2^-2 relative)."""
    got = _narrow_results("reference", dtype, list(NARROW_POINTS))
    for name, values in got.items():
        assert values.dtype == dtype and values.tobytes() == _mpmath_rounded(name, dtype).tobytes(), (name, values)
    for name, values in _narrow_results("jax", dtype, THROUGH_F32).items():
        np.testing.assert_allclose(values.astype(np.float64), _mpmath_rounded(name, dtype).astype(np.float64),
                                   rtol=0.25, err_msg=name)


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_narrow_types_without_infinity_or_nan(backend: str) -> None:
    """As ConvertElementType rounds: +inf is NaN where the type has no infinity (f8e4m3fn, the fnuz types) and +-6 in
    f4e2m1fn; a zero or negative value is NaN in f8e8m0fnu (powers of two only); a NaN in f4e2m1fn (no NaN) is a
    zero, of either sign (no_nan_encoding: XLA gives -0, the reference +0)."""
    c = XlaBuilder("no_inf")
    ops.Tuple(c, [ops.Lgamma(ops.Constant(c, np.array([0, -1], ml_dtypes.float8_e4m3fn))),
                  ops.Lgamma(ops.Constant(c, np.array([0, -1], ml_dtypes.float8_e5m2fnuz))),
                  ops.ErfInv(ops.Constant(c, np.array([1, -1, 2], ml_dtypes.float4_e2m1fn))),
                  ops.Digamma(ops.Constant(c, np.array([0, -1, 1], ml_dtypes.float4_e2m1fn))),
                  ops.BesselI0e(ops.Constant(c, np.array([1, 2], ml_dtypes.float8_e8m0fnu))),
                  ops.Digamma(ops.Constant(c, np.array([1, 4], ml_dtypes.float8_e8m0fnu)))])
    lgamma_fn, lgamma_fnuz, erfinv_f4, digamma_f4, i0e_e8m0, digamma_e8m0 = get_backend(backend).execute(c.build(), [])
    assert np.isnan(lgamma_fn.astype(np.float64)).all() and np.isnan(lgamma_fnuz.astype(np.float64)).all()
    assert erfinv_f4.astype(np.float64).tolist()[:2] == [6, -6] and erfinv_f4.astype(np.float64)[2] == 0
    # psi(0) and psi(-1) are NaN: a zero; psi(1) = -0.5772 rounds to -0.5 (f4e2m1fn: 0, 0.5, 1, 1.5, ...)
    assert digamma_f4.astype(np.float64).tolist() == [0, 0, -0.5]
    assert i0e_e8m0.astype(np.float64).tolist() == [0.5, 0.25]  # 0.4658 and 0.3085 to the nearer power of two
    # psi(1) = -0.5772 is negative: NaN; psi(4) = 1.2561 is nearer 1 than 2
    assert np.isnan(float(digamma_e8m0[0])) and float(digamma_e8m0[1]) == 1.0
    if backend == "reference":
        table = allowed_table("Digamma", {"operand": np.array([0, -1, 1], ml_dtypes.float4_e2m1fn)}, {})
        assert table["no_nan_encoding"].mask.tolist() == [True, True, False]
