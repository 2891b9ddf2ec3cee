"""``python -m benchmarks.collectives``: each collective on 8 CPU devices, the jax backend's lowering against the
same collective written directly in jax, side by side in one run.

The command gives jax 8 host CPU devices itself (``XLA_FLAGS=--xla_force_host_platform_device_count=8`` and
``JAX_PLATFORMS=cpu``, set before jax is imported). For each collective it prints
- the time per call of the backend's lowering (``JaxBackend.lower_devices``: the jitted ``shard_map`` that
  ``execute`` runs, without execute's host-side stacking) and of a ``jax.jit(jax.shard_map(...))`` of the jax
  collective over a mesh of the same 8 devices, on the same device-resident arguments, and their ratio;
- the bytes each moves per device: the sizes of the operands and results of the collective ops (all-reduce,
  all-gather, reduce-scatter, all-to-all, collective-permute, collective-broadcast) in the compiled HLO;
- whether both compiled modules run the same collective ops (opcode, element type, dimensions, groups);
- the path the backend chose (:func:`backend.jax_backend.collective_paths.paths_of`).

Times are the fastest of many calls, each waited for, ours and jax's interleaved call by call (the least
disturbed by other processes: on a busy machine XLA's CPU collectives, one thread per device, vary by 3x). ``--write PATH``
writes the table as Markdown with the device, jax's version and the date.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

DEVICES = 8
#: HLO opcodes that move data between devices (their -start forms included).
COLLECTIVE_OPCODES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
                      "collective-broadcast")
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(\(.*?\)|\S+)\s+([\w\-]+)\((.*?)\)")
_ARRAY = re.compile(r"\b([a-z]+[0-9a-z]*)\[([0-9,]*)\]")


def force_cpu_devices(count: int = DEVICES) -> None:
    """Ask jax for ``count`` host CPU devices (only effective before jax starts its backends)."""
    flags = os.environ.get("XLA_FLAGS", "")
    flags = re.sub(r"--xla_force_host_platform_device_count=\d+", "", flags)
    os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={count}".strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def shape_bytes(text: str) -> int:
    """The bytes of an HLO shape (``f32[8,4]{1,0}``, or a tuple of them); tokens count nothing."""
    from backend.hlo import etypes

    total = 0
    for name, dims in _ARRAY.findall(text):
        count = int(np.prod([int(d) for d in dims.split(",") if d], dtype=np.int64))
        total += count * etypes.bit_width(etypes.from_short_name(name)) // 8
    return total


def _collective_ops(hlo_text: str) -> list[tuple[str, str, list[str], str]]:
    """(opcode, result shape, operand shapes, replica groups) of every collective op in an HLO module's text."""
    shapes: dict[str, str] = {}
    out = []
    for line in hlo_text.splitlines():
        match = _INSTRUCTION.match(line)
        if match is None:
            continue
        name, shape, opcode, operands = match.groups()
        shapes[name] = shape
        if opcode.removesuffix("-start") in COLLECTIVE_OPCODES:
            names = [o.strip().split()[-1].lstrip("%") for o in operands.split(",") if o.strip()]
            groups = re.search(r"(replica_groups=\S+|source_target_pairs=\S+)", line)
            out.append((opcode, shape, [shapes.get(n, "") for n in names], groups.group(1) if groups else ""))
    return out


def collective_bytes(hlo_text: str) -> int:
    """Bytes moved per device: the operands' and results' sizes of every collective op in an HLO module's text
    (one per device under SPMD)."""
    return sum(shape_bytes(shape) + sum(map(shape_bytes, operands)) for _, shape, operands, _ in
               _collective_ops(hlo_text))


def collective_signature(hlo_text: str) -> list[str]:
    """The collective ops of an HLO module's text as ``opcode element-types+dimensions groups``, layouts and names
    left out: two modules with the same signature run the same collectives."""
    return [f"{opcode} {','.join(f'{t}[{d}]' for t, d in _ARRAY.findall(shape))} {groups}"
            for opcode, shape, _, groups in _collective_ops(hlo_text)]


def _cases(elements: int) -> list[tuple[str, Any, Callable[..., Any], np.ndarray]]:
    """(name, computation, the per-device jax function over axis 'i', per-device argument [8, *shape])."""
    import jax.numpy as jnp
    from jax import lax

    from backend import PrimitiveType, Shape, XlaBuilder, ops
    from backend.surface.computations import add_computation

    f32 = PrimitiveType.F32
    add = add_computation(f32)
    rng = np.random.default_rng(0)
    n = elements

    def param(b: XlaBuilder, size: int) -> Any:
        return ops.Parameter(b, 0, Shape.array_shape(f32, [size]), "x")

    def data(size: int) -> np.ndarray:
        return rng.standard_normal((DEVICES, size), np.float32)

    def case(name: str, build: Callable[[Any], Any], fn: Callable[..., Any], size: int) -> tuple[Any, ...]:
        b = XlaBuilder(name.split()[0])
        build(param(b, size))
        return (name, b.build(), fn, data(size))

    def bits_broadcast(x: Any) -> Any:  # exact: integers add zeros exactly, a float psum flushes subnormals
        bits = lax.bitcast_convert_type(jnp.where(lax.axis_index("i") == 0, x, 0), jnp.uint32)
        return lax.bitcast_convert_type(lax.psum(bits, "i"), jnp.float32)

    pairs = [(i, (i + 1) % DEVICES) for i in range(DEVICES)]
    halves = [[0, 1, 2, 3], [4, 5, 6, 7]]
    return [
        case(f"AllReduce add f32[{n}]", lambda x: ops.AllReduce(x, add), lambda x: lax.psum(x, "i"), n),
        case(f"AllGather f32[{n}]", lambda x: ops.AllGather(x, 0, DEVICES),
             lambda x: lax.all_gather(x, "i", tiled=True), n),
        case(f"AllGather f32[{n}], groups of 4", lambda x: ops.AllGather(x, 0, 4, replica_groups=halves),
            lambda x: lax.all_gather(x, "i", tiled=True, axis_index_groups=halves), n),
        case(f"ReduceScatter add f32[{DEVICES * n}]", lambda x: ops.ReduceScatter(x, add, 0, DEVICES),
             lambda x: lax.psum_scatter(x, "i", tiled=True), DEVICES * n),
        case(f"AllToAll f32[{DEVICES * n}]", lambda x: ops.AllToAll(x, 0, 0, DEVICES),
             lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True), DEVICES * n),
        case(f"CollectiveBroadcast f32[{n}]", lambda x: ops.CollectiveBroadcast(x, [list(range(DEVICES))]),
             lambda x: lax.psum(jnp.where(lax.axis_index("i") == 0, x, 0), "i"), n),
        case(f"CollectiveBroadcast f32[{n}] (jax: psum of the bits)",
             lambda x: ops.CollectiveBroadcast(x, [list(range(DEVICES))]), bits_broadcast, n),
        case(f"CollectivePermute f32[{n}], ring", lambda x: ops.CollectivePermute(x, pairs),
             lambda x: lax.ppermute(x, "i", pairs), n),
    ]


def _call_seconds(fn: Callable[[], Any]) -> float:
    """One call's seconds, waited for: XLA's CPU collectives meet at a rendezvous of one thread per device, and
    many runs in flight at once can starve it on a machine with few cores (it aborts the process)."""
    import jax

    start = time.perf_counter()
    jax.block_until_ready(fn())
    return time.perf_counter() - start


def figures(elements: int = 1 << 16, calls: int = 300) -> list[dict[str, Any]]:
    """Per collective: name, path, our and jax's seconds per call, ratio, our and jax's bytes per device, whether
    both run the same collective ops."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    from backend import get_backend
    from backend.jax_backend.collective_paths import paths_of

    if jax.device_count() < DEVICES:
        raise SystemExit(f"needs {DEVICES} devices, jax has {jax.device_count()} (jax started before the command "
                         "could ask for more)")
    backend = get_backend("jax")
    devices = np.array(jax.devices()[:DEVICES])
    flat = jax.sharding.Mesh(devices, ("i",))
    grid = jax.sharding.Mesh(devices.reshape(DEVICES, 1), ("replica", "partition"))
    out = []
    for name, computation, fn, data in _cases(elements):
        ours = backend.lower_devices(computation, DEVICES, 1)
        ours_arg = jax.device_put(data.reshape(DEVICES, 1, -1), NamedSharding(grid, PartitionSpec("replica",
                                                                                                  "partition")))
        direct = jax.jit(jax.shard_map(lambda x, fn=fn: fn(x[0])[None], mesh=flat, in_specs=PartitionSpec("i"),
                                       out_specs=PartitionSpec("i")))
        direct_arg = jax.device_put(data, NamedSharding(flat, PartitionSpec("i")))
        ours_result = ours(ours_arg)
        ours_result = ours_result[0] if isinstance(ours_result, (tuple, list)) else ours_result
        np.testing.assert_array_equal(np.asarray(ours_result).reshape(DEVICES, -1),
                                      np.asarray(direct(direct_arg)).reshape(DEVICES, -1))
        best = [float("inf"), float("inf")]
        for _ in range(calls):  # call by call, interleaved, so that a busy moment hits both
            best[0] = min(best[0], _call_seconds(functools.partial(ours, ours_arg)))
            best[1] = min(best[1], _call_seconds(functools.partial(direct, direct_arg)))
        [(_, path)] = paths_of(computation, DEVICES, 1)
        ours_hlo, direct_hlo = (f.lower(a).compile().as_text() for f, a in ((ours, ours_arg), (direct, direct_arg)))
        out.append({"name": name, "path": path.name, "ours_s": best[0], "jax_s": best[1], "ratio": best[0] / best[1],
                    "ours_bytes": collective_bytes(ours_hlo),
                    "jax_bytes": collective_bytes(direct_hlo), "same_collectives":
                        collective_signature(ours_hlo) == collective_signature(direct_hlo)})
    return out


def table(rows: Sequence[dict[str, Any]]) -> list[str]:
    lines = ["| collective | path | ours | jax | ratio | bytes/device ours | bytes/device jax | same collectives |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['path']} | {r['ours_s'] * 1e6:.1f} us | {r['jax_s'] * 1e6:.1f} us | "
                     f"{r['ratio']:.2f} | {r['ours_bytes']} | {r['jax_bytes']} | {'yes' if r['same_collectives'] else 'no'} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.collectives", description=__doc__.split("\n")[0])
    parser.add_argument("--elements", type=int, default=1 << 16, help="f32 elements per device (default 65536)")
    parser.add_argument("--calls", type=int, default=300, help="calls of each side (the fastest is kept)")
    parser.add_argument("--write", metavar="PATH", help="also write the table as Markdown to PATH")
    args = parser.parse_args(argv)
    force_cpu_devices()
    import jax

    rows = figures(args.elements, args.calls)
    device = jax.devices()[0]
    header = (f"{DEVICES} {device.platform} devices ({device.device_kind}), jax {jax.__version__}, "
              f"{datetime.date.today().isoformat()}; fastest of {args.calls} calls each")
    print(header)
    for line in table(rows):
        print(line)
    if args.write:
        with open(args.write, "w") as f:
            f.write(f"# Collectives on {DEVICES} CPU devices\n\n`python -m benchmarks.collectives --write {args.write}`: "
                    f"{header}.\n\n" + "\n".join(table(rows)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
