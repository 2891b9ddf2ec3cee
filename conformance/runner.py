"""Runs cases on a backend and records one result per case."""

from __future__ import annotations

import dataclasses
import re
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

import specs
from backend.errors import OpError, UnsupportedError
from conformance.build import build_case, device_arguments, reproduction
from conformance.cases import ERROR, PROGRAM, Case, program_name
from conformance.check_program import ProgramReport, check_corpus_program
from conformance.outcomes import SPEC, Mismatch, check_profile, judge
from conformance.tolerance import describe_mismatch, mismatch_mask

PASSED, FAILED, UNSUPPORTED, IMPL_DEFINED = "passed", "failed", "unsupported", "impl-defined"
#: Recorded by the isolating runner (conformance/isolation.py) when the process running a case dies
#: or exits (CRASHED) or runs past its time limit (TIMED_OUT); both count as failures.
CRASHED, TIMED_OUT = "crashed", "timed out"
FAILURES = (FAILED, CRASHED, TIMED_OUT)
#: Cases run together by a backend that runs batches (one compiled program for all; see run_batch):
#: per case, compiling 32 together costs about a third of compiling each alone.
DEFAULT_BATCH_SIZE = 32


#: What a message may not hold as it is: lone surrogates (no encoding can write them), control characters other
#: than tab and newline (terminal escapes; XML cannot hold them) and the non-characters U+FFFE, U+FFFF.
_UNSAFE_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _safe_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\ufffd" if code >= 0xD800 else f"\\x{code:02x}"


def clean_text(text: Any) -> str:
    """``text`` as a string every report format can hold: a lone surrogate becomes U+FFFD, a control character
    (other than tab and newline) its escape ``\\xNN``."""
    text = text if isinstance(text, str) else str(text)
    return _UNSAFE_TEXT.sub(_safe_char, text) if _UNSAFE_TEXT.search(text) else text


def _clean(value: Any) -> Any:
    """A JSON value with every string :func:`clean_text`."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


@dataclasses.dataclass
class Result:
    """One case's result. Its texts are :func:`clean_text`: a backend's message with a lone surrogate or control
    characters cannot break the journal, the report, the JUnit XML or the terminal."""

    case: Case
    status: str
    message: str = ""
    reproduction: str = ""
    seconds: float = 0.0
    chosen: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)  # id -> {outcome: elements}
    outcome: str = ""  # set by an xfail manifest (conformance/manifest.py): the status before it applied
    reason: str = ""  # the xfail or skip manifest entry's reason
    program: dict[str, Any] | None = None  # a program case's details (ProgramReport.details): outputs, localised op

    def __post_init__(self) -> None:
        self.message = clean_text(self.message)
        self.reproduction = clean_text(self.reproduction)
        self.reason = clean_text(self.reason)
        if self.program is not None:
            self.program = _clean(self.program)


def run_case(case: Case, backend: Any, profile: str = SPEC, backend_spec: str | None = None) -> Result:
    """Run one case; ``profile`` is ``spec`` (allowed implementation-defined outcomes) or ``xla``. A failure's
    reproduction loads the backend with ``get_backend(backend_spec)`` (default: the backend's name), so a backend
    given as ``module:attribute`` is named so."""
    check_profile(profile)
    start = time.perf_counter()
    if case.kind == PROGRAM:
        result = _run_program(case, backend, profile, backend_spec)
    else:
        result = _run(case, backend, profile)
    result.seconds = time.perf_counter() - start
    if result.status in FAILURES and not result.reproduction:
        result.reproduction = reproduction(case, backend_spec or backend.name)
    return result


def _run_program(case: Case, backend: Any, profile: str, backend_spec: str | None) -> Result:
    """A corpus program on the backend against the reference (conformance/check_program.py)."""
    try:
        report = check_corpus_program(program_name(case), backend, profile, backend_spec)
    except (OSError, OpError, UnsupportedError) as e:  # ours: the program does not import or run on the reference
        return Result(case, FAILED, f"the program cannot be read or run on the reference: {e}")
    except SystemExit as e:
        return Result(case, CRASHED, f"execute() called sys.exit({e.code!r})")
    except Exception as e:
        return Result(case, FAILED, f"checking the program raised {_exception_head(e)}")
    return program_result(case, report)


def program_result(case: Case, report: ProgramReport) -> Result:
    """The result of a program case from its check's report: its verdict, the localised op's reproduction."""
    return Result(case, report.status, report.verdict(), report.localised.reproduction if report.localised else "",
                  report.seconds, program=report.details())


def _run(case: Case, backend: Any, profile: str) -> Result:
    if case.device_count > 1:
        return _run_on_devices(case, specs.get(case.op), backend, profile)
    if case.devices is not None:  # one device, named 1x1: a one-device case with a per-device expected value
        case = dataclasses.replace(case, devices=None, expected=case.expected[0] if case.kind != ERROR else None)
        if case.kind == ERROR:
            return _run_device_error(case, specs.get(case.op), backend, 1, 1)
    built = _build(case)
    if isinstance(built, Result):
        return built
    spec, comp, args, expected = built
    outfeed: list[Any] = []
    outcome = _execute(case, backend, comp, args, len(expected), outfeed)
    if isinstance(outcome, Result):
        return outcome
    return _judge(case, spec, comp, args, expected, outcome, outfeed, profile)


def _built(case: Case, spec: Any) -> Result | tuple[Any, list[Any]]:
    """The case's computation and arguments, or the failure when it does not build or the reference crashed
    generating it."""
    try:
        comp, args = build_case(spec, case.inputs, case.attrs, case.operand_form)
    except Exception as e:
        return Result(case, FAILED, f"building failed: {type(e).__name__}: {e}")
    if case.generation_error:
        return Result(case, FAILED, f"the reference crashed generating this case: {case.generation_error}")
    return comp, args


def _build(case: Case) -> Result | tuple[Any, Any, list[Any], list[Any]]:
    """The case's spec, computation, arguments and expected outputs, or its result when it ends here
    (an error case, a computation that does not build, a reference crash while generating it)."""
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
    built = _built(case, spec)
    if isinstance(built, Result):
        return built
    comp, args = built
    if len(comp.parameters) > len(args):
        args = [case.expected]  # the op is itself a parameter: bind it to the expected value
    expected = tuple_leaves(case.expected)
    return spec, comp, args, expected


def _judge(case: Case, spec: Any, comp: Any, args: list[Any], expected: list[Any], outputs: list[np.ndarray],
           outfeed: list[Any], profile: str) -> Result:
    """The result of a case whose backend returned ``outputs`` (and wrote ``outfeed``)."""
    if case.outfeed is not None:
        problem = _outfeed_mismatch(outfeed, case.outfeed)
        if problem:
            return Result(case, FAILED, problem)
    mismatches = _mismatches(spec, comp, outputs, expected)
    if isinstance(mismatches, str):
        return Result(case, FAILED, mismatches)
    if not mismatches:
        return Result(case, PASSED)
    verdict = judge(case, spec, comp, args, mismatches, profile)
    if not verdict.excused:
        return Result(case, FAILED, verdict.message)
    return _excused(case, verdict, profile)


def _mismatches(spec: Any, comp: Any, outputs: list[Any], expected: list[Any]) -> list[Mismatch] | str:
    """The outputs that differ from the expected ones beyond the tolerance, or why they cannot be compared."""
    root = comp.root_instruction
    result_shapes = root.shape.leaf_shapes()
    mismatches = []
    for i, (out, exp, shape) in enumerate(zip(outputs, expected, result_shapes)):
        out_arr, exp_arr = np.asarray(out), np.asarray(exp)
        if out_arr.dtype != exp_arr.dtype or out_arr.shape != exp_arr.shape:
            return f"output {i}: got {out_arr.dtype}{list(out_arr.shape)}, expected {exp_arr.dtype}{list(exp_arr.shape)}"
        bound = spec.tolerance.for_type(shape.element_type(), root.attrs) if shape.is_array() else None
        mask = mismatch_mask(out_arr, exp_arr, bound)
        if mask.any():
            mismatches.append(Mismatch(i, out_arr, exp_arr, bound, mask, tuple(outputs)))
    return mismatches


def _excused(case: Case, verdict: Any, profile: str) -> Result:
    chosen = {key: dict(c) for key, c in verdict.chosen.items()}
    if profile == SPEC:
        return Result(case, IMPL_DEFINED, f"implementation-defined: {verdict.message}", chosen=chosen)
    return Result(case, PASSED, f"XLA's outcome where the reference departs from it: {verdict.message}", chosen=chosen)


def _run_device_error(case: Case, spec: Any, backend: Any, replicas: int, partitions: int) -> Result:
    """An error example with devices: the op builds, and execute on that many devices reports the constraint."""
    try:
        comp, args = build_case(spec, case.inputs, case.attrs)
    except Exception as e:
        return Result(case, FAILED, f"expected the op to build (the error is one execute reports), got "
                      f"{type(e).__name__}: {e}")
    count = replicas * partitions
    try:
        if count == 1:
            backend.execute(comp, args)
        else:
            backend.execute(comp, device_arguments(args, count), replicas=replicas, partitions=partitions)
    except OpError as e:
        if e.constraint == case.violates:
            return Result(case, PASSED, str(e))
        return Result(case, FAILED, f"expected an OpError for {case.violates}, got one for {e.constraint}: {e}")
    except UnsupportedError as e:
        return Result(case, UNSUPPORTED, str(e))
    except Exception as e:
        return Result(case, FAILED, f"expected OpError({case.violates}) from execute, got {_exception_head(e)}")
    return Result(case, FAILED, f"expected OpError({case.violates}) from execute on {count} devices, but it ran")


def _run_on_devices(case: Case, spec: Any, backend: Any, profile: str) -> Result:
    """A case on replicas x partitions devices: every device's result against its expected one."""
    replicas, partitions = case.devices  # type: ignore[misc]
    count = replicas * partitions
    if case.kind == ERROR:
        return _run_device_error(case, spec, backend, replicas, partitions)
    built = _built(case, spec)
    if isinstance(built, Result):
        return built
    comp, args = built
    device_args = device_arguments(args, count)
    expected = [list(e) if isinstance(e, tuple) else [e] for e in case.expected]
    outputs = _call_backend(case, backend, comp, device_args, replicas=replicas, partitions=partitions)
    if isinstance(outputs, Result):
        return outputs
    if not isinstance(outputs, (list, tuple)) or len(outputs) != count:
        return Result(case, FAILED, f"execute() on {count} devices returned {type(outputs).__name__} "
                      f"{len(outputs) if isinstance(outputs, (list, tuple)) else ''}, not {count} per-device results")
    per_device = {}
    for d in range(count):
        if not isinstance(outputs[d], (list, tuple)) or len(outputs[d]) != len(expected[d]):
            return Result(case, FAILED, f"device {d}: execute() returned {outputs[d]!r:.200}, expected "
                          f"{len(expected[d])} outputs")
        mismatches = _mismatches(spec, comp, [np.asarray(o) for o in outputs[d]], expected[d])
        if isinstance(mismatches, str):
            return Result(case, FAILED, f"device {d}: {mismatches}")
        if mismatches:
            per_device[d] = mismatches
    if not per_device:
        return Result(case, PASSED)
    from backend.reference.allowed import root_outcomes_per_device

    tables = root_outcomes_per_device(comp, device_args, replicas, partitions) if spec.implementation_defined \
        else [{}] * count
    verdicts = []
    for d, mismatches in per_device.items():
        verdict = judge(case, spec, comp, device_args[d], mismatches, profile, tables[d])
        if not verdict.excused:
            return Result(case, FAILED, f"device {d}: {verdict.message}")
        verdicts.append(verdict)
    merged = verdicts[0]
    for v in verdicts[1:]:
        for key, c in v.chosen.items():
            merged.chosen.setdefault(key, c.__class__()).update(c)
    return _excused(case, merged, profile)


def _outfeed_mismatch(got: list[Any], expected: tuple[Any, ...]) -> str | None:
    """How the outfeed values differ from the expected ones (exactly: Outfeed copies values), or None."""
    flat_got = [np.asarray(x) for v in got for x in (v if isinstance(v, tuple) else (v,))]
    flat_exp = [np.asarray(x) for v in expected for x in (v if isinstance(v, tuple) else (v,))]
    if len(got) != len(expected) or len(flat_got) != len(flat_exp):
        return f"outfeed: got {len(got)} values, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(flat_got, flat_exp)):
        if g.dtype != e.dtype or g.shape != e.shape:
            return f"outfeed value {i}: got {g.dtype}{list(g.shape)}, expected {e.dtype}{list(e.shape)}"
        mask = mismatch_mask(g, e, None)
        if mask.any():
            return f"outfeed value {i} differs: {describe_mismatch(g, e, mask)}"
    return None


def _execute(case: Case, backend: Any, comp: Any, args: list[Any], n_expected: int,
             outfeed: list[Any] | None = None) -> Result | list[np.ndarray]:
    """The backend's outputs, or the result recording why there are none (a case with infeed values
    or expected outfeed values passes ``infeed=`` and ``outfeed=`` to the backend).

    Only an explicit refusal (``supports()`` giving a reason, ``UnsupportedError``) is unsupported;
    any other exception, a ``sys.exit``, or outputs that are not a list of ``n_expected`` arrays fail.
    """
    if case.infeed or case.outfeed is not None:
        outputs = _call_backend(case, backend, comp, args, infeed=list(case.infeed), outfeed=outfeed)
    else:
        outputs = _call_backend(case, backend, comp, args)
    return outputs if isinstance(outputs, Result) else _checked_outputs(case, outputs, n_expected)


def _call_backend(case: Case, backend: Any, comp: Any, args: Any, **options: Any) -> Any:
    """``backend.execute(comp, args, **options)``, or the result recording why there is no output: a refusal
    (``supports()``, ``UnsupportedError``) is unsupported, a ``sys.exit`` a crash, any other exception a
    failure."""
    refusal = _refusal(case, backend, comp)
    if refusal is not None:
        return refusal
    try:
        return backend.execute(comp, args, **options)
    except UnsupportedError as e:
        return Result(case, UNSUPPORTED, str(e))
    except SystemExit as e:
        return Result(case, CRASHED, f"execute() called sys.exit({e.code!r})")
    except Exception as e:
        return Result(case, FAILED, f"execute() raised {_exception_head(e)}")


def _refusal(case: Case, backend: Any, comp: Any) -> Result | None:
    """The result of a case the backend's ``supports()`` refuses (or fails on), else None."""
    try:
        reason = backend.supports(comp)
    except SystemExit as e:
        return Result(case, CRASHED, f"supports() called sys.exit({e.code!r})")
    except Exception as e:
        return Result(case, FAILED, f"supports() raised {_exception_head(e)}")
    if reason is not None and not isinstance(reason, str):
        return Result(case, FAILED, f"supports() returned {type(reason).__name__}, not a reason string or None")
    if reason:
        return Result(case, UNSUPPORTED, reason)
    return None


def _checked_outputs(case: Case, outputs: Any, n_expected: int) -> Result | list[np.ndarray]:
    """``outputs`` as arrays, or the failure when they are not a list of ``n_expected`` arrays."""
    if not isinstance(outputs, (list, tuple)):
        return Result(case, FAILED, f"execute() returned {type(outputs).__name__}, not a list of {n_expected} arrays")
    outputs = tuple_leaves(tuple(outputs))  # a nested tuple result (AsyncStart's) compares leaf by leaf
    if len(outputs) != n_expected:
        return Result(case, FAILED, f"execute() returned {len(outputs)} outputs, expected {n_expected}")
    arrays = []
    for i, out in enumerate(outputs):
        try:
            arr = np.asarray(out)
        except Exception as e:
            return Result(case, FAILED, f"output {i} is not an array: {type(e).__name__}: {e}")
        if arr.dtype == object:
            return Result(case, FAILED, f"output {i} is a {type(out).__name__}, not an array")
        arrays.append(arr)
    return arrays


def tuple_leaves(value: Any) -> list[Any]:
    """The arrays of a value, nested tuples flattened depth-first (an array: itself)."""
    return [leaf for v in value for leaf in tuple_leaves(v)] if isinstance(value, tuple) else [value]


def _exception_head(e: BaseException) -> str:
    """``Type: message`` and the head of the traceback, with the chained causes (the backend's own frames)."""
    lines = traceback.format_exception(e, limit=6)
    text = "".join(lines).rstrip()
    if len(text) > 4000:
        text = text[:2000] + "\n...\n" + text[-2000:]
    return f"{type(e).__name__}: {e}\n{text}"


def run_cases(cases: Iterable[Case], backend: Any, progress: Callable[[Result], None] | None = None,
              profile: str = SPEC, batch_size: int = DEFAULT_BATCH_SIZE, backend_spec: str | None = None
              ) -> list[Result]:
    """Every case's result, in order; consecutive cases run ``batch_size`` at a time (see :func:`run_batch`)."""
    check_profile(profile)
    results = []
    for batch in batches(cases, batch_size):
        for result in run_batch(batch, backend, profile, backend_spec):
            results.append(result)
            if progress:
                progress(result)
    return results


T = TypeVar("T")


def batches(items: Iterable[T], size: int, case_of: Callable[[T], Case] = lambda case: case) -> Iterator[list[T]]:
    """``items`` (cases, or whatever ``case_of`` maps to one) in consecutive lists of at most ``size``, taken
    lazily; a batch holds one op's cases only, so that a change to one op's cases leaves the other ops'
    programs (and jax's persistent compilation cache entries for them) as they were."""
    batch: list[T] = []
    for item in items:
        if batch and (len(batch) >= max(1, size) or case_of(item).op != case_of(batch[-1]).op):
            yield batch
            batch = []
        batch.append(item)
    if batch:
        yield batch


def run_batch(cases: Sequence[Case], backend: Any, profile: str = SPEC,
              backend_spec: str | None = None) -> Iterator[Result]:
    """The results of ``cases``, in order, each as :func:`run_case` gives it.

    A backend with ``execute_batch(items) -> [outputs or exception]`` (the jax backend: one program
    compiled for all, see ``JaxBackend.execute_batch``) runs the cases that execute plainly together;
    each one's outputs are judged as :func:`run_case` judges them. A case that fails that way (or whose
    item raised) is run again on its own, and that run is its result: a failure is always what the case
    does alone, as its reproduction shows. Error cases, cases with infeed or outfeed values or several
    devices, cases the backend refuses and backends without ``execute_batch`` run one by one. A batched case's ``seconds``
    are its own building and judging plus its share of the batch's execution.
    """
    check_profile(profile)
    execute_batch = getattr(backend, "execute_batch", None)
    if execute_batch is None or len(cases) < 2:
        yield from (run_case(case, backend, profile, backend_spec) for case in cases)
        return
    built: dict[int, tuple[float, tuple[Any, Any, list[Any], list[Any]]]] = {}
    for k, case in enumerate(cases):
        if case.kind in (ERROR, PROGRAM) or case.infeed or case.outfeed is not None or case.devices is not None:
            continue
        start = time.perf_counter()
        parts = _build(case)
        if not isinstance(parts, Result) and _refusal(case, backend, parts[1]) is None:
            built[k] = (time.perf_counter() - start, parts)
    outputs: dict[int, Any] = {}
    share = 0.0
    if len(built) > 1:
        start = time.perf_counter()
        try:
            outputs = dict(zip(built, execute_batch([(parts[1], parts[2]) for _, parts in built.values()])))
        except Exception:  # noqa: BLE001 - the cases run one by one instead, which reports each one's error
            outputs = {}
        share = (time.perf_counter() - start) / len(built)
    for k, case in enumerate(cases):
        out = outputs.get(k)
        if out is not None and not isinstance(out, BaseException):
            start = time.perf_counter()
            own, (spec, comp, args, expected) = built[k]
            checked = _checked_outputs(case, out, len(expected))
            result = checked if isinstance(checked, Result) else _judge(case, spec, comp, args, expected, checked,
                                                                        [], profile)
            if result.status not in FAILURES:
                result.seconds = own + share + time.perf_counter() - start
                yield result
                continue
        yield run_case(case, backend, profile, backend_spec)
