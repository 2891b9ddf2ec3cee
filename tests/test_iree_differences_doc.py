"""Every StableHLO program in docs/iree_differences.md runs on IREE as the doc says, outside the project.

Each ```mlir block of the doc is a complete module with a ``@main`` and comment lines that say how to run it and
what IREE does: ``// inputs: EXPR`` (a Python list of NumPy arrays), then ``// iree: EXPR`` (the results, compared bit
for bit, any NaN matching any NaN), ``// iree not: EXPR`` (a result the documents require and IREE does not give:
an out-of-bounds read has no fixed value), ``// iree-compile fails: TEXT`` (a diagnostic holding TEXT),
``// iree-run fails: TEXT`` (the runtime's error holding TEXT), ``// iree-compile crashes at times: TEXT`` (a
compilation that corrupts iree-compile's heap dies holding TEXT in some runs and not in others: it is compiled until
it dies, at most ``CRASH_TRIES`` times), and optionally ``// flags: ...`` (iree-compile flags besides the backend's) and ``// target: vmvx`` (IREE's portable VM,
as the ``iree-vmvx`` backend compiles, instead of ``llvm-cpu``). Each is compiled with
``iree.compiler.compile_str`` for ``llvm-cpu`` (with the backend's flags) and run with ``iree.runtime``: no import of
this project. Skipped without IREE."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

compiler = pytest.importorskip("iree.compiler")
rt = pytest.importorskip("iree.runtime")

# A crashing iree-compile (some programs show a crash) runs LLVM's crash handler, which can hang symbolizing its stack;
# without symbols it exits at once (the backend sets the same).
os.environ.setdefault("LLVM_DISABLE_SYMBOLIZATION", "1")
DOC = Path(__file__).resolve().parent.parent / "docs" / "iree_differences.md"
#: The IREE backend's own flags (xla_semantics_iree.executor.COMPILE_FLAGS), written out: the programs run without it.
FLAGS = ["--iree-input-demote-f64-to-f32=false", "--iree-llvmcpu-target-cpu=host"]
#: A program marked ``// target: vmvx`` is compiled for IREE's portable VM (the ``iree-vmvx`` backend's flags) and
#: run by the ``local-sync`` driver.
VMVX_FLAGS = ["--iree-input-demote-f64-to-f32=false", "--iree-hal-target-device=local",
              "--iree-hal-local-target-device-backends=vmvx"]
#: Compilations of a program that crashes at times: it crashed in 10 of 40 (llvm-cpu) and 3 of 20 (vmvx), so 60 miss
#: a crash with a chance below 1e-6 (each compilation takes about half a second).
CRASH_TRIES = 60
_BLOCK = re.compile(r"^( *)```mlir\n(.*?)^\1```", re.S | re.M)
_NAMES = {"np": np, "ml_dtypes": ml_dtypes, "inf": np.inf, "nan": np.nan}


def programs(text: str) -> list[tuple[str, dict[str, str]]]:
    """The doc's ```mlir blocks, each with its ``// key: value`` comment lines."""
    found = []
    for _, indented in _BLOCK.findall(text):
        block = textwrap.dedent(indented)
        keys = dict(re.findall(r"^// ([\w -]+): (.*)$", block, re.M))
        found.append((block, keys))
    return found


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    """Bit for bit (a NaN matches any NaN), of the same dtype and shape."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind == "c":
        return _same(got.real.copy(), want.real.copy()) and _same(got.imag.copy(), want.imag.copy())
    if want.dtype.kind in "biu":
        return bool(np.array_equal(got, want))
    wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(wide_want)
    bits = np.dtype(f"u{want.dtype.itemsize}")
    return bool(np.array_equal(np.isnan(wide_got), nan)
                and np.array_equal(got[~nan].view(bits), want[~nan].view(bits)))


def _compile(block: str, keys: dict[str, str]) -> tuple[bytes | str, str]:
    """The compiled module and its driver, or iree-compile's diagnostics when it fails."""
    if keys.get("target") == "vmvx":
        targets, flags, driver = [], VMVX_FLAGS + keys.get("flags", "").split(), "local-sync"
    else:
        targets, flags, driver = ["llvm-cpu"], FLAGS + keys.get("flags", "").split(), "local-task"
    try:
        return compiler.compile_str(block, target_backends=targets, input_type="stablehlo", extra_args=flags), driver
    except compiler.CompilerToolError as e:
        return str(e), driver


def run_program(block: str, keys: dict[str, str]) -> list[np.ndarray] | str:
    """The program's results, or the diagnostics of iree-compile when it fails."""
    vmfb, driver = _compile(block, keys)
    if isinstance(vmfb, str):
        return vmfb
    main = rt.load_vm_flatbuffer(vmfb, driver=driver).main
    try:
        out = main(*eval(keys["inputs"], dict(_NAMES)))
    except (ValueError, IndexError, RuntimeError) as e:  # the runtime's error (a bounds check of the VM)
        return f"iree.runtime: {e}"
    return [np.asarray(o.to_host()) for o in (out if isinstance(out, (tuple, list)) else [out])]


def _check(block: str, keys: dict[str, str], crash_tries: int = CRASH_TRIES) -> None:
    if "iree-compile crashes at times" in keys:
        crash = next((d for d in (_compile(block, keys)[0] for _ in range(crash_tries)) if isinstance(d, str)), None)
        assert crash is not None, f"compiled {crash_tries} times without a crash"
        assert keys["iree-compile crashes at times"] in crash, crash[-3000:]
        return
    result = run_program(block, keys)
    for failure in ("iree-compile fails", "iree-run fails"):
        if failure in keys:
            assert isinstance(result, str), f"compiled and ran, and gave {result}"
            assert result.startswith("iree.runtime: ") == (failure == "iree-run fails"), result[-3000:]
            assert keys[failure] in result, result[-3000:]
            return
    assert not isinstance(result, str), result[-3000:]
    if "iree" in keys:
        want = [np.asarray(w) for w in eval(keys["iree"], dict(_NAMES))]
        assert len(result) == len(want) and all(_same(g, w) for g, w in zip(result, want)), (result, want)
    if "iree not" in keys:
        want = [np.asarray(w) for w in eval(keys["iree not"], dict(_NAMES))]
        assert len(result) == len(want) and not all(_same(g, w) for g, w in zip(result, want)), result


DOC_PROGRAMS = programs(DOC.read_text())


def test_every_class_of_the_doc_has_a_program() -> None:
    text = DOC.read_text()
    classes = re.split(r"^### ", text, flags=re.M)[1:]
    assert len(classes) >= 20
    for section in classes:
        title = section.splitlines()[0]
        assert "```mlir" in section, f"class {title!r} has no StableHLO program"
    for block, keys in DOC_PROGRAMS:
        assert "inputs" in keys or "iree-compile fails" in keys or "iree-compile crashes at times" in keys, block
        assert {"iree", "iree not", "iree-compile fails", "iree-run fails", "iree-compile crashes at times"} & set(keys), \
            block


@pytest.mark.parametrize("block,keys", DOC_PROGRAMS, ids=[f"program{i}" for i in range(len(DOC_PROGRAMS))])
def test_the_program_does_on_iree_what_the_doc_says(block: str, keys: dict[str, str]) -> None:
    _check(block, keys)


def test_the_checks_can_fail() -> None:
    """A program whose stated output is wrong fails the check (the harness compares values, not just runs)."""
    block = "// inputs: [np.array([1.0, -0.0], np.float32)]\nfunc.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n" \
            "  %0 = stablehlo.negate %x : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n"
    keys = {"inputs": "[np.array([1.0, -0.0], np.float32)]"}
    _check(block, {**keys, "iree": "[np.array([-1.0, 0.0], np.float32)]"})
    with pytest.raises(AssertionError):
        _check(block, {**keys, "iree": "[np.array([-1.0, -0.0], np.float32)]"})  # the sign of zero counts
    with pytest.raises(AssertionError):
        _check(block, {**keys, "iree-compile fails": "anything"})
    with pytest.raises(AssertionError, match="without a crash"):
        _check(block, {**keys, "iree-compile crashes at times": "anything"}, crash_tries=2)

