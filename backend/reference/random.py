"""Reference evaluators of the random-number ops: RngBitGenerator, RngUniform and RngNormal.

RngBitGenerator implements XLA's two algorithms bit for bit (its rng-bit-generator expander, matched
against XLA CPU through jax): the state is u64[n], ``state[0]`` the key and the rest the counter.

- THREE_FRY (state u64[2]): Threefry-2x32 with 20 rounds, key = (low, high) 32-bit halves of
  ``state[0]``; block i encrypts the 64-bit counter ``state[1] + i`` (low, high halves). 64-bit
  outputs take one block each (low | high << 32); 32-bit outputs take the two words of each block
  as neighbours along a pairing dimension (see ``three_fry_bits``); 8- and 16-bit outputs are the
  32-bit ones truncated. The new counter adds the blocks used.
- PHILOX (state u64[2] or u64[3]): Philox-4x32 with 10 rounds, key = halves of ``state[0]``; the
  128-bit counter is ``state[1] | state[2] << 64`` (with u64[2], the key stands in for ``state[2]``
  and only the low word is returned); block i encrypts counter + i. 32-bit outputs take the four words
  of each block in turn, 64-bit ones pair consecutive words (low first), narrower ones truncate the
  32-bit words. The new counter adds the blocks used (128-bit carry).
- DEFAULT is implementation-defined; the reference (like XLA CPU and GPU) runs PHILOX.

RngUniform and RngNormal values are implementation-defined (the documents fix only the
distribution): the reference draws them from NumPy's PCG64 seeded by the instruction's shape and
parameters, so a program's values are reproducible.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from backend.hlo import etypes
from backend.hlo.attribute_types import RandomAlgorithm
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, Deterministic, Predicate, any_value, none_of

_M32 = np.uint64(0xFFFFFFFF)
_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PHILOX_M = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_PHILOX_W = (np.uint32(0x9E3779B9), np.uint32(0xBB67AE85))


def _halves(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The low and high 32-bit words of u64 values."""
    v = np.asarray(v, np.uint64)
    return (v & _M32).astype(np.uint32), (v >> np.uint64(32)).astype(np.uint32)


def _join(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return low.astype(np.uint64) | (high.astype(np.uint64) << np.uint64(32))


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


@np.errstate(over="ignore")
def threefry2x32(key: tuple[int, int], x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 (20 rounds) of the u32 word pairs ``(x0, x1)`` under the 64-bit key ``(k0, k1)``."""
    k0, k1 = np.uint32(key[0]), np.uint32(key[1])
    ks = (k0, k1, k0 ^ k1 ^ np.uint32(0x1BD11BDA))
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for i in range(5):
        for r in _THREEFRY_ROTATIONS[i % 2]:
            x0 = x0 + x1
            x1 = _rotl(x1, r) ^ x0
        x0 = x0 + ks[(i + 1) % 3]
        x1 = x1 + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x0, x1


@np.errstate(over="ignore")
def philox4x32(key: tuple[int, int], x: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Philox-4x32 (10 rounds) of the u32 word quadruples ``x`` under the 64-bit key ``(k0, k1)``."""
    k0, k1 = np.uint32(key[0]), np.uint32(key[1])
    x0, x1, x2, x3 = x
    for _ in range(10):
        p0, p1 = x0.astype(np.uint64) * _PHILOX_M[0], x2.astype(np.uint64) * _PHILOX_M[1]
        hi0, lo0 = (p0 >> np.uint64(32)).astype(np.uint32), (p0 & _M32).astype(np.uint32)
        hi1, lo1 = (p1 >> np.uint64(32)).astype(np.uint32), (p1 & _M32).astype(np.uint32)
        x0, x1, x2, x3 = hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0
        k0, k1 = k0 + _PHILOX_W[0], k1 + _PHILOX_W[1]
    return x0, x1, x2, x3


def _words_needed(size: int, width: int) -> int:
    """32-bit words a result of ``size`` elements of ``width`` bits consumes (narrow types use one each)."""
    return size * 2 if width == 64 else size


def _pack(words: np.ndarray, size: int, width: int, dims: tuple[int, ...]) -> np.ndarray:
    """Output elements of ``width`` bits from a stream of u32 words."""
    if width == 64:
        out = _join(words[0:2 * size:2], words[1:2 * size:2])
    else:
        out = words[:size].astype(np.dtype(f"uint{width}"))  # 8 and 16 bits: the low bits of each word
    return out.reshape(dims)


def _pair_dimension(dims: tuple[int, ...]) -> int:
    """The dimension along which 32-bit THREE_FRY outputs take the two words of a block: the one that
    needs the fewest blocks (an even size needs no padding; else the largest), the first on ties."""
    def blocks(d: int) -> int:
        return -(-dims[d] // 2) * int(np.prod(dims[:d] + dims[d + 1:], dtype=np.int64))
    return min(range(len(dims)), key=blocks)


def three_fry_bits(state: np.ndarray, dims: tuple[int, ...], width: int) -> tuple[np.ndarray, np.ndarray]:
    """XLA's THREE_FRY RngBitGenerator: ``(new_state, bits)`` for a u64[2] state.

    64-bit outputs: one block per element, in row-major order. Narrower ones: blocks laid out in
    row-major order over ``dims`` with the pairing dimension halved (rounded up); the block at index j
    along it gives the elements at 2j (first word) and 2j + 1 (second word), the excess cut off.
    """
    key = _halves(state[0])
    if width == 64:
        size = int(np.prod(dims, dtype=np.int64))
        with np.errstate(over="ignore"):
            y0, y1 = threefry2x32(key, *_halves(state[1] + np.arange(size, dtype=np.uint64)))
            return np.array([state[0], state[1] + np.uint64(size)], np.uint64), _join(y0, y1).reshape(dims)
    shape = tuple(dims) or (1,)
    d = _pair_dimension(shape)
    block_dims = shape[:d] + (-(-shape[d] // 2),) + shape[d + 1:]
    blocks = int(np.prod(block_dims, dtype=np.int64))
    with np.errstate(over="ignore"):
        y0, y1 = threefry2x32(key, *_halves(state[1] + np.arange(blocks, dtype=np.uint64)))
        new_state = np.array([state[0], state[1] + np.uint64(blocks)], np.uint64)
    paired = np.stack([y0.reshape(block_dims), y1.reshape(block_dims)], axis=d + 1)
    words = paired.reshape(shape[:d] + (2 * block_dims[d],) + shape[d + 1:])
    words = np.take(words, np.arange(shape[d]), axis=d)
    return new_state, words.astype(np.dtype(f"uint{width}")).reshape(dims)


def _add128(low: np.uint64, high: np.uint64, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(low | high << 64) + n`` as (low, high) u64 words, the carry propagated."""
    with np.errstate(over="ignore"):
        new_low = low + n
        return new_low, high + (new_low < low).astype(np.uint64)


def philox_bits(state: np.ndarray, dims: tuple[int, ...], width: int) -> tuple[np.ndarray, np.ndarray]:
    """XLA's PHILOX RngBitGenerator: ``(new_state, bits)`` for a u64[2] or u64[3] state."""
    size = int(np.prod(dims, dtype=np.int64))
    blocks = -(-_words_needed(size, width) // 4)
    high = state[2] if len(state) == 3 else state[0]
    low_counters, high_counters = _add128(state[1], high, np.arange(blocks, dtype=np.uint64))
    with np.errstate(over="ignore"):
        y = philox4x32(_halves(state[0]), (*_halves(low_counters), *_halves(high_counters)))
    words = np.stack(y, axis=1).reshape(-1)
    new_low, new_high = _add128(state[1], high, np.uint64(blocks))
    new_state = np.array([state[0], new_low] + ([new_high] if len(state) == 3 else []), np.uint64)
    return new_state, _pack(words, size, width, dims)


#: What RNG_DEFAULT runs in the reference: XLA's choice on CPU and GPU.
DEFAULT_ALGORITHM = RandomAlgorithm.RNG_PHILOX

_GENERATORS = {RandomAlgorithm.RNG_THREE_FRY: three_fry_bits, RandomAlgorithm.RNG_PHILOX: philox_bits}


def bit_generator(algorithm: RandomAlgorithm, state: np.ndarray, dims: tuple[int, ...],
                  width: int) -> tuple[np.ndarray, np.ndarray]:
    """``(new_state, bits)`` of ``algorithm`` (DEFAULT: the reference's choice)."""
    if algorithm == RandomAlgorithm.RNG_DEFAULT:
        algorithm = DEFAULT_ALGORITHM
    return _GENERATORS[algorithm](np.asarray(state, np.uint64), tuple(dims), width)


@evaluator("RngBitGenerator")
def rng_bit_generator(ctx: EvaluatorContext, initial_state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    out = ctx.shape.tuple_shapes()[1]
    return bit_generator(ctx.attr("algorithm"), initial_state, out.dimensions(),
                         etypes.bit_width(out.element_type()))


@implementation_defined("RngBitGenerator")
def rng_bit_generator_outcomes(ctx: EvaluatorContext, initial_state: np.ndarray) -> dict[str, Any]:
    """Every algorithm: the state and bits are the backend's (the document promises a deterministic function of
    the initial state, not the same one across backends). RNG_DEFAULT: the backend picks its algorithm."""
    outcomes = {"bits_and_state": Allowed((np.True_, np.True_), {"any_bits": Deterministic(any_value)})}
    if ctx.attr("algorithm") != RandomAlgorithm.RNG_DEFAULT:
        return outcomes
    bits = ctx.shape.tuple_shapes()[1]
    three_fry = bit_generator(RandomAlgorithm.RNG_THREE_FRY, initial_state, bits.dimensions(),
                              etypes.bit_width(bits.element_type()))
    if three_fry[0].shape != initial_state.shape:  # THREE_FRY takes a u64[2] state: not an outcome here
        return {**outcomes, "default_algorithm": Allowed((np.True_, np.True_), {"three_fry": none_of})}
    return {**outcomes, "default_algorithm": Allowed((np.True_, np.True_), {"three_fry": tuple(three_fry)})}


def _generator(ctx: EvaluatorContext, *params: np.ndarray) -> np.random.Generator:
    """A generator seeded by the instruction's result shape and parameter values (reproducible)."""
    key = str(ctx.shape) + "".join(p.tobytes().hex() for p in params)
    return np.random.default_rng(zlib.crc32(key.encode()))


def uniform_values(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """Values uniform on ``[a, b)`` of ``a``'s type (``b <= a``: ``a`` everywhere, one allowed outcome)."""
    dtype = a.dtype
    if not a < b:
        return np.full(dims, a, dtype)
    if etypes.is_int(etypes.dtype_to_etype(dtype)):
        return rng.integers(int(a), int(b), size=dims, dtype=dtype, endpoint=False)
    lo, hi = float(a), float(b)
    with np.errstate(over="ignore", invalid="ignore"):
        values = (lo + (hi - lo) * rng.random(dims)).astype(dtype)
    return np.where(values < b, values, a).astype(dtype)  # rounding to the type may reach b: a instead


@evaluator("RngUniform")
def rng_uniform(ctx: EvaluatorContext, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return uniform_values(_generator(ctx, a, b), a, b, ctx.shape.dimensions())


@evaluator("RngNormal")
def rng_normal(ctx: EvaluatorContext, mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    draws = _generator(ctx, mu, sigma).standard_normal(ctx.shape.dimensions())
    with np.errstate(over="ignore", invalid="ignore"):
        return (float(mu) + float(sigma) * draws).astype(mu.dtype)


@implementation_defined("RngUniform")
def rng_uniform_outcomes(ctx: EvaluatorContext, a: np.ndarray, b: np.ndarray) -> dict[str, Allowed]:
    """Every element's value is the implementation's draw: in [a, b) when a < b (or, for floating-point types,
    b itself: a draw rounded to the type may reach it; an integer draw never does), anything otherwise."""
    rounds = etypes.is_float(etypes.dtype_to_etype(a.dtype))

    def in_range(closed: bool) -> Predicate:
        def accepts(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
            if not a < b:
                return np.ones(np.shape(actual), bool)
            return (actual >= a) & ((actual <= b) if closed else (actual < b))
        return accepts
    return {"values": Allowed(np.ones(ctx.shape.dimensions(), bool),
                              {"any_draw": in_range(False), "rounded_up_to_b": in_range(rounds)})}


@implementation_defined("RngNormal")
def rng_normal_outcomes(ctx: EvaluatorContext, mu: np.ndarray, sigma: np.ndarray) -> dict[str, Allowed]:
    """Every element's value is the implementation's draw: finite for finite mu and sigma (an infinity
    where the reference's own draw overflowed the type), anything otherwise."""
    finite_params = bool(np.isfinite(mu.astype(np.float64)) and np.isfinite(sigma.astype(np.float64)))

    def draw(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        if not finite_params:
            return np.ones(np.shape(actual), bool)
        with np.errstate(invalid="ignore"):
            a, e = actual.astype(np.float64), expected.astype(np.float64)
        return np.isfinite(a) | np.isinf(e) & ~np.isnan(a)
    return {"values": Allowed(np.ones(ctx.shape.dimensions(), bool), {"any_draw": draw})}
