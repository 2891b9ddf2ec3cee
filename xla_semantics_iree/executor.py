"""The IREE backend: StableHLO from the public export API -> ``iree-compile`` (llvm-cpu) -> IREE runtime."""

from __future__ import annotations

import functools
import hashlib
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
from backend.backends import check_arguments, check_computation, check_replicas
from backend.export import stablehlo_text, unsupported_reason

#: The compiler flags; part of the disk cache key (with the host CPU's identity). 64-bit floats stay 64-bit
#: (IREE's default demotes them to f32, which would change results); code is generated for the host CPU (a
#: ``generic`` x86-64 CPU lacks SSE4.1's rounding instructions, and f64 Ceil/Floor then fail to link).
COMPILE_FLAGS: tuple[str, ...] = ("--iree-input-demote-f64-to-f32=false", "--iree-llvmcpu-target-cpu=host")
TARGET_BACKEND = "llvm-cpu"
DRIVER = "local-task"
_CUSTOM_CALL = re.compile(r"stablehlo\.custom_call\s+@([\w.$-]+)|call_target_name\s*=\s*\"([^\"]+)\"")


def default_cache_dir() -> Path:
    return Path(os.environ.get("XLA_SEMANTICS_IREE_CACHE") or Path.home() / ".cache" / "xla-semantics" / "iree")


class IreeCompileError(RuntimeError):
    """iree-compile rejected the StableHLO; the message is its first error diagnostic."""


class _Compiled:
    __slots__ = ("function", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.function: Any = None


class IreeBackend:
    """Runs computations with IREE on the CPU (``llvm-cpu`` target, ``local-task`` driver)."""

    name = "iree"

    def __init__(self, cache_dir: str | os.PathLike[str] | None | bool = True) -> None:
        import iree.compiler  # noqa: F401  (fail here, with pip's hint, when the extra is missing)
        import iree.runtime as rt
        self._rt = rt
        self._config = rt.Config(DRIVER)
        self.cache_dir = default_cache_dir() if cache_dir is True else (Path(cache_dir) if cache_dir else None)
        self.compiler_version = metadata.version("iree-base-compiler")
        self._compiled: weakref.WeakKeyDictionary[XlaComputation, _Compiled] = weakref.WeakKeyDictionary()
        self._dtype_ok: dict[np.dtype[Any], bool] = {}
        self.compilations = 0  # iree-compile runs by this instance (the caches' misses)

    def info(self) -> dict[str, str]:
        """What a conformance report records about this backend: IREE's version, target and flags."""
        return {"version": self.compiler_version, "platform": "cpu", "device": f"{TARGET_BACKEND}/{DRIVER}",
                "runtime_version": metadata.version("iree-base-runtime"), "flags": " ".join(COMPILE_FLAGS),
                "cpu": platform.processor() or platform.machine()}

    # ---- what it can run

    def supports(self, computation: XlaComputation) -> str | None:
        reason = unsupported_reason(check_computation(computation))
        if reason is not None:
            return reason
        shapes = computation.program_shape()
        for shape in [*shapes.parameter_shapes(), shapes.result_shape()]:
            for leaf in _leaves(shape):
                if leaf.is_array() and not self._passable(leaf.numpy_dtype()):
                    return f"IREE's runtime cannot pass {leaf.numpy_dtype()} arrays in or out of a module"
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
            entry = _Compiled(stablehlo_text(computation))
            self._compiled[computation] = entry
        return entry

    def cache_key(self, text: str) -> str:
        """The disk cache key of a StableHLO module: its hash with the compiler's version and flags."""
        content = "\n".join((self.compiler_version, TARGET_BACKEND, *COMPILE_FLAGS, _host_cpu(), text))
        return hashlib.sha256(content.encode()).hexdigest()

    def _vmfb(self, text: str) -> bytes:
        path = self.cache_dir / f"{self.cache_key(text)}.vmfb" if self.cache_dir is not None else None
        if path is not None and path.is_file():
            return path.read_bytes()
        import iree.compiler as compiler
        self.compilations += 1
        try:
            vmfb = bytes(compiler.compile_str(text, target_backends=[TARGET_BACKEND], input_type="stablehlo",
                                              extra_args=list(COMPILE_FLAGS)))
        except compiler.CompilerToolError as e:
            raise IreeCompileError(_first_error(str(e))) from None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as f:
                f.write(vmfb)
            os.replace(f.name, path)  # atomic: parallel workers never read half a file
        return vmfb

    def _function(self, computation: XlaComputation) -> Any:
        entry = self._entry(computation)
        if entry.function is None:
            rt = self._rt
            context = rt.SystemContext(config=self._config)
            module = rt.VmModule.copy_buffer(context.instance, self._vmfb(entry.text))
            context.add_vm_module(module)
            entry.function = context.modules[module.name]["main"]
        return entry.function

    # ---- run

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1) -> list[Any]:
        args = check_arguments(computation, arguments)
        if check_replicas(computation, replicas) != 1:
            raise UnsupportedError(self.name, computation.root_instruction.opcode,
                                   "the IREE backend runs single-device programs (replicas=1)")
        reason = self.supports(computation)
        if reason is not None:
            raise UnsupportedError(self.name, computation.root_instruction.opcode, reason)
        op = computation.root_instruction.opcode
        try:
            function = self._function(computation)
            flat = [np.asarray(a, order="C") for a in _flatten(args)]
            out = function(*flat)
        except (OpError, UnsupportedError, ExecutionError):
            raise
        except Exception as e:  # a compile error, a runtime failure
            raise ExecutionError(self.name, op, e) from e
        leaves = list(out) if isinstance(out, (tuple, list)) else [out]
        hosts = iter([np.asarray(v.to_host() if hasattr(v, "to_host") else v) for v in leaves])
        result_shape = computation.program_shape().result_shape()
        if result_shape.is_tuple():
            return [_rebuild(s, hosts) for s in result_shape.tuple_shapes()]
        return [_rebuild(result_shape, hosts)]


def _leaves(shape: Shape) -> list[Shape]:
    return [leaf for s in shape.tuple_shapes() for leaf in _leaves(s)] if shape.is_tuple() else [shape]


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
