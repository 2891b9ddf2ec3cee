"""The jax backend's devices: host CPU devices, the (replica, partition) mesh, and ``ctx.devices`` in lowerings.

On the CPU, jax has one device unless told otherwise before its backends start; the backend gives it
:data:`DEFAULT_CPU_DEVICES` (or ``$XLA_SEMANTICS_CPU_DEVICES``) host devices, unless the user chose a count
(XLA_FLAGS' ``--xla_force_host_platform_device_count`` or ``jax_num_cpu_devices``). On GPU and TPU the backend
uses the devices jax sees; after ``jax.distributed.initialize()`` those are every host's devices.

A multi-device computation runs as ``shard_map`` over a ``Mesh`` of the first R * P devices shaped (R, P) with
axes ('replica', 'partition'); inside, the walker runs once (SPMD) and a lowering's ``ctx.devices`` is a
:class:`JaxDeviceContext`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

#: Host CPU devices the backend asks jax for (``$XLA_SEMANTICS_CPU_DEVICES`` overrides it).
DEFAULT_CPU_DEVICES = 8
ENV_CPU_DEVICES = "XLA_SEMANTICS_CPU_DEVICES"
AXIS_NAMES = ("replica", "partition")


def configure_cpu_devices() -> None:
    """Give jax's CPU platform several host devices, if jax's backends have not started and the user set none."""
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        return
    if "--xla_force_host_platform_device_count" in os.environ.get("XLA_FLAGS", ""):
        return
    if jax.config.jax_num_cpu_devices != -1:
        return
    text = os.environ.get(ENV_CPU_DEVICES, "")
    try:
        count = int(text) if text.strip() else DEFAULT_CPU_DEVICES
    except ValueError:
        raise ValueError(f"{ENV_CPU_DEVICES} must be a device count, got {text!r}") from None
    if count < 1:
        raise ValueError(f"{ENV_CPU_DEVICES} must be >= 1, got {count}")
    jax.config.update("jax_num_cpu_devices", count)


def available_devices(device: Any = None) -> list[Any]:
    """The devices a multi-device run may use: those of ``device``'s platform (default: jax's default)."""
    return jax.devices(device.platform) if device is not None else jax.devices()


def mesh(replicas: int, partitions: int, device: Any = None) -> jax.sharding.Mesh:
    devices = available_devices(device)[:replicas * partitions]
    return jax.sharding.Mesh(np.array(devices, dtype=object).reshape(replicas, partitions), AXIS_NAMES)


class JaxDeviceContext:
    """``ctx.devices`` in a jax lowering.

    ``replicas``, ``partitions``, ``axis_names``; ``device_id()`` (a traced s32 scalar, the global device id
    r * P + p), ``replica_id()``, ``partition_id()``; ``gather_all(x)`` (every device's ``x`` stacked on a new
    leading axis in device order); ``table(nested_list)`` (a constant array to index with the device id).
    On one device every id is 0 and ``gather_all(x)`` is ``x[None]``.
    """

    def __init__(self, replicas: int = 1, partitions: int = 1) -> None:
        self.replicas = replicas
        self.partitions = partitions
        self.axis_names = AXIS_NAMES

    @property
    def count(self) -> int:
        return self.replicas * self.partitions

    def replica_id(self) -> jax.Array:
        return lax.axis_index(AXIS_NAMES[0]).astype(jnp.int32) if self.count > 1 else jnp.int32(0)

    def partition_id(self) -> jax.Array:
        return lax.axis_index(AXIS_NAMES[1]).astype(jnp.int32) if self.count > 1 else jnp.int32(0)

    def device_id(self) -> jax.Array:
        if self.count == 1:
            return jnp.int32(0)
        return self.replica_id() * self.partitions + self.partition_id()

    def gather_all(self, x: jax.Array) -> jax.Array:
        if self.count == 1:
            return jnp.asarray(x)[None]
        return lax.all_gather(x, AXIS_NAMES, tiled=False)

    def table(self, values: Sequence[Any], dtype: Any = jnp.int32) -> jax.Array:
        return jnp.asarray(np.asarray(values), dtype=dtype)
