"""Runs cases on a backend and records one result per case."""

from __future__ import annotations

import dataclasses
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

import specs
from backend.errors import OpError, UnsupportedError
from conformance.build import build_case, reproduction
from conformance.cases import ERROR, Case
from conformance.compare import mismatch_mask
from conformance.outcomes import SPEC, Mismatch, check_profile, judge

PASSED, FAILED, UNSUPPORTED, IMPL_DEFINED = "passed", "failed", "unsupported", "impl-defined"


@dataclasses.dataclass
class Result:
    case: Case
    status: str
    message: str = ""
    reproduction: str = ""
    seconds: float = 0.0
    chosen: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)  # id -> {outcome: elements}


def run_case(case: Case, backend: Any, profile: str = SPEC) -> Result:
    """Run one case; ``profile`` is ``spec`` (allowed implementation-defined outcomes) or ``xla``."""
    check_profile(profile)
    start = time.perf_counter()
    result = _run(case, backend, profile)
    result.seconds = time.perf_counter() - start
    if result.status == FAILED:
        result.reproduction = reproduction(case, backend.name)
    return result


def _run(case: Case, backend: Any, profile: str) -> Result:
    spec = specs.get(case.op)
    if case.kind == ERROR:
        try:
            build_case(spec, case.inputs, case.attrs)
        except OpError as e:
            if e.constraint == case.violates:
                return Result(case, PASSED, str(e))
            return Result(case, FAILED, f"expected an OpError for {case.violates}, got one for {e.constraint}: {e}")
        except Exception as e:  # any other exception escaping the builder is a failure
            return Result(case, FAILED, f"expected OpError({case.violates}), got {type(e).__name__}: {e}")
        return Result(case, FAILED, f"expected OpError({case.violates}), but the op built without error")
    try:
        comp, args = build_case(spec, case.inputs, case.attrs)
    except Exception as e:
        return Result(case, FAILED, f"building failed: {type(e).__name__}: {e}")
    if len(comp.parameters) > len(args):
        args = [case.expected]  # the op is itself a parameter: bind it to the expected value
    reason = backend.supports(comp)
    if reason:
        return Result(case, UNSUPPORTED, reason)
    try:
        outputs = backend.execute(comp, args)
    except UnsupportedError as e:
        return Result(case, UNSUPPORTED, str(e))
    except Exception as e:
        return Result(case, FAILED, f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}")
    expected = list(case.expected) if isinstance(case.expected, tuple) else [case.expected]
    if len(outputs) != len(expected):
        return Result(case, FAILED, f"got {len(outputs)} outputs, expected {len(expected)}")
    root = comp.root_instruction
    result_shapes = root.shape.tuple_shapes() if root.shape.is_tuple() else (root.shape,)
    mismatches = []
    for i, (out, exp, shape) in enumerate(zip(outputs, expected, result_shapes)):
        out_arr, exp_arr = np.asarray(out), np.asarray(exp)
        if out_arr.dtype != exp_arr.dtype or out_arr.shape != exp_arr.shape:
            return Result(case, FAILED, f"output {i}: got {out_arr.dtype}{list(out_arr.shape)}, expected "
                          f"{exp_arr.dtype}{list(exp_arr.shape)}")
        bound = spec.tolerance.for_type(shape.element_type()) if shape.is_array() else None
        mask = mismatch_mask(out_arr, exp_arr, bound)
        if mask.any():
            mismatches.append(Mismatch(i, out_arr, exp_arr, bound, mask))
    if not mismatches:
        return Result(case, PASSED)
    verdict = judge(case, spec, comp, args, mismatches, profile)
    if not verdict.excused:
        return Result(case, FAILED, verdict.message)
    chosen = {key: dict(c) for key, c in verdict.chosen.items()}
    if profile == SPEC:
        return Result(case, IMPL_DEFINED, f"implementation-defined: {verdict.message}", chosen=chosen)
    return Result(case, PASSED, f"XLA's outcome where the reference departs from it: {verdict.message}", chosen=chosen)


def run_cases(cases: Iterable[Case], backend: Any, progress: Callable[[Result], None] | None = None,
              profile: str = SPEC) -> list[Result]:
    check_profile(profile)
    results = []
    for case in cases:
        result = run_case(case, backend, profile)
        results.append(result)
        if progress:
            progress(result)
    return results
