"""Reference evaluators of XLA's math-library special functions (ErfInv, Lgamma, ..., Zeta).

Each function is evaluated in float64 with ``scipy.special`` (and ``scipy.integrate.quad`` for
the derivatives of the incomplete gamma function, which SciPy lacks) and rounded once to the
result type. At special values the evaluators follow XLA's observed results; where those differ
from the mathematical limit, the spec declares the element implementation-defined and the masks
below mark it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special as sc
from scipy import integrate

from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import (
    Allowed,
    flush_subnormals,
    nan_in_a_part,
    negative_zero,
    no_nan_encoding,
    subnormal_outcomes,
)
from backend.reference.elementwise import in_wide_precision

Array = np.ndarray


def _keep_zero_sign(fn: Callable[[Array], Array]) -> Callable[[Array], Array]:
    """An odd function that returns a zero operand itself (so erf_inv(-0) = -0)."""
    def odd(x: Array) -> Array:
        return np.where(x == 0, x, fn(x))
    return odd


def _lgamma(x: Array) -> Array:
    """ln|Gamma(x)|; +inf at -inf (XLA's choice, where SciPy returns -inf)."""
    return np.where(x == -np.inf, np.inf, sc.gammaln(x))


def _digamma(x: Array) -> Array:
    """psi(x); NaN at the poles 0, -1, -2, ... (XLA's choice at +-0 too) and at -inf."""
    return np.where(x == 0, np.nan, sc.psi(x))


def _igamma(a: Array, x: Array) -> Array:
    """P(a, x); at a = +inf the limit 0 for finite x, and XLA's 1 at x = +inf (no limit there)."""
    at_inf_a = np.where(x == np.inf, 1.0, 0.0)
    return np.where(a == np.inf, np.where(np.isnan(x) | (x < 0), np.nan, at_inf_a), sc.gammainc(a, x))


def _igammac(a: Array, x: Array) -> Array:
    """Q(a, x) = 1 - P(a, x); at a = +inf the limit 1 for finite x, and XLA's 0 at x = +inf."""
    at_inf_a = np.where(x == np.inf, 0.0, 1.0)
    return np.where(a == np.inf, np.where(np.isnan(x) | (x < 0), np.nan, at_inf_a), sc.gammaincc(a, x))


def _quad(fn: Callable[[float], float], lo: float, hi: float, **kw: Any) -> float:
    """The integral to about 1e-14 relative (QUADPACK warns where rounding caps it: no harm here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return float(integrate.quad(fn, lo, hi, epsabs=0.0, epsrel=2e-14, limit=200, **kw)[0])


def _gamma_sample_derivative(a: float, x: float) -> float:
    """d x / d a at fixed P(a, x): -(dP/da) / (dP/dx), for finite a > 0, x > 0.

    With t = x s below the mode-ish point (x <= a + 1):
      x * int_0^1 s^(a-1) e^(x (1-s)) (psi(a) - ln(x s)) ds,
    for a >= 2 with s = e^(-w / (a-1)) (the weight s^(a-1) becomes e^-w, whatever the size of a):
      x / (a-1) * int_0^inf e^(-w + x (1 - s) - w / (a-1)) (psi(a) - ln x + w / (a-1)) dw;
    above it, with t = x + u (the upper incomplete gamma side):
      int_0^inf (1 + u/x)^(a-1) e^(-u) (ln(x + u) - psi(a)) du.
    The second form holds for every x > 0; the first is more accurate below the mode. Both keep
    their exponentials in one piece, which stays below 1 away from the mode (no overflow for large
    a and x), and lose no digits to cancellation (the integrands keep one sign over most of the range).
    """
    psi = float(sc.psi(a))
    if x <= a + 1 and a >= 2:  # s = e^(-w / (a-1)): s^(a-1) = e^-w, so the spike of width 1/a at s = 1 spreads out
        def spread(w: float) -> float:
            v = w / (a - 1)
            return math.exp(-w - x * math.expm1(-v) - v) * (psi - math.log(x) + v)
        return x / (a - 1) * _quad(spread, 0.0, math.inf)
    if x <= a + 1 and a > 1e-6:  # (a tiny: s^(a-1) is too close to 1/s for the weighted rule; the tail form holds)
        def growth(s: float) -> float:  # x <= a + 1 < 3 here: no overflow
            return float(np.exp(x * (1 - s)))
        plain = _quad(growth, 0.0, 1.0, weight="alg", wvar=(a - 1, 0))
        log_weighted = _quad(growth, 0.0, 1.0, weight="alg-loga", wvar=(a - 1, 0))
        return x * ((psi - math.log(x)) * plain - log_weighted)

    def tail(u: float) -> float:
        return float(np.exp((a - 1) * math.log1p(u / x) - u)) * (math.log(x + u) - psi)
    return _quad(tail, 0.0, math.inf)


def _log1pmx(t: float) -> float:
    """log(1 + t) - t for |t| < 1/4, without the cancellation near t = 0 (the series)."""
    total, power, k = 0.0, t * t, 2
    while abs(power) > 1e-18 * abs(total) or k == 2:
        total += (-1) ** (k + 1) * power / k
        power *= t
        k += 1
    return total


#: Stirling's series of ln Gamma(a) - ((a - 1/2) ln a - a + ln(2 pi) / 2): coefficients of a^-1, a^-3, ...
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360)


def _log_gamma_density(a: float, x: float) -> float:
    """ln(x^(a-1) e^(-x) / Gamma(a)) for a > 0, x > 0. For a >= 10 by Stirling's series around x = a,
    a log1pmx((x - a) / a) + ln(a) / 2 - ln x - ln(2 pi) / 2 - sum c_k a^-(2k-1): the direct
    (a - 1) ln x - x - ln Gamma(a) subtracts terms of size a ln a and keeps only ~eps a ln a of the result."""
    if a < 10:
        return (a - 1) * math.log(x) - x - float(sc.gammaln(a))
    correction = sum(c * a ** -(2 * k + 1) for k, c in enumerate(_STIRLING))
    t, ratio = (x - a) / a, x / a
    if abs(t) < 0.25:
        core = a * _log1pmx(t)
    elif t > -1:  # this far from x = a, log1p(t) - t loses few digits
        core = a * (math.log1p(t) - t)
    elif ratio > 0:  # t rounds to -1 (x tiny beside a)
        core = a * math.log(ratio) - (x - a)
    else:  # x / a underflows: the density does too
        return -math.inf
    return core + 0.5 * math.log(a) - math.log(x) - 0.5 * math.log(2 * math.pi) - correction


def _small_x_bracket(a: float, x: float) -> float:
    """dP/da / (x^a / Gamma(a + 1)) for 0 < x <= 1, from the series gamma(a, x) = x^a sum_k (-x)^k / (k! (a + k)):
    (ln x - psi(a + 1)) + (a (ln x - psi(a + 1)) + 1) S1 - a S2 with S1 = sum_{k>=1} (-x)^k / (k! (a + k)) and
    S2 = sum_{k>=1} (-x)^k / (k! (a + k)^2). The k = 0 terms (1/a and 1/a^2) are taken out by psi(a) + 1/a =
    psi(a + 1), so a tiny a (1e-38) loses nothing to cancellation, where the quadratures see a scale of x."""
    s1 = s2 = 0.0
    term, k = 1.0, 1
    while True:
        term *= -x / k
        s1, s2 = s1 + term / (a + k), s2 + term / (a + k) ** 2
        if abs(term) < 1e-18 * max(abs(s1), 1e-300) or k > 200:
            break
        k += 1
    lead = math.log(x) - float(sc.psi(a + 1))
    return lead + (a * lead + 1) * s1 - a * s2


def _dp_da_and_dx_da(a: float, x: float) -> tuple[float, float]:
    """(dP/da, dx/da at fixed P) for finite a > 0, x > 0: the series for x <= 1, else the quadrature with
    dP/da = -(dx/da) dP/dx."""
    if x <= 1:
        bracket = _small_x_bracket(a, x)
        return math.exp(a * math.log(x) - float(sc.gammaln(a + 1))) * bracket, -x * math.exp(x) / a * bracket
    dx_da = _gamma_sample_derivative(a, x)
    return -dx_da * math.exp(_log_gamma_density(a, x)), dx_da


def _gamma_derivative(a: Array, x: Array, which: int) -> Array:
    """Element by element, dP/da (``which`` 0) or dx/da (1); 0 at x = 0, NaN outside a > 0, x >= 0 finite."""
    a, x = np.broadcast_arrays(a, x)
    out = np.full(a.shape, np.nan)
    inside = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    with np.errstate(all="ignore"):
        for index in np.ndindex(a.shape):
            if inside[index]:
                out[index] = _dp_da_and_dx_da(float(a[index]), float(x[index]))[which]
    return np.where((x == 0) & (a > 0), 0.0, out)


def _random_gamma_grad(a: Array, x: Array) -> Array:
    return _gamma_derivative(a, x, 1)


def _igamma_grad_a(a: Array, x: Array) -> Array:
    return _gamma_derivative(a, x, 0)


def _zeta(x: Array, q: Array) -> Array:
    """Hurwitz zeta sum_k (q + k)^-x for x > 1, with XLA's choices outside that domain.

    x = 1: +inf (whatever q, NaN included). x < 1, x = +inf, q = +inf: NaN. q a non-positive integer (a pole of a term):
    +inf where x is an even integer (the terms' limit), NaN otherwise — for x < 1 too.
    q < 0 not an integer: the sum where x is an integer, NaN otherwise.
    """
    out = np.where((x < 1) | (x == np.inf) | (q == np.inf), np.nan, sc.zeta(x, q))
    out = np.where((q < 0) & (q != np.floor(q)) & (x != np.floor(x)), np.nan, out)
    even = np.isfinite(x) & (np.mod(x, 2) == 0)
    at_pole = (q <= 0) & (q == np.floor(q))
    out = np.where(np.isnan(x) | np.isnan(q), np.nan, np.where(at_pole, np.where(even, np.inf, np.nan), out))
    return np.where(x == 1, np.inf, out)


_FUNCTIONS: dict[str, Callable[..., Array]] = {
    "ErfInv": _keep_zero_sign(sc.erfinv),
    "Lgamma": _lgamma,
    "Digamma": _digamma,
    "BesselI0e": sc.i0e,
    "BesselI1e": _keep_zero_sign(sc.i1e),
    "Igamma": _igamma,
    "Igammac": _igammac,
    "IgammaGradA": _igamma_grad_a,
    "RandomGammaGrad": _random_gamma_grad,
    "Zeta": _zeta,
    "RegularizedIncompleteBeta": sc.betainc,
}


def _wide_evaluator(fn: Callable[..., Array]) -> Callable[..., Array]:
    def ev(ctx: EvaluatorContext, *operands: Array) -> Array:
        return in_wide_precision(fn, ctx, *operands)
    return ev


for _name, _fn in _FUNCTIONS.items():
    evaluator(_name)(_wide_evaluator(_fn))


# -- implementation-defined elements ------------------------------------------------------------
Outcomes = dict[str, Allowed]


def _wide(x: Array) -> Array:
    return x.astype(np.float64)


def _filled(result: Array, value: float) -> Array:
    return np.full(result.shape, value).astype(result.dtype)


def _lgamma_outcomes(result: Array, x: Array) -> Outcomes:
    return {"negative_infinity": Allowed(_wide(x) == -np.inf, {"nan": nan_in_a_part})}


def _digamma_outcomes(result: Array, x: Array) -> Outcomes:
    """At a zero, and at a subnormal operand read as the zero of its sign (subnormal_flush): the pole's outcomes."""
    reads_as_zero = _wide(flush_subnormals(x)) == 0  # subnormal in the operand's own type
    x = _wide(x)
    limit = (-np.copysign(np.inf, x)).astype(result.dtype)
    outcomes = {"one_sided_limit": limit, "minus_infinity": _filled(result, -np.inf)}
    return {"pole_at_zero": Allowed(reads_as_zero, outcomes)}


def _igamma_outcomes(result: Array, a: Array, x: Array) -> Outcomes:
    a, x = _wide(a), _wide(x)
    nan = _filled(result, np.nan)
    nan_from_one = np.where((x >= 1) & (x < np.inf), np.nan, result).astype(result.dtype)
    return {"a_zero": Allowed((a == 0) & (x > 0), {"nan_below_one": np.where(x < 1, nan, _filled(result, 1)),
                                                   "nan": nan}),
            "infinite_a": Allowed((a == np.inf) & (x >= 0), {"nan_from_one": nan_from_one, "nan": nan})}


def _igammac_outcomes(result: Array, a: Array, x: Array) -> Outcomes:
    a, x = _wide(a), _wide(x)
    nan_from_one = np.where((x >= 1) & (x < np.inf), np.nan, result).astype(result.dtype)
    return {"infinite_a": Allowed((a == np.inf) & (x >= 0), {"nan_from_one": nan_from_one,
                                                            "nan": _filled(result, np.nan)})}


def _infinite_argument(a: Array, x: Array) -> Array:
    a, x = _wide(a), _wide(x)
    return ((a == np.inf) & (x > 0)) | ((x == np.inf) & (a > 0))


def _igamma_grad_a_outcomes(result: Array, a: Array, x: Array) -> Outcomes:
    return {"infinite_argument": Allowed(_infinite_argument(a, x), {"zero": _filled(result, 0)})}


def _random_gamma_grad_outcomes(result: Array, a: Array, x: Array) -> Outcomes:
    return {"infinite_argument": Allowed(_infinite_argument(a, x), {"pos_inf": _filled(result, np.inf)})}


def _zeta_outcomes(result: Array, x: Array, q: Array) -> Outcomes:
    x, q = _wide(x), _wide(q)
    limit = np.where(q == 1, 1.0, np.where(q < 1, np.inf, 0.0)).astype(result.dtype)
    return {"outside_series_domain": Allowed(x < 1, {"nan": _filled(result, np.nan)}),
            "infinite_argument": Allowed(((x == np.inf) & (q > 0)) | ((q == np.inf) & (x > 1)), {"limit": limit})}


def _bessel_i1e_outcomes(result: Array, x: Array) -> Outcomes:
    return {"constant_folded_zero_sign": Allowed(negative_zero(x), {"positive_zero": _filled(result, 0)})}


_OUTCOMES: dict[str, Callable[..., Outcomes]] = {
    "BesselI1e": _bessel_i1e_outcomes,
    "Lgamma": _lgamma_outcomes,
    "Digamma": _digamma_outcomes,
    "Igamma": _igamma_outcomes,
    "Igammac": _igammac_outcomes,
    "IgammaGradA": _igamma_grad_a_outcomes,
    "RandomGammaGrad": _random_gamma_grad_outcomes,
    "Zeta": _zeta_outcomes,
}


#: ops whose f4e2m1fn operands reach a NaN result (outside the domain), which f4e2m1fn cannot hold
_NO_NAN_ENCODING = ("Digamma", "ErfInv", "Igamma", "Igammac", "IgammaGradA", "RandomGammaGrad", "Zeta")


def _outcomes(name: str, fn: Callable[..., Array]) -> Callable[..., Outcomes]:
    """Subnormal operands or exact results (XLA on CPU flushes them), NaN results in f4e2m1fn, and the op's own ids."""
    ev = _wide_evaluator(fn)

    def outcomes(ctx: EvaluatorContext, *operands: Array) -> Outcomes:
        out = {"subnormal_flush": subnormal_outcomes(ev, ctx, *operands)}
        if name in _NO_NAN_ENCODING:
            out["no_nan_encoding"] = no_nan_encoding(fn, *operands)
        if name in _OUTCOMES:
            with np.errstate(all="ignore"):
                out.update(_OUTCOMES[name](ev(ctx, *operands), *operands))
        return out
    return outcomes


for _name, _fn in _FUNCTIONS.items():
    implementation_defined(_name)(_outcomes(_name, _fn))
