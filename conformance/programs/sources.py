"""The corpus's programs as jax functions with their example inputs: ``python -m conformance.programs`` lowers each
to StableHLO (``<name>.mlir``) and saves its inputs (``<name>.npz``) next to this file."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

#: name -> (the function, its example inputs, what it is).
PROGRAMS: dict[str, tuple[Callable[..., Any], Callable[[], list[np.ndarray]], str]] = {}


def program(name: str, doc: str, inputs: Callable[[], list[np.ndarray]]) -> Callable[[Callable[..., Any]], Any]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        PROGRAMS[name] = (fn, inputs, doc)
        return fn
    return register


def _normal(seed: int, *shapes: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def _mlp_inputs() -> list[np.ndarray]:
    x, w1, w2 = _normal(0, (8, 6), (6, 16), (16, 4))
    labels = np.array([0, 1, 2, 3, 0, 1, 2, 3], np.int32)
    return [x, w1 * 0.5, np.zeros(16, np.float32), w2 * 0.5, labels]


@program("mlp", "a two-layer MLP with softmax cross-entropy: the loss and its gradient", _mlp_inputs)
def mlp(x: Any, w1: Any, b1: Any, w2: Any, labels: Any) -> Any:
    def loss(params: Any) -> Any:
        w1, b1, w2 = params
        logits = jax.nn.relu(x @ w1 + b1) @ w2
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))
    value, grads = jax.value_and_grad(loss)((w1, b1, w2))
    return value, grads, jnp.argmax(x @ w1, axis=1)


def _conv_inputs() -> list[np.ndarray]:
    x, k = _normal(1, (2, 8, 8, 3), (3, 3, 3, 4))
    return [x, k * 0.3, np.ones(4, np.float32), np.zeros(4, np.float32)]


@program("conv", "a conv layer with batch norm (training statistics), ReLU and 2x2 max pooling, and its gradient",
         _conv_inputs)
def conv(x: Any, kernel: Any, scale: Any, offset: Any) -> Any:
    def layer(kernel: Any) -> Any:
        y = jax.lax.conv_general_dilated(x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        mean, var = y.mean(axis=(0, 1, 2)), y.var(axis=(0, 1, 2))
        y = (y - mean) * jax.lax.rsqrt(var + 1e-5) * scale + offset
        y = jax.nn.relu(y)
        return jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    pooled = layer(kernel)
    return pooled, jax.grad(lambda k: layer(k).sum())(kernel)


def _attention_inputs() -> list[np.ndarray]:
    x, wq, wk, wv = _normal(2, (6, 8), (8, 8), (8, 8), (8, 8))
    return [x, wq * 0.3, wk * 0.3, wv * 0.3]


@program("attention", "a transformer block: causal softmax attention, residual, layer norm and GELU", _attention_inputs)
def attention(x: Any, wq: Any, wk: Any, wv: Any) -> Any:
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / jnp.sqrt(jnp.float32(q.shape[-1]))
    mask = jnp.tril(jnp.ones((x.shape[0], x.shape[0]), bool))
    attn = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1) @ v
    h = x + attn
    h = (h - h.mean(-1, keepdims=True)) / jnp.sqrt(h.var(-1, keepdims=True) + 1e-5)
    return jax.nn.gelu(h)


def _lstm_inputs() -> list[np.ndarray]:
    xs, w = _normal(3, (10, 4), (4 + 6, 4 * 6))
    return [xs, w * 0.3]


@program("lstm", "an LSTM over 10 steps as lax.scan (a stablehlo.while), the final state and every output",
         _lstm_inputs)
def lstm(xs: Any, w: Any) -> Any:
    hidden = w.shape[1] // 4

    def step(carry: Any, x: Any) -> Any:
        h, c = carry
        gates = jnp.concatenate([x, h]) @ w
        i, f, g, o = jnp.split(gates, 4)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h
    zeros = jnp.zeros(hidden, jnp.float32)
    (h, c), hs = jax.lax.scan(step, (zeros, zeros), xs)
    return h, c, hs


def _sampling_inputs() -> list[np.ndarray]:
    return [*_normal(4, (3, 12)), np.array([0, 7], np.uint32)]


@program("sampling", "top-k sampling: top_k, sort, cumsum, argmax, and jax.random (threefry) uniforms",
         _sampling_inputs)
def sampling(logits: Any, key: Any) -> Any:
    values, indices = jax.lax.top_k(logits, 4)
    probs = jax.nn.softmax(values, axis=-1)
    u = jax.random.uniform(jax.random.wrap_key_data(key), (logits.shape[0], 1))
    choice = jnp.argmax(jnp.cumsum(probs, axis=-1) > u, axis=-1)
    return jnp.take_along_axis(indices, choice[:, None], axis=1)[:, 0], jnp.sort(logits, axis=-1), u


def _linalg_inputs() -> list[np.ndarray]:
    a, b = _normal(5, (5, 5), (5, 2))
    return [a @ a.T + 5 * np.eye(5, dtype=np.float32), b]


@program("linalg", "a jnp.linalg pipeline: solve, Cholesky, eigh's eigenvalues, singular values, QR's product",
         _linalg_inputs)
def linalg(a: Any, b: Any) -> Any:
    q, r = jnp.linalg.qr(a)
    return (jnp.linalg.solve(a, b), jnp.linalg.cholesky(a), jnp.linalg.eigvalsh(a),
            jnp.linalg.svd(a, compute_uv=False), q @ r)
