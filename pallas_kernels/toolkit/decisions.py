"""Kernel-or-fallback decisions, and ``explain`` for any registered op.

Every op wrapper first asks a *planner* whether its kernel covers the call.
The planner returns a :class:`KernelDecision`: either a plan for the kernel or
the reason for falling back to the XLA op.  ``explain(op, *args, **kwargs)``
runs the same planner without running anything.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("pallas_kernels")


@dataclasses.dataclass(frozen=True)
class KernelDecision:
    """Whether an op call runs a Pallas kernel, and why or why not.

    Attributes:
      op: the op name, e.g. ``"dot_general"``.
      uses_kernel: True when the Pallas kernel runs.
      reason: why the op falls back to XLA ("" when the kernel runs).
      plan: op-specific details of the kernel call (canonical shapes, dtypes),
        or None for a fallback.
    """

    op: str
    uses_kernel: bool
    reason: str = ""
    plan: Any = None

    @classmethod
    def kernel(cls, op: str, plan: Any) -> KernelDecision:
        return cls(op=op, uses_kernel=True, plan=plan)

    @classmethod
    def fallback(cls, op: str, reason: str) -> KernelDecision:
        return cls(op=op, uses_kernel=False, reason=reason)

    def log(self) -> None:
        """Log the decision at debug level (fallback reasons included)."""
        if self.uses_kernel:
            logger.debug("%s: Pallas kernel, plan=%s", self.op, self.plan)
        else:
            logger.debug("%s: falling back to XLA: %s", self.op, self.reason)


Planner = Callable[..., KernelDecision]
_planners: dict[str, Planner] = {}


def register_planner(op: str, planner: Planner) -> None:
    """Make ``explain(op, ...)`` use ``planner`` (called with the op's args)."""
    _planners[op] = planner


def explain(op: str, *args: Any, **kwargs: Any) -> KernelDecision:
    """Say whether ``op(*args, **kwargs)`` would run a kernel, and why not.

    Arrays may be concrete or ``jax.ShapeDtypeStruct``; nothing is computed.
    """
    try:
        planner = _planners[op]
    except KeyError:
        known = ", ".join(sorted(_planners)) or "none"
        raise ValueError(f"no Pallas kernel named {op!r} (known: {known})") from None
    return planner(*args, **kwargs)
