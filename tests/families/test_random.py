"""RngBitGenerator bit for bit against XLA (through the jax backend), the NumPy algorithms against
published known answers, and the distributions of RngUniform and RngNormal on reference and jax."""

import math

import jax
import numpy as np
import pytest

from backend import OpError, PrimitiveType, RandomAlgorithm, Shape, XlaBuilder, get_backend, ops
from backend.reference.random import philox4x32, threefry2x32

M64 = 2**64 - 1


def _words(*values: int) -> np.ndarray:
    return np.array(values, np.uint32)


@pytest.mark.parametrize("key, counter, expected", [  # Random123 kat_vectors (also in jax's own tests)
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
])
def test_threefry2x32_known_answers(key, counter, expected):
    y0, y1 = threefry2x32(key, _words(counter[0]), _words(counter[1]))
    assert (int(y0[0]), int(y1[0])) == expected


@pytest.mark.parametrize("key, counter, expected", [  # Random123 kat_vectors, philox4x32_10
    ((0, 0), (0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF,) * 4, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0xA4093822, 0x299F31D0), (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox4x32_known_answers(key, counter, expected):
    out = philox4x32(key, tuple(_words(c) for c in counter))
    assert tuple(int(w[0]) for w in out) == expected


def _bit_generator(algorithm, state_words: int, shape: str):
    b = XlaBuilder("rbg")
    state = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.U64, (state_words,)), "state")
    ops.RngBitGenerator(algorithm, state, shape)
    return b.build()


STATES = {2: [[0, 0], [M64, M64 - 1], [0x0123456789ABCDEF, 0x1111222233334444], [7, M64]],
          3: [[0, 0, 0], [5, M64, M64], [M64, M64 - 2, 9], [0x0123456789ABCDEF, 0x1111222233334444, 1]]}
SHAPES = ["u8[7,3]", "u16[5]", "u32[]", "u32[0]", "u32[2,3]", "u32[3,2]", "s32[1,1,5]", "f32[3,5]",
          "u64[4,3]", "f64[]", "s8[2,0,3]", "bf16[9]"]


@pytest.mark.parametrize("algorithm, state_words", [("RNG_THREE_FRY", 2), ("RNG_PHILOX", 2), ("RNG_PHILOX", 3),
                                                    ("RNG_DEFAULT", 2)])
def test_bit_generator_reference_matches_xla(algorithm, state_words):
    """Every output type and shape class (rank 0, zero-size, odd sizes, each pairing dimension), the
    counter wrapping; XLA's result through the jax backend, which emits XLA's own instruction."""
    ref, jx = get_backend("reference"), get_backend("jax")
    rng = np.random.default_rng(3)
    states = STATES[state_words] + [list(rng.integers(0, 2**64, state_words, dtype=np.uint64)) for _ in range(2)]
    for shape in SHAPES:
        comp = _bit_generator(algorithm, state_words, shape)
        for state in states:
            args = [np.array(state, np.uint64)]
            expected, got = ref.execute(comp, args), jx.execute(comp, args)
            for e, g in zip(expected, got):
                assert e.dtype == np.asarray(g).dtype and np.array_equal(e, np.asarray(g)), (shape, state)


@pytest.mark.parametrize("algorithm, state, shape, new_state", [
    ("RNG_THREE_FRY", [1, 10], "u32[7,3]", [1, 22]),  # pairs along dimension 0: 4 x 3 blocks
    ("RNG_THREE_FRY", [1, 10], "u8[5,4]", [1, 20]),  # dimension 1 is even: 5 x 2 blocks
    ("RNG_THREE_FRY", [1, 10], "u64[5]", [1, 15]),  # a block per 64-bit element
    ("RNG_THREE_FRY", [1, M64], "u32[3]", [1, 1]),  # the counter wraps
    ("RNG_PHILOX", [1, 10], "u32[9]", [1, 13]),  # 4 words per block
    ("RNG_PHILOX", [1, 10, 4], "u64[5]", [1, 13, 4]),  # 2 words per element
    ("RNG_PHILOX", [1, M64 - 1, 4], "u16[12]", [1, 1, 5]),  # 128-bit carry
    ("RNG_PHILOX", [1, M64, M64], "u32[1]", [1, 0, 0]),
])
def test_state_update(algorithm, state, shape, new_state):
    comp = _bit_generator(algorithm, len(state), shape)
    for name in ("reference", "jax"):
        out = get_backend(name).execute(comp, [np.array(state, np.uint64)])
        assert [int(x) for x in out[0]] == new_state, name


def test_bits_are_unsigned_of_the_requested_width():
    comp = _bit_generator("RNG_PHILOX", 2, "f16[3]")
    assert comp.program_shape().result_shape().tuple_shapes()[1] == Shape.array_shape(PrimitiveType.U16, (3,))


@pytest.mark.parametrize("value", [RandomAlgorithm.RNG_PHILOX, "RNG_PHILOX", "philox", 2, jax.lax.RandomAlgorithm.RNG_PHILOX])
def test_algorithm_forms(value):
    comp = _bit_generator(value, 3, "u32[4]")
    assert comp.root_instruction.attrs["algorithm"] == RandomAlgorithm.RNG_PHILOX


@pytest.mark.parametrize("value", ["mersenne", 7, None, 1.0, True])
def test_bad_algorithm_is_an_op_error(value):
    with pytest.raises(OpError) as e:
        _bit_generator(value, 2, "u32[4]")
    assert "RngBitGenerator" in str(e.value) and "algorithm" in str(e.value)


def _draw(op: str, etype: PrimitiveType, p: float, q: float, n: int, backend: str) -> np.ndarray:
    b = XlaBuilder(op)
    dtype = Shape.array_shape(etype, ()).numpy_dtype()
    getattr(ops, op)(ops.Constant(b, np.array(p, dtype)), ops.Constant(b, np.array(q, dtype)),
                     Shape.array_shape(etype, (n,)))
    out = np.asarray(get_backend(backend).execute(b.build(), [])[0])
    assert out.shape == (n,) and out.dtype == dtype
    return out.astype(np.float64)


def _ks_statistic(sample: np.ndarray, cdf) -> float:
    x = np.sort(sample)
    f = np.array([cdf(v) for v in x])
    i = np.arange(1, len(x) + 1) / len(x)
    return float(max(np.max(i - f), np.max(f - (i - 1 / len(x)))))


N = 4000
KS_BOUND = 1.63 / math.sqrt(N)  # alpha = 0.01 for a continuous distribution


@pytest.mark.parametrize("backend", ["reference", "jax"])
@pytest.mark.parametrize("etype, a, b", [(PrimitiveType.F32, -2.0, 3.0), (PrimitiveType.F64, 10.0, 10.5),
                                         (PrimitiveType.BF16, 0.0, 1.0)])
def test_uniform_float_distribution(backend, etype, a, b):
    x = _draw("RngUniform", etype, a, b, N, backend)
    if backend == "jax" and etype == PrimitiveType.BF16:
        # XLA CPU draws in f32 and rounds to bf16/f16, which can give b (about 0.2% of draws): a
        # deviation from [a, b) recorded in the spec
        assert np.all((x >= a) & (x <= b)) and np.mean(x == b) < 0.01
    else:
        assert np.all((x >= a) & (x < b))
    width = b - a
    if etype != PrimitiveType.BF16:  # bf16 has 8 significant bits: a coarse grid, not continuous
        assert _ks_statistic(x, lambda v: (v - a) / width) < KS_BOUND
    assert abs(x.mean() - (a + b) / 2) < 5 * width / math.sqrt(12 * N)
    assert abs(x.var() - width**2 / 12) < 0.1 * width**2 / 12


@pytest.mark.parametrize("backend", ["reference", "jax"])
@pytest.mark.parametrize("etype, a, b", [(PrimitiveType.S32, -3, 4), (PrimitiveType.U64, 5, 9),
                                         (PrimitiveType.S64, -(2**40), 2**40)])
def test_uniform_integer_distribution(backend, etype, a, b):
    x = _draw("RngUniform", etype, a, b, N, backend)
    assert np.all((x >= a) & (x < b)) and np.all(x == np.round(x))
    if b - a < 10:  # every value of the interval, each about equally often
        counts = np.bincount((x - a).astype(np.int64), minlength=b - a)
        assert counts.min() > 0.7 * N / (b - a) and counts.max() < 1.3 * N / (b - a)
    assert abs(x.mean() - (a + b - 1) / 2) < 5 * (b - a) / math.sqrt(12 * N)


@pytest.mark.parametrize("backend", ["reference", "jax"])
@pytest.mark.parametrize("etype, mu, sigma", [(PrimitiveType.F32, 1.5, 2.0), (PrimitiveType.F64, -100.0, 0.25),
                                              (PrimitiveType.F16, 0.0, 1.0)])
def test_normal_distribution(backend, etype, mu, sigma):
    x = _draw("RngNormal", etype, mu, sigma, N, backend)
    assert np.all(np.isfinite(x))
    if etype != PrimitiveType.F16:
        assert _ks_statistic(x, lambda v: 0.5 * (1 + math.erf((v - mu) / (sigma * math.sqrt(2))))) < KS_BOUND
    assert abs(x.mean() - mu) < 5 * sigma / math.sqrt(N)
    assert abs(x.std() - sigma) < 0.1 * sigma


def test_uniform_rounding_never_reaches_b():
    """A wide f16 interval whose rounding lands on b for draws near its top: still below b."""
    x = _draw("RngUniform", PrimitiveType.F16, 0.0, 1.0, N, "reference")
    assert x.max() < 1.0


def test_rng_uniform_only_floats_may_round_up_to_b() -> None:
    """An integer draw is never rounded, so b itself is outside [a, b) on every profile (XLA gives exactly 5 on
    s32 [5, 6)); a float draw rounded to the type may reach b (XLA CPU gives b in one-value f32 intervals)."""
    import numpy as np

    from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
    from tests.support.cases import golden_case

    class ReturnsB:
        name = "returns_b"

        def supports(self, computation):
            return None

        def execute(self, computation, arguments):
            a, b = arguments
            return [np.full(computation.program_shape().result_shape().dimensions(), b, b.dtype)]

    ints = golden_case("RngUniform", {"a": np.int32(5), "b": np.int32(6)}, np.int32([5, 5, 5, 5]),
                       {"shape": "s32[4]"}, tag="values")
    floats = golden_case("RngUniform", {"a": np.float32(1), "b": np.float32(1 + 2**-23)}, np.float32([1, 1]),
                         {"shape": "f32[2]"}, tag="values")
    assert run_case(ints, get_backend("reference")).status == PASSED
    for profile in ("spec", "xla"):
        assert run_case(ints, ReturnsB(), profile=profile).status == FAILED
    rounded = run_case(floats, ReturnsB())
    assert rounded.status == IMPL_DEFINED and "rounded_up_to_b" in rounded.message


def test_rng_bit_generator_bits_are_the_backends_under_spec_and_xlas_under_xla() -> None:
    """The document promises a deterministic function of the initial state, not the same one across backends: other
    bits (and state) of the right shapes and types are allowed under the spec profile and fail under xla; a wrong
    type fails under both."""
    import numpy as np

    import specs
    from conformance.build import build_case
    from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
    from tests.support.cases import spec_example_case

    case = spec_example_case("RngBitGenerator", "philox_kat_zero")
    computation, _ = build_case(specs.get("RngBitGenerator"), case.inputs, case.attrs)
    assert run_case(case, get_backend("reference")).status == PASSED

    class OtherBits:
        """The reference's state and bits with a fixed pattern flipped (deterministic, as the document requires),
        the bits of ``bits_type``."""

        name = "other_bits"

        def __init__(self, bits_type):
            self.bits_type = bits_type

        def supports(self, computation):
            return None

        def execute(self, _, arguments):
            state, bits = get_backend("reference").execute(computation, arguments)
            return [state ^ np.uint64(1), (bits ^ np.array(0x5A, bits.dtype)).astype(self.bits_type)]

    allowed = run_case(case, OtherBits(np.uint32))
    assert allowed.status == IMPL_DEFINED and "any_bits" in allowed.message
    assert run_case(case, OtherBits(np.uint32), profile="xla").status == FAILED
    assert run_case(case, OtherBits(np.int64)).status == FAILED
