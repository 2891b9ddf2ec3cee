"""What the jax backend refuses up front because running it would end the process, not raise.

XLA aborts the process (SIGABRT) where Python would get an exception: a buffer larger than the memory there is,
and a collective that some devices never reach (they wait for each other until XLA's rendezvous gives up and
aborts, after about a minute). ``JaxBackend.supports`` asks :func:`memory_reason` and
:func:`divergent_collective_reason` and says no to those programs, naming the op and the limit.
"""

from __future__ import annotations

import resource
from typing import Any

import specs
from backend.errors import SpecError
from backend.hlo import etypes
from backend.hlo.graph import Instruction, XlaComputation, reaches
from backend.hlo.shape import Shape
from specs.loader import COLLECTIVES

#: The ops whose value differs from device to device although every device runs the same program.
DEVICE_ID_OPCODES = frozenset({"ReplicaId", "PartitionId"})


def value_bytes(shape: Shape) -> int:
    """The bytes of a value of ``shape`` (its array leaves; tokens hold none)."""
    return sum(leaf.element_count() * etypes.bit_width(leaf.element_type()) // 8 + 1
               for leaf in shape.leaf_shapes() if leaf.is_array())


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _meminfo(key: str) -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _own_virtual_size() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def host_memory_available() -> tuple[int, str] | None:
    """The bytes the process can still allocate on the host, and which limit that is: the smallest of the
    free memory (MemAvailable), the cgroup's memory limit less its use, and the address-space limit
    (``ulimit -v``) less the process's size. None where none of them can be read."""
    limits: list[tuple[int, str]] = []
    available = _meminfo("MemAvailable")
    if available is not None:
        limits.append((available, "the host's available memory"))
    for limit_path, usage_path in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_path), _read_int(usage_path)
        if limit is not None and usage is not None and limit < 2**62:
            limits.append((max(0, limit - usage), "the memory cgroup's limit less its use"))
            break
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limits.append((max(0, soft - _own_virtual_size()), "the address-space limit (ulimit -v) less the process's size"))
    return min(limits) if limits else None


def device_memory_available(device: Any) -> tuple[int, str] | None:
    """The bytes free on ``device`` (a jax device): its allocator's limit less what is in use on an accelerator,
    the host's memory on the CPU."""
    if device.platform == "cpu":
        return host_memory_available()
    try:
        stats = device.memory_stats() or {}
    except Exception:  # noqa: BLE001 - a platform without memory statistics
        stats = {}
    if "bytes_limit" in stats:
        return (int(stats["bytes_limit"]) - int(stats.get("bytes_in_use", 0)),
                f"the free memory of {device.device_kind}")
    return None


def _size(count: int) -> str:
    for unit, scale in (("EiB", 2**60), ("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def memory_reason(computation: XlaComputation, device: Any) -> str | None:
    """Why a value of ``computation`` cannot fit in the memory ``device`` has left (naming the op, the value's
    size and the limit), or None. Each value alone is checked: XLA may fuse a large value away, but a result,
    a parameter or an unfused value of that size would end the process."""
    largest: tuple[int, Instruction] | None = None
    for comp in (*computation.subcomputations(), computation):
        for inst in comp.instructions:
            size = value_bytes(inst.shape)
            if largest is None or size > largest[0]:
                largest = (size, inst)
    if largest is None or largest[0] < 2**28:  # under 256 MiB: nothing to ask
        return None
    available = device_memory_available(device)
    if available is None or largest[0] <= available[0]:
        return None
    size, inst = largest
    return (f"{inst.opcode}: its value {inst.shape} takes {_size(size)}, more than {available[1]} "
            f"({_size(available[0])}); XLA would end the process allocating it")


def _is_collective(opcode: str) -> bool:
    try:
        return specs.get(opcode).category == COLLECTIVES
    except SpecError:  # the builder's own opcodes (Parameter, Tuple...)
        return False


def _depends_on_device_id(computation: XlaComputation, inst: Instruction) -> bool:
    """Whether ``inst``'s value in ``computation`` is computed from a ReplicaId or a PartitionId (there)."""
    return reaches(computation.instruction, inst.id, lambda current: current.opcode in DEVICE_ID_OPCODES)


def _first_collective(computations: list[XlaComputation]) -> Instruction | None:
    for comp in computations:
        for sub in (comp, *comp.subcomputations()):
            for inst in sub.instructions:
                if _is_collective(inst.opcode):
                    return inst
    return None


def divergent_collective_reason(computation: XlaComputation) -> str | None:
    """A collective inside a Conditional's branch (or a While's body) whose branch (or loop condition) is
    chosen from a ReplicaId or PartitionId: the program itself shows that devices may take different paths,
    so some devices may never reach it, and XLA then aborts the process. None when there is none."""
    for comp in (*computation.subcomputations(), computation):
        for inst in comp.instructions:
            if inst.opcode == "Conditional" and inst.operands and _depends_on_device_id(
                    comp, comp.instruction(inst.operands[0])):
                branches = [v for key in ("true_computation", "false_computation", "branch_computations")
                            for v in (inst.attrs.get(key) if isinstance(inst.attrs.get(key), (list, tuple))
                                      else [inst.attrs.get(key)]) if isinstance(v, XlaComputation)]
                found = _first_collective(branches)
                if found is not None:
                    return (f"{found.opcode} runs in a branch of Conditional {inst.name} chosen from the device's "
                            "ReplicaId or PartitionId, so devices may not all reach it; XLA waits for the missing "
                            "devices, then ends the process (the reference backend reports it as an error)")
            if inst.opcode == "While":
                condition, body = inst.attrs.get("condition"), inst.attrs.get("body")
                if isinstance(condition, XlaComputation) and isinstance(body, XlaComputation) and any(
                        i.opcode in DEVICE_ID_OPCODES for c in (condition, *condition.subcomputations())
                        for i in c.instructions):
                    found = _first_collective([body])
                    if found is not None:
                        return (f"{found.opcode} runs in the body of While {inst.name}, whose condition reads the "
                                "device's ReplicaId or PartitionId, so devices may run it different numbers of "
                                "times; XLA waits for the missing devices, then ends the process")
    return None


#: The most instructions a program may have once XLA has copied every sub-computation into each of its call sites.
MAX_FLATTENED_INSTRUCTIONS = 100_000


def _distinct_callees(inst: Instruction) -> list[XlaComputation]:
    """The computations ``inst`` calls, each once (a Conditional whose branches are one computation runs it once:
    see the jax Conditional lowering)."""
    out: list[XlaComputation] = []
    for value in inst.attrs.values():
        for sub in (value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(sub, XlaComputation) and all(sub is not o for o in out):
                out.append(sub)
    return out


def flattened_size_reason(computation: XlaComputation) -> str | None:
    """Why ``computation`` is too large once XLA flattens its call graph, or None.

    XLA gives every call site of a computation its own copy (the CPU and GPU pipelines flatten the call graph
    and inline calls), so two Whiles sharing a body, nested 18 deep, become 2^18 loops: a compilation of
    minutes, or a MemoryError. The count is exact (callees first, each computed once)."""
    size: dict[int, int] = {}
    sites: dict[int, int] = {}
    for comp in (*computation.subcomputations(), computation):
        total = 0
        for inst in comp.instructions:
            total += 1
            for sub in _distinct_callees(inst):
                total += size.get(sub.uid, 0)
                sites[sub.uid] = sites.get(sub.uid, 0) + 1
        size[comp.uid] = total
    total = size[computation.uid]
    if total <= MAX_FLATTENED_INSTRUCTIONS:
        return None
    called_often = [c for c in computation.subcomputations() if sites.get(c.uid, 0) > 1] or [computation]
    shared = max(called_often, key=lambda c: size[c.uid])
    return (f"the program has {total:,} instructions once XLA copies each sub-computation into every call site "
            f"(the most {MAX_FLATTENED_INSTRUCTIONS:,}): sub-computations such as '{shared.name}' are called from "
            "several places at several levels of nesting, and compiling that many copies takes minutes or "
            "runs out of memory")
