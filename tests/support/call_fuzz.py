"""A seeded fuzzer of the public surface: random op calls over every spec, and random ``execute`` arguments.

Each call picks a spec and one of three kinds:

* ``mutated``: one of the spec's examples (golden or error) with attributes, sub-computations and
  operands swapped for junk, for values of other arguments of any spec, or for random shapes;
* ``blind``: the op function called with random positional and keyword values;
* ``executed``: a mutated call that builds, run on a backend with its own arguments, random values of
  the parameters' shapes, or malformed arguments (a wrong type, shape, count, or junk).

An outcome is ``ok``, or the name of the project's error type raised (``OpError``, ``UnsupportedError``,
``ExecutionError``...), or ``foreign``: any other exception, which :func:`fuzz_calls` records with the call
that raised it; or ``harness``: an exception raised by conformance's reader of the specs' computation
descriptions (``conformance/build.py``), which a mutated description in place of a sub-computation reaches
before any op does (the harness's input format, not the builder's). Programs run only when every value in them is small (at most :data:`MAX_ELEMENTS`
elements), under a timeout, so that the fuzzer stays fast and bounded.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import os
import random
import time
import traceback
from typing import Any

import numpy as np

import specs
from backend import (
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    Precision,
    PrecisionConfig,
    PrimitiveType,
    ResultAccuracy,
    ResultAccuracyMode,
    ScatterDimensionNumbers,
    Shape,
    XlaBuilder,
    get_backend,
    ops,
)
from backend.errors import XlaRuntimeError
from backend.hlo import etypes
from backend.hlo.graph import XlaComputation
from backend.hlo.literals import parse_shape
from conformance.build import build_case

#: Programs with a value of more elements than this are built but not run.
MAX_ELEMENTS = 4096
#: Seconds a fuzzed program may run.
RUN_TIMEOUT = 5.0

def _has_dtype(etype: PrimitiveType) -> bool:
    try:
        etypes.etype_to_dtype(etype)
        return True
    except Exception:  # noqa: BLE001 - a type without a NumPy dtype
        return False


ETYPES = [t for t in PrimitiveType if t not in (PrimitiveType.PRIMITIVE_TYPE_INVALID, PrimitiveType.TUPLE,
                                                PrimitiveType.TOKEN) and _has_dtype(t)]

JUNK: list[Any] = [
    None, "x", "", 1.5, -1, 0, 1, 2, 7, 2**31, 2**63, 10**30, True, False, float("nan"), float("inf"), -0.0, [], [[]],
    [None], ["x"], [1.5], [-1], [0, 0], [99], [[0, 1], [1]], [[1, 2, 3]], (1, "a"), {"bogus": 1}, {}, object(),
    b"bytes", np.float32(2.5), np.int64(3), np.array([1, 2]), np.array([[0, 1]]), np.array(np.nan), [[[0]]],
    {"mode": "bogus"}, {"atol": "x"}, {"atol": 0.0}, ["HIGHEST"], ("NHWC", "HWIO", "NHWC"), "f32", "bogus_type",
    np.float64, 99999, PrimitiveType.TUPLE, PrimitiveType.TOKEN, PrimitiveType.F8E4M3FN, PrimitiveType.U2,
    Precision.HIGH, ResultAccuracyMode.HIGHEST, ResultAccuracy(ResultAccuracyMode.TOLERANCE, 0.0, 0.0, 0),
    ResultAccuracy(ResultAccuracyMode.TOLERANCE, math.nan), PrecisionConfig((Precision.HIGH,) * 5),
    DotDimensionNumbers(((9,), (0,)), ((), ())), ConvolutionDimensionNumbers(0, 1, (9,), 0, 1, (2,), 0, 1, (2,)),
    GatherDimensionNumbers((0,), (0,), (0,), 9), ScatterDimensionNumbers((0,), (0,), (0,), 9),
    Shape.array_shape(PrimitiveType.F32, (2,)), "f32[2,3]", "(f32[], s32[2])", "token[]",
]


@dataclasses.dataclass
class Foreign:
    """A call that raised an exception of a type not the project's own."""

    op: str
    kind: str
    call: str
    error: str


@dataclasses.dataclass
class FuzzResult:
    calls: int = 0
    outcomes: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    kinds: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)
    executed: int = 0
    foreign: list[Foreign] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    ops: set[str] = dataclasses.field(default_factory=set)


def _random_dims(rng: random.Random) -> list[int]:
    return [rng.choice([0, 1, 2, 3, 4, 5]) for _ in range(rng.choice([0, 0, 1, 1, 2, 3]))]


def _random_shape_text(rng: random.Random) -> str:
    etype = rng.choice(ETYPES)
    dims = _random_dims(rng)
    text = f"{etypes.short_name(etype)}[{','.join(map(str, dims))}]"
    if rng.random() < 0.1:
        text = f"({text}, {text})"
    return text


def _random_shape(rng: random.Random) -> Shape:
    return parse_shape(_random_shape_text(rng))


def _random_value(rng: random.Random, etype: PrimitiveType, dims: tuple[int, ...]) -> Any:
    dtype = etypes.etype_to_dtype(etype)
    raw = rng.choice([np.zeros(dims), np.ones(dims), np.full(dims, -1.0), np.full(dims, 3.0),
                      np.random.default_rng(rng.randrange(2**32)).normal(0, 100, dims), np.full(dims, np.nan),
                      np.full(dims, np.inf)])
    with np.errstate(all="ignore"):
        if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
            raw = np.nan_to_num(raw, nan=0, posinf=1, neginf=-1)
            raw = np.clip(raw, -2, 2) if etypes.bit_width(etype) < 8 else raw
        try:
            return np.asarray(raw).astype(dtype)
        except (TypeError, ValueError, OverflowError):
            return np.zeros(dims, dtype)


def _value_for(rng: random.Random, shape: Shape) -> Any:
    if shape.is_tuple():
        return tuple(_value_for(rng, s) for s in shape.tuple_shapes())
    if shape.is_token():
        return rng.choice([None, ()])
    return _random_value(rng, shape.element_type(), shape.dimensions())


class CallFuzzer:
    def __init__(self, seed: int, backends: tuple[str, ...] = ("reference", "jax"), execute_share: float = 0.2) -> None:
        self.rng = random.Random(seed)
        np.random.seed(seed % 2**32)
        self.specs = sorted(specs.load_all().values(), key=lambda s: s.name)
        self.backends = backends
        self.execute_share = execute_share
        # every attribute value of every example, by argument name: plausible values in the wrong place
        self.seen: dict[str, list[Any]] = collections.defaultdict(list)
        for spec in self.specs:
            for ex in (*spec.examples, *spec.errors):
                for name, value in ex.attrs.items():
                    self.seen[name].append(value)
        self.all_seen = [v for values in self.seen.values() for v in values]

    # -- values ---------------------------------------------------------------------------------
    def _junk(self) -> Any:
        rng = self.rng
        pick = rng.random()
        if pick < 0.45:
            return rng.choice(JUNK)
        if pick < 0.7:
            return rng.choice(self.all_seen)
        if pick < 0.8:
            return _random_shape_text(rng)
        if pick < 0.9:
            return [rng.choice([-3, -1, 0, 1, 2, 3, 5, 2**31]) for _ in range(rng.randrange(4))]
        return rng.choice([rng.randrange(-5, 10), rng.uniform(-5, 5), 2**rng.randrange(70)])

    def _mutate(self, spec: Any, inputs: dict[str, Any], attrs: dict[str, Any]) -> tuple[dict, dict]:
        rng = self.rng
        inputs, attrs = dict(inputs), dict(attrs)
        for name in list(attrs):
            roll = rng.random()
            if roll < 0.2:
                attrs[name] = self._junk()
            elif roll < 0.3 and self.seen.get(name):
                attrs[name] = rng.choice(self.seen[name])
            elif roll < 0.33:
                del attrs[name]
        for a in spec.args:
            if a.kind in ("attribute", "computation") and a.name not in attrs and rng.random() < 0.1:
                attrs[a.name] = self._junk()
        for name, value in list(inputs.items()):  # operands of random shapes (conformance's inputs: Shapes)
            if rng.random() < 0.2:
                if isinstance(value, list):
                    inputs[name] = [_random_shape(rng) for _ in range(rng.choice([0, 1, len(value), 3]))]
                else:
                    inputs[name] = _random_shape(rng)
        return inputs, attrs

    # -- one call -------------------------------------------------------------------------------
    def call(self, result: FuzzResult) -> None:
        rng = self.rng
        spec = rng.choice(self.specs)
        roll = rng.random()
        kind = "blind" if roll < 0.15 else "executed" if roll < 0.15 + self.execute_share else "mutated"
        result.kinds[kind] += 1
        result.ops.add(spec.name)
        self.description = ""
        try:
            if kind == "blind":
                self._blind(spec)
            else:
                self._mutated(spec, execute=kind == "executed", result=result)
            outcome = "ok"
        except XlaRuntimeError as e:
            outcome = type(e).__name__
        except Exception as e:  # noqa: BLE001 - what the fuzzer looks for
            if _raised_in_harness(e):
                result.outcomes["harness"] += 1
                result.calls += 1
                return
            outcome = "foreign"
            result.foreign.append(Foreign(spec.name, kind, self.description[:800],
                                          f"{type(e).__name__}: {e}"[:500]))
        result.outcomes[outcome] += 1
        result.calls += 1

    def _blind(self, spec: Any) -> str:
        rng = self.rng
        b = XlaBuilder("blind")
        x = ops.Parameter(b, 0, Shape.array_shape(rng.choice(ETYPES), _random_dims(rng)), "x")
        pool = [x, x, b, [x], [x, x], XlaBuilder("other"), self._computation(), *(self._junk() for _ in range(3))]
        args = [rng.choice(pool) for _ in range(rng.randrange(6))]
        names = [a.name for a in spec.args]
        kwargs = {n: rng.choice(pool) for n in rng.sample(names, k=min(len(names), rng.randrange(3)))}
        description = self.description = f"ops.{spec.name}(*{args!r}, **{kwargs!r})"
        getattr(ops, spec.name)(*args, **kwargs)
        return description

    def _computation(self) -> XlaComputation:
        rng = self.rng
        sub = XlaBuilder("sub")
        etype = rng.choice([PrimitiveType.F32, PrimitiveType.S32, PrimitiveType.PRED])
        params = [ops.Parameter(sub, i, Shape.scalar_shape(etype), f"p{i}") for i in range(rng.choice([0, 1, 2, 3]))]
        if not params:
            ops.Constant(sub, np.float32(1))
        elif etype == PrimitiveType.PRED:
            ops.Not(params[0])
        else:
            ops.Add(params[0], params[-1])
        return sub.build()

    def _mutated(self, spec: Any, execute: bool, result: FuzzResult) -> str:
        rng = self.rng
        bases = [*spec.examples, *spec.errors]
        if not bases:
            return self._blind(spec)
        base = rng.choice(bases)
        inputs, attrs = self._mutate(spec, base.inputs, base.attrs) if not execute or rng.random() < 0.5 \
            else (dict(base.inputs), dict(base.attrs))
        self.description = f"build_case({spec.name}, inputs={inputs!r}, attrs={attrs!r})"
        computation, args = build_case(spec, inputs, attrs)
        description = self.description
        if execute and _small(computation):
            result.executed += 1
            backend = rng.choice(self.backends)
            arguments = self._arguments(computation, args)
            description += f" executed on {backend} with {arguments!r}"
            self.description = description
            devices = getattr(base, "devices", None) or 1
            replicas = devices if isinstance(devices, int) else 1
            get_backend(backend).execute(computation, arguments, replicas=replicas, timeout=RUN_TIMEOUT)
        return description

    def _arguments(self, computation: XlaComputation, args: list[Any]) -> Any:
        rng = self.rng
        roll = rng.random()
        shapes = [p.shape for p in computation.parameters]
        if roll < 0.4:
            return args
        if roll < 0.75:
            return [_value_for(rng, s) for s in shapes]
        if roll < 0.85 and shapes:  # one argument of another type or shape
            out = [_value_for(rng, s) for s in shapes]
            k = rng.randrange(len(out))
            out[k] = _random_value(rng, rng.choice(ETYPES), tuple(_random_dims(rng)))
            return out
        if roll < 0.92:
            return [*args, np.float32(1)] if rng.random() < 0.5 else args[:-1]
        return rng.choice([None, "x", [None] * len(shapes), [object()] * len(shapes), {"a": 1}, 3])


def _raised_in_harness(error: BaseException) -> bool:
    """Whether ``error`` was raised by conformance's reader of the specs' computation descriptions (a malformed
    description in place of a sub-computation: the harness's input, not the builder's)."""
    frames = traceback.extract_tb(error.__traceback__)
    readers = [k for k, f in enumerate(frames) if f.filename.endswith(_BUILD) and f.name in _DESCRIPTION_READERS]
    if not readers:
        return False
    # raised while reading a description, and not from inside an op function it called
    return not any(f.filename.endswith(_OPS) for f in frames[readers[-1] + 1:])


_BUILD = os.path.join("conformance", "build.py")
_OPS = os.path.join("backend", "ops.py")
_DESCRIPTION_READERS = frozenset({"computation_from_description", "_description_params", "_description_step",
                                  "_comparator", "_scan_body"})


def _small(computation: XlaComputation) -> bool:
    for comp in (computation, *computation.subcomputations()):
        for inst in comp.instructions:
            for leaf in inst.shape.leaf_shapes():
                if leaf.is_array() and leaf.element_count() > MAX_ELEMENTS:
                    return False
    return True


def fuzz_calls(calls: int, seed: int = 0, backends: tuple[str, ...] = ("reference", "jax"),
               execute_share: float = 0.2) -> FuzzResult:
    """``calls`` random calls (see the module's docstring); the result counts outcomes and keeps every foreign one."""
    fuzzer = CallFuzzer(seed, backends, execute_share)
    result = FuzzResult()
    start = time.perf_counter()
    for _ in range(calls):
        fuzzer.call(result)
    result.seconds = time.perf_counter() - start
    return result
