"""Fft: every transform type over 1, 2 and 3 trailing dimensions against a direct O(N^2) DFT written
here (independent of numpy.fft, which the reference uses), the fft_length rules, FftType forms, and
the length-scaled tolerance."""

import enum
import math

import numpy as np
import pytest

import specs
from backend import PrimitiveType, Shape, XlaBuilder, ops
from backend.errors import OpError, SpecError
from backend.hlo import etypes
from backend.hlo.attribute_types import FftType
from conformance.tolerance import mismatch_mask
from tests.support.running import run_op


def _dft_axis(x: np.ndarray, axis: int, inverse: bool) -> np.ndarray:
    """sum_n x[n] exp(-+2 pi i k n / N) along ``axis`` (divided by N for the inverse), by the definition."""
    n = x.shape[axis]
    k = np.arange(n)
    sign = 1.0 if inverse else -1.0
    matrix = np.exp(sign * 2j * np.pi * (np.outer(k, k) % n) / n)  # kn mod n: small, exact arguments
    out = np.moveaxis(np.tensordot(matrix, np.moveaxis(x.astype(np.complex128), axis, 0), axes=(1, 0)), 0, axis)
    return out / n if inverse else out


def _direct(x: np.ndarray, fft_type: str, lengths: tuple[int, ...]) -> np.ndarray:
    axes = range(x.ndim - len(lengths), x.ndim)
    if fft_type in ("FFT", "RFFT"):
        out = x.astype(np.complex128)
        for a in axes:
            out = _dft_axis(out, a, inverse=False)
        return out[..., :lengths[-1] // 2 + 1] if fft_type == "RFFT" else out
    if fft_type == "IFFT":
        out = x.astype(np.complex128)
        for a in axes:
            out = _dft_axis(out, a, inverse=True)
        return out
    # IRFFT: the other axes complex to complex, then the half spectrum as a Hermitian one (bins above
    # Nyquist the conjugates of the lower ones; only the real parts of bin 0 and of an even n's Nyquist bin)
    out = x.astype(np.complex128)
    for a in list(axes)[:-1]:
        out = _dft_axis(out, a, inverse=True)
    n = lengths[-1]
    full = np.zeros(out.shape[:-1] + (n,), np.complex128)
    full[..., :out.shape[-1]] = out
    for k in range(1, n - n // 2):
        full[..., n - k] = np.conj(out[..., k])
    full[..., 0] = full[..., 0].real
    if n % 2 == 0:
        full[..., n // 2] = full[..., n // 2].real
    return _dft_axis(full, x.ndim - 1, inverse=True).real


def _fft(backend: str, x: np.ndarray, fft_type, lengths) -> np.ndarray:
    return run_op(backend, lambda p: ops.Fft(p, fft_type, lengths), x)


CONFIGS = [  # fft_type, operand dims, fft_length
    ("FFT", (8,), (8,)), ("FFT", (3, 5), (5,)), ("FFT", (4, 6), (4, 6)), ("FFT", (2, 3, 4, 5), (3, 4, 5)),
    ("IFFT", (16,), (16,)), ("IFFT", (2, 4, 4), (4, 4)), ("IFFT", (2, 3, 4), (2, 3, 4)),
    ("RFFT", (8,), (8,)), ("RFFT", (3, 7), (7,)), ("RFFT", (4, 6), (4, 6)), ("RFFT", (2, 4, 4, 5), (4, 4, 5)),
    ("IRFFT", (5,), (8,)), ("IRFFT", (3, 4), (7,)), ("IRFFT", (4, 3), (4, 4)), ("IRFFT", (2, 3, 3), (2, 3, 5)),
    ("FFT", (64,), (64,)),
]


@pytest.mark.parametrize("backend", ["reference", "jax"])
@pytest.mark.parametrize("wide", [False, True], ids=["single", "double"])
@pytest.mark.parametrize("fft_type,dims,lengths", CONFIGS)
def test_against_direct_dft(backend, wide, fft_type, dims, lengths):
    rng = np.random.default_rng(len(dims) * 100 + sum(lengths))
    x = rng.uniform(-4, 4, dims)
    if fft_type != "RFFT":
        x = x + 1j * rng.uniform(-4, 4, dims)
        x = x.astype(np.complex128 if wide else np.complex64)
    else:
        x = x.astype(np.float64 if wide else np.float32)
    got = _fft(backend, x, fft_type, lengths)
    want = _direct(x, fft_type, lengths)
    assert got.shape == want.shape
    real_result = fft_type == "IRFFT"
    assert got.dtype == {(False, False): np.complex64, (False, True): np.complex128, (True, False): np.float32,
                         (True, True): np.float64}[(real_result, wide)]
    spec = specs.get("Fft")
    bound = spec.tolerance.for_type(etypes.dtype_to_etype(got.dtype), {"fft_length": lengths})
    assert not mismatch_mask(got, want.astype(got.dtype), bound).any()
    # the measured error is inside the stated bound eps * log2(N) * ||x||_2 (times the spectrum's sqrt(N))
    eps = np.finfo(got.real.dtype).eps
    n = math.prod(lengths)
    err = np.max(np.abs(got.astype(np.complex128) - want))
    scale = np.sqrt(n) if fft_type in ("FFT", "RFFT") else 2 / np.sqrt(n)  # IRFFT: twice the half spectrum's norm
    norm = np.linalg.norm(x.reshape(-1, math.prod(dims[len(dims) - len(lengths):])), axis=1).max()
    assert err <= eps * max(1, math.log2(n)) * norm * scale


def test_golden_dfts_by_hand():
    impulse = np.array([1, 0, 0, 0], np.complex64)
    np.testing.assert_allclose(_fft("jax", impulse, "FFT", [4]), [1, 1, 1, 1], atol=1e-6)
    np.testing.assert_allclose(_fft("jax", np.ones(4, np.complex64), "FFT", [4]), [4, 0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(_fft("jax", np.array([0, 1, 0, -1], np.complex64), "FFT", [4]),
                               [0, -2j, 0, 2j], atol=1e-6)
    np.testing.assert_allclose(_fft("reference", np.array([[1, 2], [3, 4]], np.complex64), "FFT", [2, 2]),
                               [[10, -2], [-4, 0]], atol=1e-6)
    np.testing.assert_allclose(_fft("jax", np.array([1, 2, 3, 4], np.float32), "RFFT", [4]), [10, -2 + 2j, -2],
                               atol=1e-6)


@pytest.mark.parametrize("form", [FftType.RFFT, "RFFT", "rfft", 2, np.int64(2)])
def test_fft_type_forms(form):
    b = XlaBuilder("fft")
    p = ops.Parameter(b, 0, Shape.array_shape(np.float32, (16,)), "x")
    assert ops.Fft(p, form, [16]).shape() == Shape.array_shape(np.complex64, (9,))


def test_fft_type_of_another_enum_by_name():
    class XlaClientFftType(enum.IntEnum):  # xla_client's own enum: same names
        FFT = 0
        IFFT = 1
        RFFT = 2
        IRFFT = 3

    b = XlaBuilder("fft")
    p = ops.Parameter(b, 0, Shape.array_shape(np.complex64, (9,)), "x")
    assert ops.Fft(p, XlaClientFftType.IRFFT, [16]).shape() == Shape.array_shape(np.float32, (16,))


@pytest.mark.parametrize("bad", ["DCT", 4, -1, True, None, 2.0, [0]])
def test_bad_fft_type_is_op_error(bad):
    b = XlaBuilder("fft")
    p = ops.Parameter(b, 0, Shape.array_shape(np.complex64, (4,)), "x")
    with pytest.raises(OpError) as e:
        ops.Fft(p, bad, [4])
    assert e.value.constraint == "C2" and e.value.arg == "fft_type"


@pytest.mark.parametrize("n,bins", [(16, 9), (17, 9), (1, 1), (0, 0)])
def test_fft_length_tells_irfft_lengths_apart(n, bins):
    b = XlaBuilder("fft")
    p = ops.Parameter(b, 0, Shape.array_shape(np.complex128, (2, bins)), "x")
    assert ops.Fft(p, FftType.IRFFT, [n]).shape() == Shape.array_shape(np.float64, (2, n))
    q = ops.Parameter(b, 1, Shape.array_shape(np.float64, (2, n)), "y")
    assert ops.Fft(q, FftType.RFFT, [n]).shape() == Shape.array_shape(np.complex128, (2, bins))


@pytest.mark.parametrize("dims,fft_type,lengths,constraint", [
    ((4,), "FFT", [], "C3"), ((1, 1, 1, 1), "FFT", [1, 1, 1, 1], "C3"), ((4,), "FFT", [-4], "C3"),
    ((4,), "FFT", "4", "C3"), ((4,), "FFT", [1, 4], "C4"), ((4,), "RFFT", [4], "C5"), ((2, 4), "FFT", [2, 2], "C6"),
    ((4,), "IRFFT", [4], "C6"), ((3,), "IRFFT", [7], "C6"),
])
def test_fft_length_errors(dims, fft_type, lengths, constraint):
    b = XlaBuilder("fft")
    p = ops.Parameter(b, 0, Shape.array_shape(np.complex64, dims), "x")
    with pytest.raises(OpError) as e:
        ops.Fft(p, fft_type, lengths)
    assert e.value.constraint == constraint


def test_tolerance_scales_with_log2_of_the_transform_length():
    tolerance = specs.get("Fft").tolerance
    bound = tolerance.for_type(PrimitiveType.C64, {"fft_length": (8, 8)})
    unit = tolerance.for_type(PrimitiveType.C64, {"fft_length": (2,)})
    assert bound.atol == pytest.approx(6 * unit.atol) and bound.rtol == pytest.approx(6 * unit.rtol)


def test_loader_checks_log2_scale_names_an_int_list_attribute(tmp_path):
    text = (specs.get("Fft").path.read_text()).replace("log2_scale: fft_length}", "log2_scale: fft_type}", 1)
    path = tmp_path / "fft.yaml"
    path.write_text(text)
    with pytest.raises(SpecError, match="log2_scale"):
        specs.load_file(path)
