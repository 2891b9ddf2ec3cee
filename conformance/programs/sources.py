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


def _transformer_inputs() -> list[np.ndarray]:
    x, wq, wk, wv, wo, w1, w2 = _normal(6, (6, 8), (8, 8), (8, 8), (8, 8), (8, 8), (8, 16), (16, 8))
    lengths = np.array([4], np.int32)  # the keys past this position are padding: masked out
    return [x, wq * 0.3, wk * 0.3, wv * 0.3, wo * 0.3, w1 * 0.3, w2 * 0.3, np.ones(8, np.float32),
            np.zeros(8, np.float32), lengths]


def _layer_norm(h: Any, gamma: Any, beta: Any) -> Any:
    mean = h.mean(-1, keepdims=True)
    return (h - mean) * jax.lax.rsqrt(((h - mean) ** 2).mean(-1, keepdims=True) + 1e-5) * gamma + beta


@program("transformer_grad", "a transformer block's gradient (jax.grad): causal and padding-masked attention, "
         "layer norm, a GELU MLP, a squared loss", _transformer_inputs)
def transformer_grad(x: Any, wq: Any, wk: Any, wv: Any, wo: Any, w1: Any, w2: Any, gamma: Any, beta: Any,
                     lengths: Any) -> Any:
    def loss(params: Any) -> Any:
        wq, wk, wv, wo, w1, w2, gamma, beta = params
        q, k, v = x @ wq, x @ wk, x @ wv
        scores = q @ k.T / jnp.sqrt(jnp.float32(q.shape[-1]))
        n = x.shape[0]
        mask = jnp.tril(jnp.ones((n, n), bool)) & (jnp.arange(n)[None, :] < lengths[0])
        attn = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1) @ v
        h = _layer_norm(x + attn @ wo, gamma, beta)
        out = _layer_norm(h + jax.nn.gelu(h @ w1) @ w2, gamma, beta)
        return jnp.mean((out - x) ** 2)
    value, grads = jax.value_and_grad(loss)((wq, wk, wv, wo, w1, w2, gamma, beta))
    return value, grads


def _rbg_inputs() -> list[np.ndarray]:
    return [np.array([0, 42, 0, 7], np.uint32), *_normal(7, (4, 6))]


@program("random_rbg", "jax.random on the rbg PRNG (stablehlo.rng_bit_generator): split, uniform, normal, "
         "bernoulli dropout and a permutation", _rbg_inputs)
def random_rbg(key_data: Any, x: Any) -> Any:
    key = jax.random.wrap_key_data(key_data, impl="rbg")
    k1, k2, k3, k4 = jax.random.split(key, 4)
    keep = jax.random.bernoulli(k3, 0.75, x.shape)
    dropped = jnp.where(keep, x / 0.75, 0.0)
    return (jax.random.uniform(k1, (3, 5)), jax.random.normal(k2, (7,)), dropped,
            jax.random.permutation(k4, 10), jax.random.key_data(k1))


def _fft_inputs() -> list[np.ndarray]:
    signal, kernel = _normal(8, (4, 32), (4, 7))
    return [signal, kernel]


@program("fft_conv", "an FFT convolution: rfft of signal and zero-padded kernel, the product, irfft; with the "
         "direct convolution it must equal, and a complex fft round trip", _fft_inputs)
def fft_conv(signal: Any, kernel: Any) -> Any:
    n = signal.shape[-1] + kernel.shape[-1] - 1
    spectrum = jnp.fft.rfft(signal, n) * jnp.fft.rfft(kernel, n)
    by_fft = jnp.fft.irfft(spectrum, n)
    direct = jax.vmap(lambda s, k: jnp.convolve(s, k, mode="full"))(signal, kernel)
    round_trip = jnp.fft.ifft(jnp.fft.fft(signal.astype(jnp.complex64)))
    return by_fft, direct, jnp.abs(spectrum), round_trip


def _resnet_inputs() -> list[np.ndarray]:
    x, k1, k2 = _normal(9, (2, 8, 8, 4), (3, 3, 4, 4), (3, 3, 4, 4))
    return [x, k1 * 0.3, k2 * 0.3, np.ones(4, np.float32), np.zeros(4, np.float32),
            np.full(4, 0.1, np.float32), np.full(4, 0.9, np.float32)]


def _batch_norm(y: Any, scale: Any, offset: Any, mean: Any, var: Any) -> Any:
    return (y - mean) * jax.lax.rsqrt(var + 1e-5) * scale + offset


@program("resnet_block", "a ResNet block: two 3x3 convs with batch norm (training statistics, and inference with "
         "running statistics), ReLU, the residual, 3x3/2 max pooling; the training loss's gradient",
         _resnet_inputs)
def resnet_block(x: Any, k1: Any, k2: Any, scale: Any, offset: Any, running_mean: Any, running_var: Any) -> Any:
    def conv(y: Any, k: Any) -> Any:
        return jax.lax.conv_general_dilated(y, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def block(kernels: Any, training: bool) -> Any:
        k1, k2 = kernels
        y = x
        for k in (k1, k2):
            y = conv(y, k)
            if training:
                mean, var = y.mean(axis=(0, 1, 2)), y.var(axis=(0, 1, 2))
            else:
                mean, var = running_mean, running_var
            y = _batch_norm(y, scale, offset, mean, var)
            y = jax.nn.relu(y) if k is k1 else y
        y = jax.nn.relu(y + x)
        return jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                                     ((0, 0), (1, 1), (1, 1), (0, 0)))
    train = block((k1, k2), True)
    grads = jax.grad(lambda ks: (block(ks, True) ** 2).mean())((k1, k2))
    return train, block((k1, k2), False), grads


#: The devices the sharded program runs on (``python -m conformance.programs`` asks jax for as many CPU devices).
SHARDED_DEVICES = 8


def _sharded_inputs() -> list[np.ndarray]:
    x, w, y = _normal(10, (16, 4), (4, 3), (16, 3))
    return [x, w * 0.5, y]


@program("sharded", f"data-parallel training over {SHARDED_DEVICES} devices with shard_map: each device's "
         "gradient of a squared loss on its shard of the batch summed with psum, the activations gathered with "
         "all_gather, a ring shift with ppermute", _sharded_inputs)
def sharded(x: Any, w: Any, y: Any) -> Any:
    from jax.sharding import Mesh
    from jax.sharding import PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:SHARDED_DEVICES]), ("batch",))
    ring = [(i, (i + 1) % SHARDED_DEVICES) for i in range(SHARDED_DEVICES)]

    def step(x: Any, w: Any, y: Any) -> Any:
        def loss(w: Any) -> Any:
            return jnp.sum((jnp.tanh(x @ w) - y) ** 2)
        value, grad = jax.value_and_grad(loss)(w)
        h = jnp.tanh(x @ w)
        total = jax.lax.psum(value, "batch") / (x.shape[0] * SHARDED_DEVICES)
        grad = jax.lax.psum(grad, "batch") / (x.shape[0] * SHARDED_DEVICES)
        return total, w - 0.1 * grad, jax.lax.all_gather(h, "batch", tiled=True), jax.lax.ppermute(h, "batch", ring)

    return jax.shard_map(step, mesh=mesh, in_specs=(P("batch"), P(), P("batch")),
                         out_specs=(P(), P(), P(), P("batch")), check_vma=False)(x, w, y)
