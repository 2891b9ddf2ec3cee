"""An IREE backend for the conformance suite, built on the public export API only.

It takes a computation's StableHLO from :func:`backend.export.stablehlo_text` (as any outside
backend would), compiles it with IREE for the CPU (``llvm-cpu`` target, ``local-task`` driver) and
runs it with IREE's runtime. Install with ``pip install -e '.[iree]'`` (from the checkout); then
``python -m conformance run --backend iree`` (the ``xla_semantics.backends`` entry point).

``execute_batch`` (used by the conformance runner) links a batch of computations into one module of
named functions (:func:`backend.export.link_stablehlo_modules`) and compiles it with one ``iree-compile``
run. Compiled modules are cached in memory per computation, and on disk keyed by the SHA-256 of the
StableHLO module, the compiler version and its flags (``$XLA_SEMANTICS_IREE_CACHE``, default
``~/.cache/xla-semantics/iree``; ``cache_dir=None`` turns the disk cache off).

Element types IREE's runtime has no NumPy mapping for (``f8e4m3``, ``f8e3m4``, ``f8e4m3b11fnuz``, ``s2``, ``s4``,
``u2``, ``u4``, ``f4e2m1fn``) cross the module boundary as 8-bit integers and are converted inside the module
(:mod:`xla_semantics_iree.bridge`).

Ops that exchange data between devices or read their device's id (the collectives, ReplicaId, PartitionId) are
refused: IREE's CPU drivers implement no collective channels (``NO_COLLECTIVES``; docs/iree_differences.md, U1). A
program on several devices without them runs once per device.

``IreeVmvxBackend`` (``--backend iree-vmvx``, or ``xla_semantics_iree:IreeVmvxBackend``) is the same on IREE's
portable reference VM: the ``vmvx`` target (a code generator of its own, no LLVM) and the ``local-sync`` driver.
"""

from xla_semantics_iree.executor import IreeBackend, IreeVmvxBackend

__all__ = ["IreeBackend", "IreeVmvxBackend"]
