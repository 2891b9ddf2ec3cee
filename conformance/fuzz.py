"""Differential search: random valid programs run on the reference and on jax, every difference reported.

Programs are drawn from the specs, program k of a search from a NumPy generator seeded with
(seed, k), so a seed fixes the search whatever the interpreter imported before it: an op from ``specs.load_all()``, an element type from the types its generated cases range over, a
generator config (or free shapes for configs that leave them open), and operand values in one of
three modes (the spec's value hints, free values with special values mixed in, wide values). A
program chains 1 to ``max_steps`` ops: each later op takes the previous result as one operand
(one whose type and shape fit) and fresh parameters for the others. Only programs the builder
accepts are kept, so new ops with specs are searched with no change here.

A single-op program is judged exactly as the conformance runner judges a case (tolerance and
implementation-defined masks included), the expected value coming from the reference. A chain
whose final results differ is localized: each op is re-run alone on the reference's intermediate
values; the first op that fails there is the disagreement (with a single-op reproduction). When
every op agrees alone, the difference is ``propagated`` (an excused difference or a tolerated
rounding grown along the chain, or a sign of zero XLA's simplifier changed across ops) if some op is
inexact or excused, else a whole-program disagreement.
"""

from __future__ import annotations

import collections
import dataclasses
import re
import traceback
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

import specs
from backend import ops
from backend.errors import OpError, UnsupportedError
from backend.hlo import etypes
from backend.hlo.builder import XlaBuilder
from backend.hlo.graph import XlaComputation
from backend.hlo.shape import Shape
from conformance.build import REPRODUCTION_IMPORTS, _array_literal, add_op
from conformance.cases import GENERATED, Case
from conformance.fuzz_departures import FINDINGS_PAGE, departure_of
from conformance.generate import STANDARD_SHAPES, candidate_types, draw_inputs, type_var
from conformance.runner import FAILED, IMPL_DEFINED, PASSED, UNSUPPORTED, run_case
from conformance.tolerance import mismatch_mask

# Outcomes of one program.
AGREE, EXCUSED, PROPAGATED, SKIPPED, INVALID, KNOWN, DISAGREE, SUITE_ERROR = (
    "agree", "excused", "propagated", "unsupported", "invalid values", "known departure", "disagree", "suite error")
VALUE_MODES = ("spec", "free", "wide")
# Ops whose value is bound by the runner rather than computed (nothing to compare).
_NOT_FUZZED = frozenset({"Parameter"})


@dataclasses.dataclass(frozen=True)
class Step:
    """One op of a program: its operand values (new parameters), attributes, and the operand that
    takes the previous step's result (None for the first step)."""

    op: str
    inputs: dict[str, Any]
    attrs: dict[str, Any]
    chained: str | None = None


@dataclasses.dataclass(frozen=True)
class Program:
    steps: tuple[Step, ...]

    def build(self, all_results: bool = False) -> tuple[XlaComputation, list[Any]]:
        """The computation (its root the last step's result, or a tuple of every step's result) and
        its arguments."""
        builder = XlaBuilder("fuzz")
        args: list[Any] = []
        results = []
        for step in self.steps:
            bound = {step.chained: results[-1]} if step.chained else None
            results.append(add_op(builder, specs.get(step.op), step.inputs, step.attrs, args, bound))
        if all_results:
            ops.Tuple(builder, results)
        return builder.build(), [v for v in args if not isinstance(v, Shape)]

    def describe(self) -> str:
        return " -> ".join(f"{s.op}({s.chained})" if s.chained else s.op for s in self.steps)


@dataclasses.dataclass
class Finding:
    """A disagreement: the program, the op found responsible, what differed, and a reproduction."""

    program: Program
    op: str
    message: str
    reproduction: str
    #: The op's operands and attributes as it ran alone (the reference's values for a chained operand); None where
    #: no single op is responsible.
    inputs: dict[str, Any] | None = None
    attrs: dict[str, Any] | None = None

    @property
    def signature(self) -> str:
        """Groups findings of one cause: the op, the element type of the first difference, and the first
        words of the message."""
        etype = re.search(r"got np\.(\w+)\(", self.message)
        return f"{self.op}{' ' + etype.group(1) if etype else ''}: {' '.join(self.message.split()[:3])}"


@dataclasses.dataclass
class FuzzReport:
    programs: int = 0
    outcomes: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    ops: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    steps: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    findings: list[Finding] = dataclasses.field(default_factory=list)
    known: list[Finding] = dataclasses.field(default_factory=list)  # disagreements of a documented departure
    departures: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    excused: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    unsupported: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    interrupted: bool = False

    def record(self, program: Program, outcome: str, finding: Finding | None = None, why: str = "") -> None:
        self.programs += 1
        self.outcomes[outcome] += 1
        self.steps[len(program.steps)] += 1
        self.ops.update(s.op for s in program.steps)
        if finding is not None:
            (self.known if outcome == KNOWN else self.findings).append(finding)
        if outcome == KNOWN:
            self.departures[why] += 1
        elif why:
            (self.unsupported if outcome in (SKIPPED, INVALID) else self.excused)[why] += 1


# -- judging -----------------------------------------------------------------------------------
def judge_case(case: Case, backend: Any) -> tuple[str, str, str]:
    """The conformance runner's verdict on ``case``: (status, message, reproduction).

    The one place the fuzzer uses the runner's comparison (tolerance, implementation-defined
    masks); adapt here when that API changes."""
    result = run_case(case, backend)
    return result.status, result.message, result.reproduction


def _step_case(program: Program, k: int, chained_value: Any, expected: Any) -> Case:
    step = program.steps[k]
    inputs = dict(step.inputs)
    if step.chained:
        inputs[step.chained] = chained_value
    return Case(id=f"fuzz/{k}/{step.op}", op=step.op, kind=GENERATED, inputs=inputs, attrs=dict(step.attrs),
                expected=expected)


def _as_expected(values: list[Any], comp: XlaComputation) -> Any:
    return values[0] if len(values) == 1 and not comp.root_instruction.shape.is_tuple() else tuple(values)


#: A program's outcome, the finding for a disagreement, and what excused an excused/propagated difference.
Verdict = tuple[str, "Finding | None", str]


def judge(program: Program, reference: Any, backend: Any) -> Verdict:
    """(outcome, the finding for a disagreement, what excused an excused/propagated difference)."""
    comp, args = program.build()
    try:
        ref = reference.execute(comp, args)
    except UnsupportedError as e:  # a documented limit of the reference (its supports() names it)
        return SKIPPED, None, f"reference: {e}"
    except OpError as e:  # the values are invalid for the program (a runtime size out of its bound)
        return INVALID, None, f"{type(e).__name__} in {e.op}"
    except Exception as e:  # the builder accepted the program: the reference failing is a bug of ours
        return DISAGREE, Finding(program, program.steps[-1].op, f"reference raised {type(e).__name__}: {e}\n"
                                 f"{traceback.format_exc(limit=3)}", program_reproduction(program)), ""
    if len(program.steps) == 1:
        status, message, repro = judge_case(_step_case(program, 0, None, _as_expected(ref, comp)), backend)
        return _single(program, status, message, repro)
    reason = backend.supports(comp)
    if reason:
        return SKIPPED, None, reason
    try:
        out = backend.execute(comp, args)
        if _same(out, ref, specs.get(program.steps[-1].op), comp):
            return AGREE, None, ""
    except Exception:
        pass  # localized below: the op that raises alone is the finding
    return _localize(program, reference, backend)


def _single(program: Program, status: str, message: str, repro: str) -> tuple[str, Finding | None, str]:
    op = program.steps[0].op
    if status == PASSED:
        return AGREE, None, ""
    if status == IMPL_DEFINED:
        return EXCUSED, None, _excuse(op, message)
    if status == UNSUPPORTED:
        return SKIPPED, None, message
    step = program.steps[0]
    return DISAGREE, Finding(program, op, message, repro, step.inputs, step.attrs), ""


def _excuse(op: str, message: str) -> str:
    """``Op: ids`` of the implementation-defined entries the runner's message names."""
    found = re.search(r"implementation-defined \(([^)]*)\)", message)
    return f"{op}: {found.group(1) if found else 'implementation-defined'}"


def _same(out: list[Any], ref: list[Any], spec: Any, comp: XlaComputation) -> bool:
    root = comp.root_instruction.shape
    shapes = root.tuple_shapes() if root.is_tuple() else (root,)
    if len(out) != len(ref):
        return False
    for o, r, s in zip(out, ref, shapes):
        o, r = np.asarray(o), np.asarray(r)
        if o.dtype != r.dtype or o.shape != r.shape:
            return False
        bound = spec.tolerance.for_type(s.element_type(), comp.root_instruction.attrs) if s.is_array() else None
        if mismatch_mask(o, r, bound).any():
            return False
    return True


def _same_but_zero_signs(out: list[Any], expected: Any) -> bool:
    """Whether the final results differ only in signs of zero: XLA's algebraic simplifier rewrites
    x + 0 to x when the 0 is known at compile time (Imag of a real array, say), so -0 + 0 gives -0
    rather than IEEE's +0; run alone, each op is exact."""
    if len(out) != 1:
        return False
    etype = etypes.dtype_to_etype(np.asarray(expected).dtype)
    if not (etypes.is_float(etype) or etypes.is_complex(etype)):
        return False
    with np.errstate(invalid="ignore"):
        a, e = np.asarray(out[0]).astype(np.complex128), np.asarray(expected).astype(np.complex128)
    if a.shape != e.shape:
        return False
    return all(bool(np.all((pa == pe) | (np.isnan(pa) & np.isnan(pe)))) for pa, pe in ((a.real, e.real), (a.imag, e.imag)))


def _localize(program: Program, reference: Any, backend: Any) -> tuple[str, Finding | None, str]:
    comp, args = program.build(all_results=True)
    values = reference.execute(comp, args)
    excused, inexact = [], False
    for k, step in enumerate(program.steps):
        case = _step_case(program, k, values[k - 1] if k else None, values[k])
        status, message, repro = judge_case(case, backend)
        if status == FAILED:
            return DISAGREE, Finding(program, step.op, f"{message}\n(op {k + 1} of the chain "
                                     f"{program.describe()}, run alone on the reference's operands)", repro,
                                     case.inputs, case.attrs), ""
        if status == UNSUPPORTED:
            return SKIPPED, None, message
        if status == IMPL_DEFINED:
            excused.append(_excuse(step.op, message))
        tolerance = specs.get(step.op).tolerance
        inexact |= any(tolerance.for_type(leaf.element_type(), step.attrs) is not None
                       for leaf in comp.root_instruction.shape.tuple_shapes()[k].leaf_shapes() if leaf.is_array())
    if excused:
        return PROPAGATED, None, excused[0]
    if inexact:
        return PROPAGATED, None, "tolerated rounding"
    if _same_but_zero_signs(backend.execute(*program.build()), values[-1]):
        return PROPAGATED, None, "sign of zero (XLA simplified x + 0 across ops)"
    return DISAGREE, Finding(program, program.steps[-1].op, "the chain differs although every op agrees alone",
                             program_reproduction(program)), ""


# -- drawing programs ------------------------------------------------------------------------
def fuzzable_specs(names: Iterable[str] | None = None) -> list[Any]:
    all_specs = specs.load_all()
    chosen = list(names) if names else list(all_specs)
    return [all_specs[n] for n in chosen if all_specs[n].executable and n not in _NOT_FUZZED]


_T = TypeVar("_T")


class Draws:
    """The choices that make one program, from a NumPy generator: a seed and the specs fix them.

    (hypothesis drew them before: 5% of its draws are constants it collects from the source of every project module
    imported so far, so a seeded search depended on the modules the interpreter had imported and on every literal
    in the project's code.)"""

    def __init__(self, seed: int, index: int) -> None:
        self._rng = np.random.default_rng([seed, index])

    def pick(self, options: Sequence[_T]) -> _T:
        return options[int(self._rng.integers(len(options)))]

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]."""
        return int(self._rng.integers(low, high, endpoint=True))

    def dims(self) -> tuple[int, ...]:
        """Free dimensions: a standard shape or up to 3 sizes in [0, 4]."""
        if self.integer(0, 1):
            return tuple(self.pick(STANDARD_SHAPES))
        return tuple(self.integer(0, 4) for _ in range(self.integer(0, 3)))


def _values_hint(mode: str, spec: Any) -> tuple[dict[str, Any], bool]:
    """Value hints for ``mode`` (the spec's hints, none, or wide values) and whether special values
    are mixed in."""
    if mode == "spec":
        return spec.generator.get("values") or {}, spec.generator.get("special_values", True)
    if mode == "free":
        return {}, True
    return {a.name: {"scale": 1.0e4, "full_range": True} for a in spec.operand_args}, True


def _draw_step(draws: Draws, spec: Any, rng_seed: int, prev: Shape | None) -> Step | None:
    """A step of ``spec`` (chained to a previous result of shape ``prev``), or None when none fits."""
    var = type_var(spec)
    configs = spec.generator.get("configs") or [{}]
    chained = None
    if prev is None:
        config = draws.pick(configs)
        etype = draws.pick(candidate_types(spec))
        dims = draws.dims() if not config.get("shapes") else None
    else:
        fits = [(a, c) for a in spec.operand_args if a.kind == "operand" and a.element is not None
                and prev.element_type() in spec.element_types.get(a.element, ())
                for c in configs if not (c.get("shapes") and a.name in c["shapes"]
                                         and tuple(c["shapes"][a.name]) != prev.dimensions())
                and (c.get("types") or {}).get(a.name) in (None, etypes.short_name(prev.element_type()))]
        if not fits:
            return None
        arg, config = draws.pick(fits)
        chained = arg.name
        if arg.element == var:
            etype = prev.element_type()
        else:
            etype = draws.pick(candidate_types(spec))
        dims = prev.dimensions() if not config.get("shapes") else None
    mode = draws.pick(VALUE_MODES)
    hint, specials = _values_hint(mode, spec)
    drawn = draw_inputs(spec, var, etype, config, dims, np.random.default_rng(rng_seed), hint, specials)
    if drawn is None:
        return None
    inputs, _ = drawn
    if chained:
        inputs.pop(chained, None)
    return Step(spec.name, inputs, dict(config.get("attrs") or {}), chained)


def draw_program(draws: Draws, pool: Sequence[Any], max_steps: int) -> Program | None:
    """A valid program of 1 to ``max_steps`` ops from ``pool``, or None when no first op builds (a chain ends
    early when no op fits the previous result)."""
    n = draws.integer(1, max_steps)
    steps: list[Step] = []
    prev: Shape | None = None
    for k in range(n):
        if prev is not None and not prev.is_array():
            break
        for _attempt in range(4):
            spec = draws.pick(pool)
            step = _draw_step(draws, spec, draws.integer(0, 2 ** 32 - 1), prev)
            if step is None:
                continue
            try:
                comp, _ = Program((*steps, step)).build()
            except OpError:
                continue
            steps.append(step)
            prev = comp.root_instruction.shape
            break
        else:
            if k == 0:
                return None
            break
    return Program(tuple(steps))


# -- running ---------------------------------------------------------------------------------
def fuzz(examples: int, seed: int = 0, op_names: Iterable[str] | None = None, max_steps: int = 5,
         backend: Any = None, progress: Any = None,
         judge_program: Callable[[Program], Verdict] | None = None) -> FuzzReport:
    """Runs ``examples`` random programs on the reference and ``backend`` (default jax).

    ``judge_program`` judges one program; by default :func:`judge` in this process, with no protection from a hang
    or a crash (``conformance.fuzz_isolation.IsolatedJudge`` runs it in a worker process with a time limit)."""
    from backend.backends import get_backend

    pool = fuzzable_specs(op_names)
    target = backend or get_backend("jax")
    if judge_program is None:  # in this process: the reference is loaded here (a worker loads its own)
        reference = get_backend("reference")
        judge_program = lambda program: judge(program, reference, target)  # noqa: E731
    report = FuzzReport()
    try:
        for index in range(_MAX_DRAWS_PER_PROGRAM * examples):
            if report.programs >= examples:
                break
            program = draw_program(Draws(seed, index), pool, max_steps)
            if program is not None:
                _run_one(program, judge_program, getattr(target, "name", ""), report)
                if progress:
                    progress(report)
    except KeyboardInterrupt:  # an interrupted search still reports what it ran
        report.interrupted = True
    return report


#: Draws tried per program asked for before a search stops short (a pool whose ops rarely build).
_MAX_DRAWS_PER_PROGRAM = 20


def _run_one(program: Program, judged: Callable[[Program], Verdict], target_name: str, report: FuzzReport) -> None:
    try:
        outcome, finding, why = judged(program)
        known = departure_of(finding, target_name) if outcome == DISAGREE else None
        if known is not None:
            outcome, why = KNOWN, known.name
    except Exception as e:  # judging raised: a bug of ours, reported with the program, never a stop
        outcome, why = SUITE_ERROR, ""
        finding = Finding(program, program.steps[-1].op, f"the fuzzer raised {type(e).__name__}: {e}, a bug of "
                          f"the suite, not of the backend\n{traceback.format_exc()}", program_reproduction(program))
    report.record(program, outcome, finding, why)


def program_reproduction(program: Program, backends: Sequence[str] = ("reference", "jax")) -> str:
    """A self-contained snippet that rebuilds ``program`` and prints each backend's result."""
    lines = [*REPRODUCTION_IMPORTS, "from backend import XlaBuilder, ops, Shape, "
             "get_backend", "from conformance.build import computation_from_description", "",
             "b = XlaBuilder('fuzz')"]
    values, n = [], 0
    for k, step in enumerate(program.steps):
        spec = specs.get(step.op)
        call, shapes = [], []
        for a in spec.args:
            if a.kind == "builder":
                call.append(f"{a.name}=b")
            elif a.name == step.chained:
                call.append(f"{a.name}=r{k - 1}")
                shapes.append(f"b.get_shape(r{k - 1})")
            elif a.name in step.inputs:
                group = step.inputs[a.name] if a.kind == "operands" else [step.inputs[a.name]]
                names = []
                for v in group:
                    shape = Shape.array_shape(etypes.dtype_to_etype(np.asarray(v).dtype), np.shape(v))
                    lines.append(f"p{n} = ops.Parameter(b, {n}, Shape.array_shape("
                                 f"{shape.element_type().name!r}, {shape.dimensions()}), 'p{n}')")
                    names.append(f"p{n}")
                    shapes.append(f"b.get_shape(p{n})")
                    values.append(_array_literal(v))
                    n += 1
                call.append(f"{a.name}=[{', '.join(names)}]" if a.kind == "operands" else f"{a.name}={names[0]}")
        for name, v in step.attrs.items():
            if isinstance(v, dict) and "op" in v:
                v = f"computation_from_description({v!r}, [{', '.join(shapes)}])"
                call.append(f"{name}={v}")
            else:
                call.append(f"{name}={v!r}")
        lines.append(f"r{k} = ops.{step.op}({', '.join(call)})")
    lines += [f"args = [{', '.join(values)}]", "computation = b.build()"]
    lines += [f"print({name!r}, get_backend({name!r}).execute(computation, args))" for name in backends]
    return "\n".join(lines)


def summary_text(report: FuzzReport, verbose: bool = False) -> str:
    lines = ["(interrupted)"] if report.interrupted else []
    lines += [f"{report.programs} programs ({', '.join(f'{n} op' + ('s' if n > 1 else '') + f': {c}' for n, c in sorted(report.steps.items()))}), "
             f"{len(report.ops)} distinct ops",
             "outcomes: " + ", ".join(f"{k} {report.outcomes[k]}" for k in (AGREE, EXCUSED, PROPAGATED, SKIPPED,
                                                                             INVALID, KNOWN, DISAGREE, SUITE_ERROR)
                                      if k not in (KNOWN, SUITE_ERROR) or report.outcomes[k])]
    if report.excused:
        lines.append("excused: " + ", ".join(f"{k} x{c}" for k, c in report.excused.most_common(12)))
    if report.unsupported:
        lines.append("unsupported: " + ", ".join(f"{k} x{c}" for k, c in report.unsupported.most_common(12)))
    if report.departures:
        lines.append("known departures (not counted as disagreements; each explained in " + FINDINGS_PAGE + "): "
                     + ", ".join(f"{k} x{c}" for k, c in sorted(report.departures.items())))
    groups: dict[str, list[Finding]] = collections.defaultdict(list)
    for f in report.findings:
        groups[f.signature].append(f)
    lines.append(f"{len(report.findings)} disagreements ({len(groups)} distinct)")
    for sig, found in groups.items():
        first = found[0]
        lines.append(f"\nDISAGREEMENT x{len(found)} {sig}\n  program: {first.program.describe()}\n  "
                     f"{first.message.strip()}\n--- reproduction ---\n{first.reproduction}")
        if verbose:
            lines += [f"  also: {f.program.describe()}: {f.message.splitlines()[0]}" for f in found[1:]]
    return "\n".join(lines)
