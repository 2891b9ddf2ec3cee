"""conv_general_dilated through the public API on CPU (GPU variant, interpret mode)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conv_reference import numpy_random, reference_conv
from kernel_testing import assert_close_to_reference

from pallas_kernels import conv_general_dilated, explain

NHWC = ("NHWC", "HWIO", "NHWC")

# (x shape, w shape, kwargs, expected kernel)
CASES = [
    ((2, 9, 11, 6), (3, 3, 6, 8), dict(padding="SAME"), "implicit_gemm"),
    ((1, 13, 10, 5), (3, 3, 5, 7),
     dict(window_strides=(2, 3), padding=((1, 2), (0, 1))), "implicit_gemm"),
    ((1, 11, 12, 4), (3, 3, 4, 6), dict(padding="VALID", rhs_dilation=(2, 3)),
     "implicit_gemm"),
    ((1, 12, 9, 3), (7, 7, 3, 4), dict(window_strides=(2, 2), padding=((3, 3), (3, 3))),
     "implicit_gemm"),
    ((2, 7, 9, 6), (3, 3, 3, 4),
     dict(padding="SAME", feature_group_count=2, rhs_dilation=(2, 1)), "implicit_gemm"),
    ((1, 8, 9, 6), (3, 3, 1, 6), dict(window_strides=(2, 1), padding="SAME",
                                      feature_group_count=6), "depthwise"),
    ((1, 7, 7, 4), (3, 3, 1, 12), dict(padding="SAME", feature_group_count=4),
     "depthwise"),
    ((2, 7, 9, 5), (1, 1, 5, 6), dict(padding="VALID"), "matmul"),
    ((1, 9, 8, 5), (1, 1, 5, 6), dict(window_strides=(2, 2), padding="VALID"), "matmul"),
    ((1, 5, 6, 4), (3, 3, 4, 3), dict(padding=((2, 2), (1, 2)), lhs_dilation=(2, 2)),
     "implicit_gemm"),
    ((1, 10, 9, 3), (4, 3, 3, 2), dict(window_strides=(3, 2), padding=((1, -1), (-1, 2))),
     "implicit_gemm"),
]


def _call(x, w, **kwargs):
    return jax.jit(lambda a, b: conv_general_dilated(a, b, **kwargs))(x, w)


@pytest.mark.parametrize("x_shape, w_shape, kwargs, kind", CASES)
def test_configurations_match_reference(x_shape, w_shape, kwargs, kind):
    kwargs = {"window_strides": (1, 1), "dimension_numbers": NHWC, **kwargs}
    x = numpy_random(1, x_shape, jnp.float32)
    w = numpy_random(2, w_shape, jnp.float32)
    decision = explain("conv_general_dilated", x, w, **kwargs)
    assert decision.uses_kernel and decision.plan.kind == kind
    out = _call(x, w, precision="highest", **kwargs)
    assert_close_to_reference(out, reference_conv(x, w, **kwargs), jnp.float32)


@pytest.mark.parametrize("dtype, preferred", [(jnp.bfloat16, None), (jnp.bfloat16, jnp.float32),
                                              (jnp.float16, None), (jnp.float32, None)])
def test_dtypes(dtype, preferred):
    x = numpy_random(3, (1, 8, 7, 16), dtype)
    w = numpy_random(4, (3, 3, 16, 16), dtype)
    kwargs = dict(window_strides=(1, 1), padding="SAME", dimension_numbers=NHWC)
    out = _call(x, w, preferred_element_type=preferred, **kwargs)
    expected_dtype = jnp.dtype(preferred or dtype)
    assert out.dtype == expected_dtype
    assert_close_to_reference(out, reference_conv(x, w, **kwargs), expected_dtype)


def test_default_nchw_layout_and_mixed_dimension_numbers():
    x = numpy_random(5, (2, 3, 9, 7), jnp.float32)  # NCHW
    w = numpy_random(6, (4, 3, 3, 2), jnp.float32)  # OIHW
    kwargs = dict(window_strides=(2, 1), padding="SAME")
    out = _call(x, w, precision="highest", **kwargs)
    assert_close_to_reference(out, reference_conv(x, w, **kwargs), jnp.float32)
    x2 = numpy_random(7, (9, 2, 7, 3), jnp.float32)  # H N W C
    w2 = numpy_random(8, (4, 2, 3, 3), jnp.float32)  # O W H I -> spatial order W, H
    numbers = ("HNWC", "OWHI", "CNHW")
    out2 = _call(x2, w2, window_strides=(1, 2), padding="VALID", dimension_numbers=numbers,
                 precision="highest")
    expected = reference_conv(x2, w2, (1, 2), "VALID", dimension_numbers=numbers)
    assert_close_to_reference(out2, expected, jnp.float32)


@pytest.mark.parametrize("numbers, x_shape, w_shape, groups", [
    (("NHWC", "HWIO", "NHWC"), (4, 6, 5, 3), (3, 3, 3, 4), 2),
    (("NCHW", "OIHW", "NCHW"), (6, 2, 5, 5), (6, 2, 2, 2), 3),   # filter-gradient style
    (("NHWC", "HWIO", "NHWC"), (4, 5, 5, 1), (3, 3, 1, 2), 2),   # one channel per group: the depthwise kernel
])
def test_batch_group_count(numbers, x_shape, w_shape, groups):
    x, w = numpy_random(11, x_shape, jnp.float32), numpy_random(12, w_shape, jnp.float32)
    assert explain("conv_general_dilated", x, w, (1, 1), ((1, 0), (0, 1)), dimension_numbers=numbers,
                   batch_group_count=groups).uses_kernel
    out = conv_general_dilated(x, w, (1, 1), ((1, 0), (0, 1)), dimension_numbers=numbers,
                               batch_group_count=groups, precision="highest")
    expected = reference_conv(x, w, (1, 1), ((1, 0), (0, 1)), dimension_numbers=numbers,
                              batch_group_count=groups)
    assert_close_to_reference(out, expected, jnp.float32)


def test_one_d_convolution():
    x = numpy_random(9, (2, 17, 5), jnp.float32)
    w = numpy_random(10, (4, 5, 6), jnp.float32)
    kwargs = dict(window_strides=(2,), padding=((2, 1),), rhs_dilation=(2,),
                  dimension_numbers=("NWC", "WIO", "NWC"))
    assert explain("conv_general_dilated", x, w, **kwargs).uses_kernel
    out = _call(x, w, precision="highest", **kwargs)
    assert_close_to_reference(out, reference_conv(x, w, **kwargs), jnp.float32)


def test_random_configurations():
    rng = np.random.default_rng(0)
    for trial in range(8):
        groups = int(rng.choice([1, 2]))
        cin, cout = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 4))
        kh, kw = (int(v) for v in rng.integers(1, 5, size=2))
        stride = tuple(int(v) for v in rng.integers(1, 3, size=2))
        dilation = tuple(int(v) for v in rng.integers(1, 3, size=2))
        pads = tuple(tuple(int(v) for v in rng.integers(0, 3, size=2)) for _ in range(2))
        h, w_ = (int(v) for v in rng.integers(kh * dilation[0], 12, size=1).tolist() +
                 rng.integers(kw * dilation[1], 12, size=1).tolist())
        x = numpy_random(20 + trial, (1, h, w_, cin), jnp.float32)
        w = numpy_random(30 + trial, (kh, kw, cin // groups, cout), jnp.float32)
        kwargs = dict(window_strides=stride, padding=pads, rhs_dilation=dilation,
                      dimension_numbers=NHWC, feature_group_count=groups)
        assert explain("conv_general_dilated", x, w, **kwargs).uses_kernel, kwargs
        out = _call(x, w, precision="highest", **kwargs)
        assert_close_to_reference(out, reference_conv(x, w, **kwargs), jnp.float32)


def test_works_under_vmap_and_grad():
    kwargs = dict(window_strides=(1, 1), padding="SAME", dimension_numbers=NHWC)
    x = numpy_random(11, (3, 1, 5, 6, 2), jnp.float32)
    w = numpy_random(12, (3, 3, 2, 3), jnp.float32)
    out = jax.jit(jax.vmap(lambda a: conv_general_dilated(a, w, precision="highest",
                                                          **kwargs)))(x)
    expected = np.stack([reference_conv(x[i], w, **kwargs) for i in range(3)])
    assert_close_to_reference(out, expected, jnp.float32)
    grad = jax.grad(lambda b: conv_general_dilated(x[0], b, **kwargs).sum())(w)
    # d(sum)/dw[kh, kw, c, o] = sum of the input pixels that tap (kh, kw) reads.
    padded = np.pad(np.asarray(x[0], np.float64), [(0, 0), (1, 1), (1, 1), (0, 0)])
    expected_grad = np.stack([np.stack([
        padded[0, i:i + 5, j:j + 6].sum((0, 1)) for j in range(3)]) for i in range(3)])
    assert_close_to_reference(grad, np.repeat(expected_grad[..., None], 3, -1), jnp.float32)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(24))
def test_random_sweep(seed):
    rng = np.random.default_rng(100 + seed)
    groups = int(rng.choice([1, 1, 2, 3]))
    depthwise = rng.random() < 0.25
    cin = groups * (1 if depthwise else int(rng.integers(1, 6)))
    cout = groups * int(rng.integers(1, 5))
    window = [int(v) for v in rng.integers(1, 6, size=2)]
    stride = tuple(int(v) for v in rng.integers(1, 4, size=2))
    rhs_dil = tuple(int(v) for v in rng.integers(1, 3, size=2))
    lhs_dil = tuple(int(v) for v in rng.integers(1, 3, size=2))
    pads = tuple(tuple(int(v) for v in rng.integers(-1, 4, size=2)) for _ in range(2))
    shape = [int(v) for v in rng.integers(6, 16, size=2)]
    dtype = [jnp.float32, jnp.bfloat16, jnp.float16][seed % 3]
    x = numpy_random(seed, (2, *shape, cin), dtype)
    w = numpy_random(seed + 1, (*window, cin // groups, cout), dtype)
    kwargs = dict(window_strides=stride, padding=pads, lhs_dilation=lhs_dil,
                  rhs_dilation=rhs_dil, dimension_numbers=NHWC, feature_group_count=groups)
    if not explain("conv_general_dilated", x, w, **kwargs).uses_kernel:
        pytest.skip("configuration has an empty output")
    out = _call(x, w, precision="highest", **kwargs)
    assert_close_to_reference(out, reference_conv(x, w, **kwargs), dtype)
