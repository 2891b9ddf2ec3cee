"""The IREE backend: StableHLO from the public export API -> ``iree-compile`` (llvm-cpu) -> IREE runtime."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import re
import tempfile
import weakref
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from backend import ExecutionError, OpError, Shape, UnsupportedError, XlaComputation
from backend.export import (
    link_stablehlo_modules,
    stablehlo_text,
    stablehlo_unsupported_reason,
    static_stand_in,
    with_bounded_results,
    with_exact_forms,
)
from backend.runtime.protocol import (
    check_arguments,
    check_computation,
    check_partitions,
    check_replicas,
    per_device_arguments,
)
from xla_semantics_iree.bridge import bridge_module, from_module, needs_bridge, to_module
from xla_semantics_iree.limits import iree_limit

#: The compiler flags of the ``llvm-cpu`` target; part of the disk cache key (with the host CPU's identity). 64-bit
#: floats stay 64-bit (IREE's default demotes them to f32, which would change results); code is generated for the
#: host CPU (a ``generic`` x86-64 CPU lacks SSE4.1's rounding instructions, and f64 Ceil/Floor then fail to link).
COMPILE_FLAGS: tuple[str, ...] = ("--iree-input-demote-f64-to-f32=false", "--iree-llvmcpu-target-cpu=host")
TARGET_BACKEND = "llvm-cpu"
DRIVER = "local-task"
#: The ``vmvx`` target: IREE's portable reference VM (its own code generator, no LLVM), on the local device, run by
#: the single-threaded ``local-sync`` driver.
VMVX_COMPILE_FLAGS: tuple[str, ...] = ("--iree-input-demote-f64-to-f32=false", "--iree-hal-target-device=local",
                                       "--iree-hal-local-target-device-backends=vmvx")
_SOURCE_LINE = re.compile(r"<stdin>\"?:(\d+):\d+")
_FUNCTION_START = re.compile(r"\s*func\.func (?:public|private) @case(\d+)(?:__|\()")
_CUSTOM_CALL = re.compile(r"stablehlo\.custom_call\s+@([\w.$-]+)|call_target_name\s*=\s*\"([^\"]+)\"")


def default_cache_dir() -> Path:
    return Path(os.environ.get("XLA_SEMANTICS_IREE_CACHE") or Path.home() / ".cache" / "xla-semantics" / "iree")


class IreeCompileError(RuntimeError):
    """iree-compile rejected the StableHLO; the message is its first error diagnostic, ``lines`` the lines
    of the module that its diagnostics point at."""

    def __init__(self, message: str, lines: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.lines = tuple(lines)


class _Compiled:
    __slots__ = ("error", "function", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.function: Any = None
        self.error: IreeCompileError | None = None  # iree-compile's verdict on this computation alone (it is deterministic)


class IreeBackend:
    """Runs computations with IREE on the CPU (``llvm-cpu`` target, ``local-task`` driver)."""

    name = "iree"
    target_backend = TARGET_BACKEND
    driver = DRIVER
    compile_flags = COMPILE_FLAGS

    def __init__(self, cache_dir: str | os.PathLike[str] | None | bool = True) -> None:
        import iree.compiler  # noqa: F401  (fail here, with pip's hint, when the extra is missing)
        import iree.runtime as rt
        self._rt = rt
        self._config = rt.Config(self.driver)
        self.cache_dir = default_cache_dir() if cache_dir is True else (Path(cache_dir) if cache_dir else None)
        self.compiler_version = metadata.version("iree-base-compiler")
        self._compiled: weakref.WeakKeyDictionary[XlaComputation, _Compiled] = weakref.WeakKeyDictionary()
        self._dtype_ok: dict[np.dtype[Any], bool] = {}
        self.compilations = 0  # iree-compile runs by this instance (the caches' misses)
        self._rejected: dict[str, IreeCompileError] = {}  # cache key -> iree-compile's diagnosed rejection
        # A crashing iree-compile (a subprocess, which inherits the environment) runs LLVM's crash handler, which
        # can deadlock while it symbolizes the stack (seen on Scan: every thread on a futex, for good); without
        # symbols it exits at once.
        os.environ.setdefault("LLVM_DISABLE_SYMBOLIZATION", "1")

    def info(self) -> dict[str, str]:
        """What a conformance report records about this backend: IREE's version, target and flags."""
        return {"version": self.compiler_version, "platform": "cpu", "device": f"{self.target_backend}/{self.driver}",
                "runtime_version": metadata.version("iree-base-runtime"), "flags": " ".join(self.compile_flags),
                "cpu": platform.processor() or platform.machine()}

    # ---- what it can run

    def supports(self, computation: XlaComputation) -> str | None:
        """Why this backend cannot run ``computation``: IREE's own limit where it has one
        (:func:`xla_semantics_iree.limits.iree_limit`), else what the export cannot give, else ``None``."""
        reason = iree_limit(computation) or stablehlo_unsupported_reason(computation)
        if reason is not None:
            return reason
        for dtype in _leaf_dtypes(computation):
            if not self._passable(dtype):
                return f"IREE's runtime cannot pass {dtype} arrays in or out of a module"
        try:
            text = self._entry(computation).text
        except ExecutionError:
            return None  # the export itself fails: execute reports that failure
        targets = sorted({a or b for a, b in _CUSTOM_CALL.findall(text)})
        if targets:
            return (f"jax lowers {computation.root_instruction.opcode} to custom_call "
                    f"{', '.join(targets)} (a library routine of jax's runtime), which IREE does not provide")
        return None

    def _passable(self, dtype: np.dtype[Any]) -> bool:
        """Whether values of ``dtype`` cross the module boundary: as they are, or as the bytes of
        ``xla_semantics_iree.bridge`` (converted inside the module)."""
        if needs_bridge([dtype]):
            return True
        ok = self._dtype_ok.get(dtype)
        if ok is None:
            try:
                self._rt.asdevicearray(self._config.device, np.zeros((1,), dtype))
                ok = True
            except (ValueError, TypeError, RuntimeError):
                ok = False
            self._dtype_ok[dtype] = ok
        return ok

    # ---- compile (cached)

    def _entry(self, computation: XlaComputation) -> _Compiled:
        entry = self._compiled.get(computation)
        if entry is None:
            # bounded-dynamic results: the static stand-in's module, bridged, then its results' sizes set (a bridge
            # after them would convert dynamic tensors, which IREE does not lower)
            stand_in = static_stand_in(computation)
            text = stablehlo_text(with_exact_forms(stand_in.computation if stand_in is not None else computation))
            if needs_bridge(_leaf_dtypes(computation)):  # ApproxTopK as its exact form above: no XLA custom call
                text = bridge_module(text)
            if stand_in is not None:
                text = with_bounded_results(text, stand_in)
            entry = _Compiled(text)
            self._compiled[computation] = entry
        return entry

    def cache_key(self, text: str) -> str:
        """The disk cache key of a StableHLO module: its hash with the compiler's version and flags."""
        content = "\n".join((self.compiler_version, self.target_backend, *self.compile_flags, _host_cpu(), text))
        return hashlib.sha256(content.encode()).hexdigest()

    def _target_backends(self) -> list[str]:
        """``compile_str``'s target backends (``--iree-hal-target-backends``); empty where the flags name the device."""
        return [self.target_backend]

    def _vmfb(self, text: str) -> bytes:
        """The compiled module of ``text``: from the disk cache, else from ``iree-compile``. iree-compile is
        deterministic, so its diagnosed rejection of a module is cached like its success (in memory and on disk):
        a case that fails to compile in a batch and is then run alone costs one compilation of it alone, not two."""
        key = self.cache_key(text)
        known = self._rejected.get(key) or self._cached_rejection(key)
        if known is not None:
            raise IreeCompileError(str(known), known.lines)
        path = self.cache_dir / f"{key}.vmfb" if self.cache_dir is not None else None
        if path is not None and path.is_file():
            return path.read_bytes()
        import iree.compiler as compiler
        self.compilations += 1
        try:
            vmfb = bytes(compiler.compile_str(text, target_backends=self._target_backends(), input_type="stablehlo",
                                              extra_args=list(self.compile_flags)))
        except compiler.CompilerToolError as e:
            errors = [line for line in str(e).splitlines() if "error:" in line]  # not the warnings' lines
            error = IreeCompileError(_first_error(str(e)), [int(n) for line in errors
                                                            for n in _SOURCE_LINE.findall(line)])
            if errors:  # a diagnosed rejection; a crash (which may be the machine's: memory) is not kept
                self._rejected[key] = error
                self._write(key, ".rejected", json.dumps({"message": str(error), "lines": error.lines}).encode())
            raise error from None
        self._write(key, ".vmfb", vmfb)
        return vmfb

    def _write(self, key: str, suffix: str, content: bytes) -> None:
        if self.cache_dir is None:
            return
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=self.cache_dir, delete=False, suffix=".tmp") as f:
            f.write(content)
        os.replace(f.name, self.cache_dir / f"{key}{suffix}")  # atomic: parallel workers never read half a file

    def _cached_rejection(self, key: str) -> IreeCompileError | None:
        """iree-compile's diagnosed rejection of the module of ``key``, from the disk cache."""
        path = self.cache_dir / f"{key}.rejected" if self.cache_dir is not None else None
        if path is None or not path.is_file():
            return None
        try:
            record = json.loads(path.read_bytes())
            error = IreeCompileError(str(record["message"]), [int(n) for n in record["lines"]])
        except (ValueError, KeyError, TypeError):  # not a record of ours: compile again
            return None
        self._rejected[key] = error
        return error

    def _functions(self, text: str, names: Sequence[str]) -> list[Any]:
        """The named functions of the StableHLO module ``text``, compiled (or from the disk cache) and loaded."""
        rt = self._rt
        context = rt.SystemContext(config=self._config)
        module = rt.VmModule.copy_buffer(context.instance, self._vmfb(text))
        context.add_vm_module(module)
        return [context.modules[module.name][name] for name in names]

    def _function(self, computation: XlaComputation) -> Any:
        entry = self._entry(computation)
        if entry.error is not None:
            raise entry.error
        if entry.function is None:
            try:
                entry.function = self._functions(entry.text, ["main"])[0]
            except IreeCompileError as e:
                entry.error = e
                raise
        return entry.function

    # ---- run

    def _checked(self, computation: XlaComputation, arguments: Sequence[Any]) -> list[Any]:
        """The arguments as NumPy values, after refusing what this backend cannot run."""
        args = check_arguments(computation, arguments)
        self._refuse_unsupported(computation)
        return args

    def _refuse_unsupported(self, computation: XlaComputation) -> None:
        reason = self.supports(computation)
        if reason is not None:
            raise UnsupportedError(self.name, computation.root_instruction.opcode, reason)

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1,
                partitions: int = 1) -> list[Any]:
        """The results; on ``replicas * partitions > 1`` devices, a list of each device's results (device
        ``d = replica * partitions + partition`` takes ``arguments[d]``)."""
        check_computation(computation)
        count = check_replicas(computation, replicas) * check_partitions(computation, partitions)
        if count > 1:
            return self._execute_devices(computation, arguments, count)
        return self._execute(computation, self._checked(computation, arguments))

    def _execute_devices(self, computation: XlaComputation, arguments: Any, count: int) -> list[list[Any]]:
        """A program on several devices. One that exchanges nothing between them and never reads its device's id
        (anything else is refused: :data:`xla_semantics_iree.limits.NO_COLLECTIVES`) gives each device the results of
        the program on that device's arguments alone, which IREE's device computes for one device after the other."""
        self._refuse_unsupported(computation)
        check = functools.partial(check_arguments, computation)
        per_device = per_device_arguments(computation, arguments, count, check)
        return [self._execute(computation, list(args)) for args in per_device]

    def _execute(self, computation: XlaComputation, args: list[Any]) -> list[Any]:
        try:
            function = self._function(computation)
        except (OpError, UnsupportedError, ExecutionError):
            raise
        except Exception as e:  # a compile error
            raise ExecutionError(self.name, computation.root_instruction.opcode, e) from e
        return self._call(function, computation, args)

    def _call(self, function: Any, computation: XlaComputation, args: Sequence[Any]) -> list[Any]:
        try:
            out = function(*[to_module(np.asarray(a, order="C")) for a in _flatten(args)])
        except Exception as e:  # a runtime failure
            raise ExecutionError(self.name, computation.root_instruction.opcode, e) from e
        leaves = list(out) if isinstance(out, (tuple, list)) else [out]
        result_shape = computation.program_shape().result_shape()
        dtypes = [leaf.numpy_dtype() if leaf.is_array() else None for leaf in result_shape.leaf_shapes()]
        hosts = iter([from_module(np.asarray(v.to_host() if hasattr(v, "to_host") else v), dtype)
                      if dtype is not None else np.asarray(v.to_host() if hasattr(v, "to_host") else v)
                      for v, dtype in zip(leaves, dtypes)])
        if result_shape.is_tuple():
            return [_rebuild(s, hosts) for s in result_shape.tuple_shapes()]
        return [_rebuild(result_shape, hosts)]

    def execute_batch(self, items: Sequence[tuple[XlaComputation, Sequence[Any]]]) -> list[list[Any] | Exception]:
        """Runs each ``(computation, arguments)`` pair; the computations not compiled yet are linked into one
        module (``backend.export.link_stablehlo_modules``) and compiled with one ``iree-compile`` run, which
        costs little more than compiling one of them. The results come in order; an item that fails gets
        the exception it raised. When the linked module does not compile, the items iree-compile points at
        run one by one through ``execute`` (so a compile failure is always the computation's own) and the
        others are linked once more; when that fails too, each runs alone (see ``_run_linked``)."""
        results: list[list[Any] | Exception | None] = [None] * len(items)
        group: list[tuple[int, XlaComputation, list[Any]]] = []
        for k, (computation, arguments) in enumerate(items):
            try:
                args = self._checked(computation, arguments)
                entry = self._entry(computation)
            except Exception as e:  # refused, wrong arguments, an export failure: as execute() raises it
                results[k] = e
                continue
            if entry.function is None and entry.error is None:
                group.append((k, computation, args))
        self._run_linked(group, results)
        for k, (computation, arguments) in enumerate(items):
            if results[k] is None:
                results[k] = self._outcome(computation, arguments)
        return results  # type: ignore[return-value]

    def _outcome(self, computation: XlaComputation, arguments: Sequence[Any]) -> list[Any] | Exception:
        try:
            return self.execute(computation, arguments)
        except Exception as e:  # noqa: BLE001 - the item's own failure is its result
            return e

    def _run_linked(self, group: list[tuple[int, XlaComputation, list[Any]]], results: list[Any],
                    again: bool = True) -> None:
        """Fills ``results`` for ``group``'s items from one linked module. When it does not compile, the items
        whose functions iree-compile's diagnostics point at are left to ``execute`` and the others linked once
        more (``again``); otherwise every item is left to ``execute``, compiled alone. Linking saves little
        where the compilation of each function dominates (a constant operand is folded by a program compiled
        for it), so a module that fails twice is not split further: its items alone cost about what one more
        linked attempt would."""
        if len(group) < 2:
            return
        names = [f"case{i}" for i in range(len(group))]
        text = ""
        try:
            text = link_stablehlo_modules([self._entry(computation).text for _, computation, _ in group], names)
            functions = self._functions(text, names)
        except Exception as e:  # noqa: BLE001 - the rest linked once more, or each item alone, report the failure
            if isinstance(e, IreeCompileError):
                culprits = _functions_at(text, e.lines)
            else:  # a module link_stablehlo_modules could not read
                culprits = {e.values["module"]} if isinstance(e, OpError) and "module" in e.values else set()
            if culprits and again:
                self._run_linked([item for i, item in enumerate(group) if i not in culprits], results, again=False)
            return
        for (k, computation, args), function in zip(group, functions):
            try:
                results[k] = self._call(function, computation, args)
            except Exception as e:  # noqa: BLE001 - runner runs it again alone
                results[k] = e


class IreeVmvxBackend(IreeBackend):
    """Runs computations with IREE's portable reference VM (``vmvx`` target, ``local-sync`` driver): a code generator
    of its own, no LLVM and no host-specific code."""

    name = "iree-vmvx"
    target_backend = "vmvx"
    driver = "local-sync"
    compile_flags = VMVX_COMPILE_FLAGS

    def _target_backends(self) -> list[str]:
        return []  # the device and its backend are named by --iree-hal-target-device and its local backends


def _leaf_dtypes(computation: XlaComputation) -> list[np.dtype[Any]]:
    """The element types of the computation's parameter and result arrays (tokens left out)."""
    shapes = computation.program_shape()
    return [leaf.numpy_dtype() for shape in [*shapes.parameter_shapes(), shapes.result_shape()]
            for leaf in shape.leaf_shapes() if leaf.is_array()]


def _functions_at(text: str, lines: Sequence[int]) -> set[int]:
    """The indices ``i`` of the functions ``case<i>`` (and their helpers ``case<i>__*``) of a linked module
    that hold the given (1-based) lines."""
    starts = [(n, int(m.group(1))) for n, line in enumerate(text.splitlines(), 1)
              if (m := _FUNCTION_START.match(line))]
    found = set()
    for line in lines:
        owners = [i for start, i in starts if start <= line]
        if owners:
            found.add(owners[-1])
    return found


def _flatten(values: Sequence[Any]) -> list[Any]:
    return [leaf for v in values for leaf in (_flatten(v) if isinstance(v, tuple) else [v])]


def _rebuild(shape: Shape, hosts: Any) -> Any:
    if shape.is_tuple():
        return tuple(_rebuild(s, hosts) for s in shape.tuple_shapes())
    return next(hosts)  # a token comes back as jax passes it: an empty pred array


@functools.cache
def _host_cpu() -> str:
    """The host CPU's identity (model and feature flags), for the disk cache key of host-specific code."""
    try:
        with open("/proc/cpuinfo") as f:
            fields = {key.strip(): value for key, _, value in (line.partition(":") for line in
                      f.read().split("\n\n")[0].splitlines())}
        described = " ".join(fields.get(k, "").strip() for k in ("model name", "flags", "Features", "CPU part"))
    except OSError:
        described = ""
    return f"{platform.machine()} {platform.processor()} {described}"


def _first_error(diagnostics: str) -> str:
    """The first ``error:`` line of iree-compile's diagnostics (location stripped), else its first line."""
    for line in diagnostics.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()[:400]
    code = re.search(r"Error code: (-?\d+)", diagnostics)
    if code and int(code.group(1)) < 0:
        return f"iree-compile crashed (signal {-int(code.group(1))})"
    return diagnostics.strip().splitlines()[0][:400] if diagnostics.strip() else "iree-compile failed"
