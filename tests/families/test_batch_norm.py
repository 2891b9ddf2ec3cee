"""BatchNormTraining, BatchNormInference and BatchNormGrad against the seed's formulas written here
literally (loops over i, j, k for a 4-D operand), the gradient against finite differences of the
training normalization, and the constraint ids."""

import itertools

import numpy as np
import pytest

from backend import Shape, XlaBuilder, ops
from backend.errors import OpError
from tests.support.running import run_built, run_op

BACKENDS = ["reference", "jax"]


def _training(backend, x, scale, offset, eps, fi):
    return run_built(backend, lambda *p: ops.BatchNormTraining(*p, eps, fi), x, scale, offset)


def _inference(backend, x, scale, offset, mean, var, eps, fi):
    return run_op(backend, "BatchNormInference", x, scale, offset, mean, var, epsilon=eps, feature_index=fi)


def _grad(backend, x, scale, mean, var, dy, eps, fi):
    return run_built(backend, lambda *p: ops.BatchNormGrad(*p, eps, fi), x, scale, mean, var, dy)


def _seed_training(x, gamma, beta, eps):
    """The seed's algorithm for a 4-D operand with the feature dimension last (index l), by loops."""
    m, w, h, features = x.shape
    y = np.zeros_like(x, dtype=np.float64)
    mu, var = np.zeros(features), np.zeros(features)
    for l in range(features):
        mu[l] = sum(x[i, j, k, l] for i, j, k in itertools.product(range(m), range(w), range(h))) / (m * w * h)
        var[l] = sum((x[i, j, k, l] - mu[l]) ** 2 for i, j, k in itertools.product(range(m), range(w), range(h))) \
            / (m * w * h)
        for i, j, k in itertools.product(range(m), range(w), range(h)):
            y[i, j, k, l] = gamma[l] * (x[i, j, k, l] - mu[l]) / (var[l] + eps) ** 0.5 + beta[l]
    return y, mu, var


def _seed_grad(x, gamma, mu, var, dy, eps):
    m, w, h, features = x.shape
    count = m * w * h
    gx, gg, gb = np.zeros(x.shape), np.zeros(features), np.zeros(features)
    for l in range(features):
        idx = list(itertools.product(range(m), range(w), range(h)))
        c = sum(dy[i, j, k, l] * (x[i, j, k, l] - mu[l]) / (var[l] + eps) for i, j, k in idx) / count
        d = sum(dy[i, j, k, l] for i, j, k in idx) / count
        for i, j, k in idx:
            gx[i, j, k, l] = gamma[l] / (var[l] + eps) ** 0.5 * (dy[i, j, k, l] - d - c * (x[i, j, k, l] - mu[l]))
        gg[l] = sum(dy[i, j, k, l] * (x[i, j, k, l] - mu[l]) / (var[l] + eps) ** 0.5 for i, j, k in idx)
        gb[l] = sum(dy[i, j, k, l] for i, j, k in idx)
    return gx, gg, gb


def _random(seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4, 4, (3, 2, 2, 3)).astype(dtype)
    return x, rng.uniform(-2, 2, 3).astype(dtype), rng.uniform(-2, 2, 3).astype(dtype), rng


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fi", [3, 0, 1])
def test_training_matches_the_seed_formulas(backend, fi):
    x, gamma, beta, _ = _random(fi)
    x = np.moveaxis(x, 3, fi).copy()  # the feature dimension at fi
    y, mean, var = _training(backend, x, gamma, beta, 0.001, fi)
    want_y, want_mu, want_var = _seed_training(np.moveaxis(x, fi, 3), gamma, beta, 0.001)
    np.testing.assert_allclose(np.moveaxis(y, fi, 3), want_y, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mean, want_mu, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(var, want_var, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_training_f32_by_hand(backend):
    x = np.array([[1, 2], [3, 6]], np.float32)
    y, mean, var = _training(backend, x, np.array([2, 3], np.float32), np.array([10, 20], np.float32), 0.0, 1)
    np.testing.assert_allclose(y, [[8, 17], [12, 23]], rtol=1e-6)
    np.testing.assert_array_equal(mean, [2, 4])
    np.testing.assert_array_equal(var, [1, 4])
    assert y.dtype == mean.dtype == var.dtype == np.float32


@pytest.mark.parametrize("backend", BACKENDS)
def test_training_f32_whose_squares_leave_the_type(backend):
    """Feature [2e38, -2e38, 2e38, -2e38]: mean 0, variance 4e76 (inf in f32), y = 3 * x / 2e38 + 1 = [4, -2, 4, -2]
    (epsilon 1 is nothing beside the variance). jax's lowering squared 2e38 in f32 and gave NaN (found by the fuzzer);
    the other feature [1, 2, 3, 6] is mean 3, variance 3.5, (x - 3) / sqrt(4.5) + 0."""
    x = np.array([[2e38, 1], [-2e38, 2], [2e38, 3], [-2e38, 6]], np.float32)
    y, mean, var = _training(backend, x, np.array([3, 1], np.float32), np.array([1, 0], np.float32), 1.0, 1)
    np.testing.assert_allclose(y[:, 0], [4, -2, 4, -2], rtol=1e-6)
    np.testing.assert_allclose(y[:, 1], (np.array([1, 2, 3, 6]) - 3) / np.sqrt(4.5), rtol=1e-6)
    np.testing.assert_allclose(mean, [0, 3], rtol=1e-6, atol=1e-30)
    assert var[0] == np.inf and abs(var[1] - 3.5) < 1e-5


@pytest.mark.parametrize("backend", BACKENDS)
def test_training_f64_near_the_largest_value(backend):
    """Feature [-M, 0, 0, 0], M = 1.8e308: mean -M/4, deviations (-3/4, 1/4, 1/4, 1/4) M, variance 3/16 M^2 (inf in
    f64), normalized -sqrt(3), 1/sqrt(3) (three times); y = 2 * that + 1. The reference squared in f64 and gave y = 1
    (the offset) everywhere (found by the fuzzer)."""
    big = np.finfo(np.float64).max
    y, mean, var = _training(backend, np.array([[-big], [0], [0], [0]]), np.array([2.0]), np.array([1.0]), 1e-5, 1)
    np.testing.assert_allclose(y[:, 0], [1 - 2 * np.sqrt(3), 1 + 2 / np.sqrt(3), 1 + 2 / np.sqrt(3),
                                         1 + 2 / np.sqrt(3)], rtol=1e-12)
    np.testing.assert_allclose(mean, [-big / 4], rtol=1e-15)
    assert var[0] == np.inf


@pytest.mark.parametrize("backend", BACKENDS)
def test_inference_with_training_moments_is_training(backend):
    x, gamma, beta, _ = _random(7)
    y, mean, var = _training(backend, x, gamma, beta, 0.5, 3)
    np.testing.assert_allclose(_inference(backend, x, gamma, beta, mean, var, 0.5, 3), y, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_inference_by_hand(backend):
    x = np.array([[1, 2], [3, 4]], np.float32)
    f = np.array
    y = _inference(backend, x, f([1, 2], np.float32), f([0, 1], np.float32), f([1, 2], np.float32),
                   f([3, 15], np.float32), 1.0, 1)
    np.testing.assert_allclose(y, [[0, 1], [1, 2]], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_matches_the_seed_formulas(backend):
    x, gamma, _, rng = _random(3)
    mu, var = rng.uniform(-1, 1, 3), rng.uniform(0.5, 2, 3)
    dy = rng.uniform(-4, 4, x.shape)
    got = _grad(backend, x, gamma, mu, var, dy, 0.01, 3)
    for g, w in zip(got, _seed_grad(x, gamma, mu, var, dy, 0.01)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_is_the_gradient_of_training(backend):
    """With the batch moments of x, grad_operand, grad_scale and grad_offset are the derivatives of
    sum(dy * y) for y = BatchNormTraining's output (central finite differences, float64)."""
    x, gamma, beta, rng = _random(11)
    x = x[:2, :, :1]  # 2x2x1x3: 12 elements
    dy = rng.uniform(-1, 1, x.shape)
    eps, h = 0.1, 1e-6

    def loss(x_, gamma_, beta_):
        return float(np.sum(dy * _seed_training(x_, gamma_, beta_, eps)[0]))

    def numeric(arg, k):
        args = [x, gamma, beta]
        grad = np.zeros(args[k].shape)
        for idx in np.ndindex(args[k].shape):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[k][idx] += h
            down[k][idx] -= h
            grad[idx] = (loss(*up) - loss(*down)) / (2 * h)
        return grad

    _, mu, var = _seed_training(x, gamma, beta, eps)
    gx, gg, gb = _grad(backend, x, gamma, mu, var, dy, eps, 3)
    np.testing.assert_allclose(gx, numeric(x, 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gg, numeric(gamma, 1), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gb, numeric(beta, 2), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_grad_by_hand(backend):
    f = np.float32
    x = np.array([[1], [3], [1], [3]], f)
    dy = np.array([[2], [2], [0], [4]], f)
    gx, gg, gb = _grad(backend, x, np.array([2], f), np.array([2], f), np.array([1], f), dy, 3.0, 1)
    np.testing.assert_allclose(gx, [[0.25], [-0.25], [-1.75], [1.75]], rtol=1e-6)
    np.testing.assert_allclose(gg, [2], rtol=1e-6)
    np.testing.assert_allclose(gb, [8], rtol=1e-6)


def _error(build):
    with pytest.raises(OpError) as e:
        build(XlaBuilder("bn"))
    return e.value


def _p(b, n, dims, etype=np.float32):
    return ops.Parameter(b, n, Shape.array_shape(etype, dims), f"p{n}")


@pytest.mark.parametrize("fi", [2, -1, 1.0, "1", None])
def test_feature_index_errors(fi):
    e = _error(lambda b: ops.BatchNormTraining(_p(b, 0, (2, 2)), _p(b, 1, (2,)), _p(b, 2, (2,)), 0.1, fi))
    assert (e.constraint, e.arg) == ("C2", "feature_index")


@pytest.mark.parametrize("eps", ["small", None, [0.1], True])
def test_epsilon_errors(eps):
    e = _error(lambda b: ops.BatchNormInference(_p(b, 0, (2, 2)), *[_p(b, n, (2,)) for n in range(1, 5)], eps, 1))
    assert (e.constraint, e.arg) == ("C4", "epsilon")
    e = _error(lambda b: ops.BatchNormGrad(_p(b, 0, (2, 2)), *[_p(b, n, (2,)) for n in range(1, 4)],
                                           _p(b, 4, (2, 2)), eps, 1))
    assert (e.constraint, e.arg) == ("C5", "epsilon")


def test_per_feature_shape_errors():
    e = _error(lambda b: ops.BatchNormTraining(_p(b, 0, (2, 3)), _p(b, 1, (2,)), _p(b, 2, (3,)), 0.1, 1))
    assert (e.constraint, e.arg) == ("C3", "scale")
    e = _error(lambda b: ops.BatchNormInference(_p(b, 0, (2, 3)), *[_p(b, n, (3,)) for n in range(1, 4)],
                                                _p(b, 4, (3, 1)), 0.1, 1))
    assert (e.constraint, e.arg) == ("C3", "variance")
    e = _error(lambda b: ops.BatchNormGrad(_p(b, 0, (2, 3)), *[_p(b, n, (3,)) for n in range(1, 4)],
                                           _p(b, 4, (2, 2)), 0.1, 1))
    assert (e.constraint, e.arg) == ("C4", "grad_output")


def test_element_type_errors():
    e = _error(lambda b: ops.BatchNormTraining(_p(b, 0, (2, 2), np.int32), _p(b, 1, (2,), np.int32),
                                               _p(b, 2, (2,), np.int32), 0.1, 1))
    assert e.constraint == "C1"
    e = _error(lambda b: ops.BatchNormTraining(_p(b, 0, (2, 2)), _p(b, 1, (2,), np.float64), _p(b, 2, (2,)), 0.1, 1))
    assert e.constraint == "C1"
