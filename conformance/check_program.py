"""A whole program (StableHLO text or bytecode, or a ``jax.export`` artifact, imported by
``backend.stablehlo_import``) run on a backend and on the reference with the same inputs.

Each result is judged against the reference's. A program's result carries the rounding of every op before it,
so an output is judged within the larger of its producing op's spec tolerance and the program tolerance
(``PROGRAM_RTOL``, relative to the output's largest reference magnitude). When an output differs, every op of the
entry computation is run alone on the backend with the reference's values of its operands (identical inputs) and
judged with its spec's tolerance and implementation-defined outcomes, exactly as the suite judges a case; the
first op that differs is the localised op, and the report prints its one-op reproduction (the op's StableHLO,
imported and run). When that op has a region (a Reduce's reducer, a Sort's comparator, a Scatter's update
computation...), the region is run alone on the backend on values drawn from the op's operands: when it differs
there, the region is at fault and the op of the region that differs is named (``OpFinding.region``).

``python -m conformance check-program`` (conformance/cli.py) runs one program file; ``conformance run``
runs the corpus (conformance/programs/) as cases of kind ``program`` (conformance/runner.py).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np

import specs
from backend import ops
from backend.backends import get_backend
from backend.errors import ExecutionError, OpError, SpecError, UnsupportedError
from backend.hlo import etypes
from backend.hlo.builder import XlaBuilder
from backend.hlo.graph import Instruction, XlaComputation
from backend.hlo.shape import Shape
from conformance.build import REPRODUCTION_IMPORTS, _array_literal
from conformance.build import reproduction as build_reproduction
from conformance.cases import GENERATED, Case
from conformance.outcomes import SPEC, Mismatch, judge
from conformance.tolerance import describe_mismatch, mismatch_mask
from specs.loader import Bound, PerDevice

#: The program tolerance by floating-point element type: relative to the output's largest reference magnitude.
PROGRAM_RTOL = {"f64": 1e-10, "f32": 1e-4, "f16": 1e-2, "bf16": 5e-2}
#: Opcodes that move values without computing them: never localised.
STRUCTURAL = frozenset({"Parameter", "Tuple", "GetTupleElement"})
PASSED, FAILED, UNSUPPORTED, IMPL_DEFINED = "passed", "failed", "unsupported", "impl-defined"
#: The most iterations of a loop searched for the op that differs inside it.
MAX_LOOP_ITERATIONS = 1000
#: Ops whose region (reducer, comparator, update computation...) is applied to their elements: when one differs,
#: its region is run alone on elements of its operands to tell whether the region is at fault.
REGION_OPS = frozenset({"Reduce", "ReduceWindow", "Sort", "Scatter", "SelectAndScatter", "Map", "AllReduce",
                        "ReduceScatter", "Scan"})
#: How many argument lists a region is run on.
REGION_SAMPLES = 16


@dataclasses.dataclass
class OpFinding:
    """The first op whose output differs on the backend given the reference's values of its operands."""

    index: int  # its position in the entry computation
    name: str  # its instruction name (dot-general.12)
    opcode: str
    message: str
    hlo: str  # the one-op computation's HLO text
    reproduction: str  # a Python snippet that runs it as printed
    region: str = ""  # the op's region at fault (its attribute: to_apply, comparator...), "" when none is
    region_finding: OpFinding | None = None  # the first op of that region that differs, on the values that differ

    def record(self) -> dict[str, Any]:
        """As the report holds it (docs/report_schema.md, ``finding``): without the reproduction, which is the
        case's, and without an empty region."""
        out: dict[str, Any] = {"index": self.index, "name": self.name, "opcode": self.opcode, "message": self.message,
                               "hlo": self.hlo}
        if self.region:
            out["region"] = self.region
        if self.region_finding is not None:
            out["region_finding"] = self.region_finding.record()
        return out

    def summary(self) -> str:
        """One line: the op, and its region when that is at fault."""
        text = f"first op that differs on identical inputs: {self.name} ({self.opcode}, instruction {self.index})"
        if self.region:
            inner = self.region_finding
            text += f"; its region {self.region} is at fault" + (
                f" (in it, {inner.name}: {inner.opcode})" if inner is not None else "")
        return text


@dataclasses.dataclass
class ProgramReport:
    program: str
    backend: str
    status: str
    outputs: list[dict[str, Any]]
    ops: int
    localised: OpFinding | None = None
    seconds: float = 0.0
    message: str = ""
    allowed: str = ""  # the first op that took an outcome its spec allows, when the outputs differ only so

    def details(self) -> dict[str, Any]:
        """The report's ``program`` record of a case (docs/report_schema.md): instructions, outputs' verdicts, the
        localised op (without its reproduction, which is the case's)."""
        out: dict[str, Any] = {"instructions": self.ops, "outputs": self.outputs}
        if self.localised is not None:
            out["localised"] = self.localised.record()
        return out

    def verdict(self) -> str:
        """The message of the program's verdict: the outputs that differ, and where the difference starts."""
        failed = [o for o in self.outputs if o["status"] == FAILED]
        parts = [f"output {o.get('index', '?')} ({o.get('op', '')}): {o['message']}" if o.get("index") is not None
                 else o.get("message", "") for o in failed]
        if self.localised is not None:
            parts += [self.localised.summary(), self.localised.message]
            if self.localised.region_finding is not None:
                parts.append(f"in its region: {self.localised.region_finding.message}")
        if self.message:
            parts.append(self.message)
        return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Programs and inputs


def load_program(path: str | Path) -> XlaComputation:
    """A program file as a computation: StableHLO text (``.mlir``, ``.stablehlo``...), MLIR bytecode or a
    ``jax.export`` artifact."""
    from backend.stablehlo_import import import_module
    data = Path(path).read_bytes()
    try:
        source: str | bytes = data.decode("utf-8")
    except UnicodeDecodeError:
        source = data
    return import_module(source, None)


def draw_inputs(computation: XlaComputation, seed: int = 0) -> list[Any]:
    """Inputs drawn from the parameter shapes: normal floats, small non-negative integers, random booleans."""
    rng = np.random.default_rng(seed)
    return [_draw(rng, s) for s in computation.program_shape().parameter_shapes()]


def _draw(rng: np.random.Generator, shape: Shape) -> Any:
    if shape.is_tuple():
        return tuple(_draw(rng, s) for s in shape.tuple_shapes())
    dims, et = shape.dimensions(), shape.element_type()
    dtype = etypes.etype_to_dtype(et)
    if et == etypes.PrimitiveType.PRED:
        return rng.random(dims) < 0.5
    if etypes.is_int(et):
        return rng.integers(0, 4, dims).astype(dtype)
    if etypes.is_complex(et):
        return (rng.standard_normal(dims) + 1j * rng.standard_normal(dims)).astype(dtype)
    return rng.standard_normal(dims).astype(dtype)


def load_inputs(path: str | Path, computation: XlaComputation) -> list[Any]:
    """The ``.npz`` file's arrays, in parameter order: named ``arg0, arg1...`` or in the file's order."""
    with np.load(path) as data:
        names = list(data.keys())
        ordered = [f"arg{i}" for i in range(len(names))]
        values = [data[n] for n in (ordered if set(ordered) == set(names) else names)]
    shapes = computation.program_shape().parameter_shapes()
    if len(values) != len(shapes):
        raise OpError("check-program", "inputs", f"{path} has {len(values)} arrays, the program takes {len(shapes)}",
                      "inputs")
    for i, (v, s) in enumerate(zip(values, shapes)):
        if s.is_array() and (tuple(v.shape) != tuple(s.dimensions()) or v.dtype != s.numpy_dtype()):
            raise OpError("check-program", "inputs", f"input {i} is {v.dtype}{list(v.shape)}, the program's "
                          f"parameter {i} is {s}", "inputs")
    return values


# ---------------------------------------------------------------------------------------------
# Every value of the program on the reference


#: One device: (replicas, partitions).
ONE_DEVICE = (1, 1)


def program_devices(path: str | Path) -> tuple[int, int]:
    """The (replicas, partitions) a program file runs on (a ``shard_map`` program: its mesh's devices)."""
    from backend.stablehlo_import import device_counts
    data = Path(path).read_bytes()
    try:
        return device_counts(data.decode("utf-8"))
    except UnicodeDecodeError:
        return device_counts(data)


def _replay(computation: XlaComputation, root_all: bool) -> tuple[XlaComputation, list[Instruction]]:
    """The entry computation rebuilt; with ``root_all``, its root a tuple of every instruction's value."""
    b = XlaBuilder(computation.name)
    mapped: dict[int, Any] = {}
    for inst in computation.instructions:
        mapped[inst.id] = b.add_instruction(inst.opcode, [mapped[o] for o in inst.operands], inst.operand_args,
                                            inst.attrs, inst.shape)
    insts = list(computation.instructions)
    if not root_all:
        return b.build(mapped[computation.root]), insts
    return b.build(ops.Tuple(b, [mapped[i.id] for i in insts])), insts


def run_on(backend: Any, computation: XlaComputation, args: list[list[Any]], devices: tuple[int, int] = ONE_DEVICE
           ) -> list[list[Any]]:
    """Each device's outputs (leaves) of the computation run on ``args[d]`` on device ``d`` (one device: a plain
    ``execute``)."""
    replicas, partitions = devices
    if replicas * partitions == 1:
        return [_leaves(backend.execute(computation, args[0]))]
    outputs = backend.execute(computation, args, replicas=replicas, partitions=partitions)
    return [_leaves(o) for o in outputs]


def reference_values(computation: XlaComputation, inputs: list[Any], devices: tuple[int, int] = ONE_DEVICE
                     ) -> list[dict[int, Any]]:
    """Per device, every entry instruction's value on the reference, by instruction id (every device takes
    ``inputs``)."""
    probe, insts = _replay(computation, root_all=True)
    replicas, partitions = devices
    reference = get_backend("reference")
    if replicas * partitions == 1:
        per_device = [reference.execute(probe, inputs)]
    else:
        per_device = reference.execute(probe, [inputs] * (replicas * partitions), replicas=replicas,
                                       partitions=partitions)
    return [{inst.id: v for inst, v in zip(insts, values)} for values in per_device]


# ---------------------------------------------------------------------------------------------
# Judging


def _spec(opcode: str) -> Any:
    try:
        return specs.get(opcode)
    except SpecError:
        return None


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _producer(computation: XlaComputation, inst: Instruction, k: int) -> Instruction:
    """The instruction that computes output ``k`` (looking through the root Tuple)."""
    if inst.opcode == "Tuple" and len(inst.operands) > k:
        return computation.instruction(inst.operands[k])
    return inst


def _program_bound(spec: Any, inst: Instruction, shape: Shape, expected: np.ndarray) -> Any:
    """The larger of the op's bound and the program tolerance (an absolute bound scaled to the output)."""
    et = shape.element_type()
    op_bound = spec.tolerance.for_type(et, inst.attrs) if spec is not None else None
    name = etypes.short_name(et)
    if name not in PROGRAM_RTOL or expected.size == 0:
        return op_bound
    with np.errstate(all="ignore"):
        finite = np.abs(expected.astype(np.complex128 if etypes.is_complex(et) else np.float64))
        finite = finite[np.isfinite(finite)]
    scale = float(finite.max()) if finite.size else 1.0
    rtol = PROGRAM_RTOL[name]
    if op_bound is not None:
        return Bound(rtol=max(op_bound.rtol, rtol), atol=max(op_bound.atol, rtol * scale))
    return Bound(rtol=rtol, atol=rtol * scale)


def _device(d: int, count: int) -> str:
    return f"device {d}: " if count > 1 else ""


def judge_outputs(computation: XlaComputation, got: list[list[Any]], want: list[list[Any]]) -> list[dict[str, Any]]:
    """A verdict per output of the program: ``got`` and ``want`` hold each device's outputs; an output fails when
    it differs on one device (the first such device is named)."""
    root = computation.root_instruction
    shapes = root.shape.leaf_shapes()
    out = []
    for k, shape in enumerate(shapes):
        inst = _producer(computation, root, k)
        entry: dict[str, Any] = {"index": k, "op": inst.name, "shape": str(shape), "status": PASSED}
        for d, (got_d, want_d) in enumerate(zip(got, want)):
            g, w = np.asarray(got_d[k]), np.asarray(want_d[k])
            where = _device(d, len(got))
            if g.shape != w.shape or g.dtype != w.dtype:
                entry.update(status=FAILED, message=f"{where}got {g.dtype}{list(g.shape)}, expected {w.dtype}"
                             f"{list(w.shape)}")
                break
            bound = _program_bound(_spec(inst.opcode), inst, shape, w) if shape.is_array() else None
            mask = mismatch_mask(g, w, bound)
            if mask.any():
                entry.update(status=FAILED, message=f"{where}{int(mask.sum())} of {mask.size} elements differ: "
                             f"{describe_mismatch(g, w, mask, 3)}")
                break
        out.append(entry)
    return out


def one_op(computation: XlaComputation, inst: Instruction) -> XlaComputation:
    """The instruction alone: a parameter per operand, the same attributes and sub-computations."""
    b = XlaBuilder(inst.opcode.lower())
    params = [ops.Parameter(b, i, computation.instruction(o).shape, f"p{i}") for i, o in enumerate(inst.operands)]
    return b.build(b.add_instruction(inst.opcode, params, inst.operand_args, inst.attrs, inst.shape))


def judge_op(backend: Any, computation: XlaComputation, inst: Instruction, values: list[dict[int, Any]],
             profile: str = SPEC, devices: tuple[int, int] = ONE_DEVICE) -> tuple[str | None, str]:
    """``inst`` run alone on the backend (on every device), on the reference's values of its operands, judged
    against the reference's value as the suite judges a case: (why it differs, ``None`` when it conforms; the
    implementation-defined outcome it took, ``""`` when none)."""
    comp = one_op(computation, inst)
    args = [[v[o] for o in inst.operands] for v in values]
    try:
        got = run_on(backend, comp, args, devices)
    except UnsupportedError:
        return None, ""  # the backend cannot run it alone (it ran the whole program): nothing to judge
    except (OpError, ExecutionError) as e:
        return f"fails alone: {e}", ""
    took = ""
    tables: list[Any] = []  # a multi-device op's allowed outcomes on each device, when one differs

    def table(d: int) -> Any:
        if len(values) == 1 or _spec(inst.opcode) is None or not _spec(inst.opcode).implementation_defined:
            return None
        if not tables:
            from backend.reference.allowed import root_outcomes_per_device
            tables.extend(root_outcomes_per_device(comp, args, *devices))
        return tables[d]

    for d, (got_d, v) in enumerate(zip(got, values)):
        why, allowed = _judge_alone(comp, inst, args[d], got_d, v[inst.id], profile, lambda d=d: table(d))
        if why is not None:
            return f"{_device(d, len(values))}{why}", ""
        took = took or (f"{_device(d, len(values))}{allowed}" if allowed else "")
    return None, took


def _judge_alone(comp: XlaComputation, inst: Instruction, args: list[Any], got: list[Any], value: Any,
                 profile: str, table: Any = lambda: None) -> tuple[str | None, str]:
    """One device's outputs of ``inst`` alone against the reference's ``value`` (see :func:`judge_op`); ``table()``
    gives the device's allowed outcomes (None: from the op run alone on one device)."""
    want = [np.asarray(v) for v in _leaves(value)]
    spec = _spec(inst.opcode)
    mismatches = []
    for k, (g, w, shape) in enumerate(zip(got, want, inst.shape.leaf_shapes())):
        g = np.asarray(g)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"output {k} is {g.dtype}{list(g.shape)}, the reference's {w.dtype}{list(w.shape)}", ""
        bound = spec.tolerance.for_type(shape.element_type(), inst.attrs) if spec is not None and shape.is_array() \
            else None
        mask = mismatch_mask(g, w, bound)
        if mask.any():
            mismatches.append(Mismatch(k, g, w, bound, mask, tuple(np.asarray(x) for x in got)))
    if not mismatches:
        return None, ""
    if spec is None:
        m = mismatches[0]
        return f"output {m.index}: {describe_mismatch(m.actual, m.expected, m.mask, 3)}", ""
    case = Case(id=f"{inst.opcode}/program/{inst.name}", op=inst.opcode, kind=GENERATED, inputs={}, attrs={})
    verdict = judge(case, spec, comp, args, mismatches, profile, table())
    return (None, f"{inst.name} ({inst.opcode}): {verdict.message}") if verdict.excused else (verdict.message, "")


def _value(v: Any) -> Any:
    """A value as ``_array_literal`` writes it: an array, or a tuple of them."""
    return tuple(_value(x) for x in v) if isinstance(v, (list, tuple)) else np.asarray(v)


def reproduction(computation: XlaComputation, inst: Instruction, values: list[dict[int, Any]], backend: str,
                 devices: tuple[int, int] = ONE_DEVICE) -> str:
    """A snippet that runs the op alone on the backend (on every device) with the reference's operand values, as
    printed."""
    from backend.export import stablehlo_text
    comp = one_op(computation, inst)
    replicas, partitions = devices
    try:
        text = stablehlo_text(comp)
    except (OpError, UnsupportedError, ExecutionError):
        text = None
    if text is None:  # built with the builder instead, as the suite's reproductions are
        return _builder_reproduction(inst, values, backend, devices)
    lines = [*REPRODUCTION_IMPORTS, "from backend import get_backend"]
    lines += ["from backend.stablehlo_import import import_module", "",
              f"computation = import_module('''{text}''')  # {inst.name}, alone"]
    per_device = ["[" + ", ".join(_array_literal(_value(v[o])) for o in inst.operands) + "]" for v in values]
    if replicas * partitions == 1:
        lines += [f"args = {per_device[0]}", f"print(get_backend({backend!r}).execute(computation, args))"]
    else:
        lines += ["args = [  # per device", *[f"    {a}," for a in per_device], "]",
                  f"print(get_backend({backend!r}).execute(computation, args, replicas={replicas}, "
                  f"partitions={partitions}))"]
    expected = repr(values[0][inst.id] if len(values) == 1 else [v[inst.id] for v in values])
    return "\n".join(lines + ["# the reference gives:"] + [f"# {line}" for line in expected.splitlines()])


def _builder_reproduction(inst: Instruction, values: list[dict[int, Any]], backend: str,
                          devices: tuple[int, int]) -> str:
    """The suite's reproduction (conformance/build.py) of the op alone: its operands as Parameters bound to the
    reference's values of them (each device's), its attributes as given."""
    per_device = len(values) > 1

    def operand(k: int) -> Any:
        if not per_device:
            return _value(values[0][inst.operands[k]])
        return PerDevice(_value(v[inst.operands[k]]) for v in values)

    inputs: dict[str, Any] = {}
    k = 0
    for name, count in inst.operand_args:
        if count is None:
            inputs[name] = operand(k)
            k += 1
        else:
            inputs[name] = [operand(k + i) for i in range(count)]
            k += count
    expected = [v[inst.id] for v in values] if per_device else values[0][inst.id]
    case = Case(id=f"{inst.opcode}/program/{inst.name}", op=inst.opcode, kind=GENERATED, inputs=inputs,
                attrs=dict(inst.attrs), expected=expected, devices=devices if per_device else None)
    return f"# {inst.name} alone\n" + build_reproduction(case, backend)


def localise(backend: Any, computation: XlaComputation, values: list[dict[int, Any]], path: str = "",
             profile: str = SPEC, backend_spec: str | None = None, allowed: list[str] | None = None,
             devices: tuple[int, int] = ONE_DEVICE) -> OpFinding | None:
    """The first instruction of ``computation`` whose value on the backend, run alone on the reference's values
    of its operands (``values``: each device's), differs; inside a While that differs, the first op of its body
    that differs in the first iteration where one does (the loop state the reference's; one device); for an op
    with a region (REGION_OPS), whether the region is at fault. ``allowed`` collects the ops that took an outcome
    their spec allows."""
    for index, inst in enumerate(computation.instructions):
        if inst.opcode in STRUCTURAL:
            continue
        why, took = judge_op(backend, computation, inst, values, profile, devices)
        if took and allowed is not None:
            allowed.append(f"{path}{took}")
        if why is None:
            continue
        if inst.opcode == "While" and len(values) == 1:
            inner = _localise_in_loop(backend, inst, values[0][inst.operands[0]], f"{path}{inst.name} > ", profile,
                                      backend_spec)
            if inner is not None:
                return inner
        finding = OpFinding(index, f"{path}{inst.name}", inst.opcode, why, one_op(computation, inst).as_hlo_text(),
                            reproduction(computation, inst, values, backend_spec or backend.name, devices))
        if inst.opcode in REGION_OPS:
            _blame_region(backend, inst, values[0], finding, profile, backend_spec)
        return finding
    return None


def _region_samples(region: XlaComputation, pools: dict[Any, np.ndarray], count: int, seed: int = 0
                    ) -> list[list[np.ndarray]]:
    """``count`` argument lists for ``region``: each scalar parameter takes an element of the op's operand values
    of its type (none when a parameter is not a scalar or no operand value has its type)."""
    shapes = region.program_shape().parameter_shapes()
    if not shapes or any(not s.is_array() or s.dimensions() or s.numpy_dtype() not in pools for s in shapes):
        return []
    rng = np.random.default_rng(seed)
    return [[np.asarray(pools[s.numpy_dtype()][rng.integers(pools[s.numpy_dtype()].size)]) for s in shapes]
            for _ in range(count)]


def _blame_region(backend: Any, inst: Instruction, values: dict[int, Any], finding: OpFinding, profile: str,
                  backend_spec: str | None) -> None:
    """Run each of the op's regions alone on the backend on elements of the op's operand values; the first region
    whose value differs from the reference's is at fault: ``finding.region`` names it and ``region_finding`` the
    first op inside it that differs on those values."""
    pools: dict[Any, list[np.ndarray]] = {}
    for o in inst.operands:
        for leaf in _leaves(values[o]):
            leaf = np.asarray(leaf)
            if leaf.size:
                pools.setdefault(leaf.dtype, []).append(leaf.reshape(-1))
    flat = {dtype: np.concatenate(parts) for dtype, parts in pools.items()}
    reference = get_backend("reference")
    for attr, region in inst.attrs.items():
        if not isinstance(region, XlaComputation):
            continue
        for args in _region_samples(region, flat, REGION_SAMPLES):
            try:
                got = _leaves(backend.execute(region, args))
            except UnsupportedError:
                break
            except (OpError, ExecutionError):
                got = None
            want = _leaves(reference.execute(region, args))
            if got is not None and all(mismatch_mask(np.asarray(g), np.asarray(w), None).sum() == 0
                                       for g, w in zip(got, want)):
                continue
            finding.region = attr
            finding.region_finding = localise(backend, region, reference_values(region, args),
                                              f"{finding.name} > {attr}: ", profile, backend_spec)
            return


def _localise_in_loop(backend: Any, loop: Instruction, state: Any, path: str, profile: str,
                      backend_spec: str | None) -> OpFinding | None:
    condition, body = loop.attrs["condition"], loop.attrs["body"]
    reference = get_backend("reference")
    for iteration in range(MAX_LOOP_ITERATIONS):
        state = _value(state)
        if not bool(np.asarray(reference.execute(condition, [state])[0])):
            return None
        body_values = reference_values(body, [state])
        found = localise(backend, body, body_values, f"{path}iteration {iteration}: ", profile, backend_spec)
        if found is not None:
            return found
        state = body_values[0][body.root]
    return None


def check_program(computation: XlaComputation, backend: Any, inputs: list[Any], program: str = "",
                  profile: str = SPEC, backend_spec: str | None = None, devices: tuple[int, int] = ONE_DEVICE
                  ) -> ProgramReport:
    """The program on the backend against the reference, on ``inputs`` (every device's, on ``devices``: replicas,
    partitions); when an output differs, the first op that differs (its reproduction loads the backend as
    ``get_backend(backend_spec)``, default its name). The outputs differ, every op conforming alone, and some op
    took an outcome its spec allows: ``impl-defined``."""
    start = time.perf_counter()
    values = reference_values(computation, inputs, devices)
    want = [_leaves(v[computation.root]) for v in values]
    supports = getattr(backend, "supports", None)
    refusal = supports(computation) if callable(supports) else None
    try:
        if refusal is not None:
            raise UnsupportedError(backend.name, f"program {program or computation.name}", str(refusal))
        got = run_on(backend, computation, [inputs] * len(values), devices)
    except UnsupportedError as e:  # nothing to judge: the backend says what it cannot run
        return ProgramReport(program, backend.name, UNSUPPORTED, [], len(computation.instructions),
                             seconds=round(time.perf_counter() - start, 3), message=str(e))
    except (OpError, ExecutionError) as e:
        got, error = None, e
    if got is not None:
        outputs = judge_outputs(computation, got, want)
        failed = any(o["status"] == FAILED for o in outputs)
    else:
        outputs = [{"status": FAILED, "message": f"the program does not run: {error}"}]
        failed = True
    report = ProgramReport(program, backend.name, FAILED if failed else PASSED, outputs,
                           len(computation.instructions))
    if failed:
        allowed: list[str] = []
        report.localised = localise(backend, computation, values, profile=profile, backend_spec=backend_spec,
                                    allowed=allowed, devices=devices)
        if report.localised is None and allowed:
            report.status, report.allowed = IMPL_DEFINED, allowed[0]
            report.message = (f"the outputs differ, every op conforms on the reference's inputs to it, and "
                              f"{len(allowed)} took an outcome its spec allows; the first: {allowed[0]}")
        elif report.localised is None:
            report.message = ("the outputs differ but every op conforms on the reference's inputs to it: the "
                              "difference accumulates from rounding")
    report.seconds = round(time.perf_counter() - start, 3)
    return report


def check_corpus_program(name: str, backend: Any, profile: str = SPEC, backend_spec: str | None = None
                         ) -> ProgramReport:
    """The corpus program ``name`` (conformance/programs/NAME.mlir on its inputs NAME.npz) checked on the backend
    (on the devices it names)."""
    from conformance.programs import paths

    mlir, npz = paths(name)
    start = time.perf_counter()
    computation = load_program(mlir)
    report = check_program(computation, backend, load_inputs(npz, computation), name, profile, backend_spec,
                           program_devices(mlir))
    report.seconds = round(time.perf_counter() - start, 3)
    return report


def text_report(report: ProgramReport) -> str:
    lines = [f"{report.program}: {report.status} on {report.backend} ({report.ops} instructions, "
             f"{report.seconds:.2f} s)"]
    for o in report.outputs:
        lines.append(f"  output {o.get('index', '?')} ({o.get('op', '')}): {o['status']}"
                     + (f": {o['message']}" if o.get("message") else ""))
    if report.localised is not None:
        f = report.localised
        lines += [f.summary(), f"  {f.message}"]
        if f.region_finding is not None:
            lines += [f"  in its region: {f.region_finding.message}"]
        lines += ["reproduction:", f.reproduction]
    elif report.message:
        lines.append(report.message)
    return "\n".join(lines)
