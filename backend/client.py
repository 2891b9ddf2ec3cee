"""The execution half of the former ``xla_client``: a client over one of this project's backends.

Code written for xla_client built a computation, then compiled and ran it through a client::

    client = xla_client.make_cpu_client()
    executable = client.compile(builder.build())         # or StableHLO text / bytecode
    outputs = xla_client.execute_with_python_values(executable, [x], backend=client)

Here :func:`make_cpu_client` gives a :class:`Client` over a backend of the registry (``"jax"``, the default: XLA
through jax, the nearest to xla_client's CPU client; ``"reference"``: the NumPy reference; any name
:func:`~backend.backends.get_backend` takes). ``compile`` checks that the backend can run the computation (an
``UnsupportedError`` saying why, else a :class:`LoadedExecutable`); ``execute`` runs it with the backend's
``execute``, so an invalid argument is an ``OpError``, which is also xla_client's ``XlaRuntimeError`` (a
``RuntimeError``). Buffers are host arrays. What xla_client's client did that has no counterpart over a project
backend (serialized executables, cross-host transfers, memory statistics...) raises a
:class:`NoCounterpartError` saying so: an ``UnsupportedError``, and an ``AttributeError`` so ``hasattr`` stays
False.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from backend.backends import get_backend
from backend.errors import OpError, UnsupportedError
from backend.hlo.graph import XlaComputation
from backend.hlo.shape import Shape, shape_from_pyval
from backend.runtime.host_io import HOST_IO_OPCODES
from backend.runtime.protocol import Backend


class NoCounterpartError(UnsupportedError, AttributeError):
    """An xla_client client, executable or buffer member with no counterpart over a project backend."""

    def __init__(self, backend: str, name: str, reason: str) -> None:
        UnsupportedError.__init__(self, backend, name, f"xla_client's {name} has no counterpart here: {reason}")


#: xla_client members with no counterpart, by the class that had them: name -> why (and what to use instead).
NO_COUNTERPART: dict[str, dict[str, str]] = {
    "Client": {
        "serialize_executable": "an executable is its XlaComputation; keep that (as_hlo_text(), "
                                "backend.export for StableHLO)",
        "deserialize_executable": "compile the computation (or its StableHLO text) again",
        "defragment": "buffers are host arrays, there is no device memory to defragment",
        "make_cross_host_receive_buffers": "a client runs on this host only",
        "live_buffers": "buffers are host arrays the client does not track",
        "live_executables": "the client does not track its executables",
        "live_arrays": "buffers are host arrays the client does not track",
        "heap_profile": "there is no device heap",
        "compile_ifrt_program": "compile an XlaComputation or StableHLO text",
        "make_python_callback_from_host_send_and_recv": "register a custom-call target "
                                                        "(backend.register_custom_call_target)",
        "get_emit_python_callback_descriptor": "register a custom-call target (backend.register_custom_call_target)",
        "get_default_layout": "layouts are the shapes' own (Shape.array_shape(..., layout))",
        "topology": "devices() lists the devices a backend runs",
    },
    "LoadedExecutable": {
        "execute_sharded": "use execute_sharded_on_local_devices (one list per output, one buffer per device)",
        "execute_with_token": "tokens are values of the computation (ops.CreateToken, ops.AfterAll)",
        "serialize": "an executable is its XlaComputation; keep that",
        "cost_analysis": "no compiler cost model runs here",
        "get_compiled_memory_stats": "no compiler memory plan runs here",
        "hlo_modules": "the executable's computation is executable.computation (as_hlo_text())",
        "fingerprint": "an executable is its XlaComputation; compare their as_hlo_text()",
    },
    "Buffer": {
        "unsafe_buffer_pointer": "a buffer is a host NumPy array (np.asarray(buffer))",
        "copy_to_remote_device": "a client runs on this host only",
    },
}


class _NoCounterpart:
    """``__getattr__`` for the xla_client members of :data:`NO_COUNTERPART`: a clear error instead of an
    AttributeError with no reason."""

    _kind = ""

    def _backend_name(self) -> str:
        raise NotImplementedError

    def __getattr__(self, name: str) -> Any:
        reason = NO_COUNTERPART.get(self._kind, {}).get(name)
        if reason is None:
            raise AttributeError(f"'{self._kind}' object has no attribute '{name}'")
        raise NoCounterpartError(self._backend_name(), f"{self._kind}.{name}", reason)


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """xla_client's ``CompileOptions``, the fields a project backend uses: the replicas and partitions to run."""

    num_replicas: int = 1
    num_partitions: int = 1


class Device:
    """A device of a client (``id``, ``platform``, ``device_kind``, ``process_index``, as xla_client's), with its
    infeed and outfeed queues: ``transfer_to_infeed(value)`` before a run that reads the infeed (InfeedWithToken,
    RecvFromHost), ``transfer_from_outfeed(shape)`` after one that writes it (OutfeedWithToken, SendToHost)."""

    def __init__(self, id: int, platform: str, device_kind: str, process_index: int = 0) -> None:
        self.id = id
        self.platform = platform
        self.device_kind = device_kind
        self.process_index = process_index
        self.infeed: list[Any] = []
        self.outfeed: list[Any] = []

    @property
    def host_id(self) -> int:
        return self.process_index

    def transfer_to_infeed(self, value: Any) -> None:
        """Queue ``value`` (an array, or a tuple of them for a tuple shape) for the next run's infeed reads."""
        self.infeed.append(value)

    def transfer_from_outfeed(self, shape: Shape) -> Any:
        """The oldest value a run wrote to the outfeed, which must have ``shape``."""
        if not self.outfeed:
            raise OpError("Device.transfer_from_outfeed", "outfeed", f"the outfeed of {self!r} is empty", "shape")
        value = self.outfeed[0]
        have = _value_shape(value)
        if str(have) != str(shape):
            raise OpError("Device.transfer_from_outfeed", "outfeed", f"the next outfeed value is {have}, asked for "
                          f"{shape}", "shape", {"shape": str(shape)})
        return self.outfeed.pop(0)

    def __repr__(self) -> str:
        return f"Device(id={self.id}, platform='{self.platform}', kind='{self.device_kind}')"


class Buffer(_NoCounterpart):
    """An array on a device, held on the host (xla_client's buffer): ``np.asarray(buffer)``, ``to_py()``."""

    _kind = "Buffer"

    def __init__(self, value: Any, device: Device, backend_name: str) -> None:
        self._value: np.ndarray | None = np.asarray(value)
        self._device = device
        self._backend = backend_name

    def _backend_name(self) -> str:
        return self._backend

    def _array(self) -> np.ndarray:
        if self._value is None:
            raise OpError("Buffer", "deleted", "the buffer was deleted", "buffer")
        return self._value

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        value = self._array()
        return value if dtype is None else value.astype(dtype)

    def to_py(self) -> np.ndarray:
        return self._array()

    def numpy(self) -> np.ndarray:
        return self._array()

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._array().shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._array().dtype

    def xla_shape(self) -> Shape:
        return shape_from_pyval(self._array())

    def device(self) -> Device:
        return self._device

    def block_until_ready(self) -> Buffer:
        return self

    def delete(self) -> None:
        self._value = None

    def is_deleted(self) -> bool:
        return self._value is None

    def on_device_size_in_bytes(self) -> int:
        return int(self._array().nbytes)

    def __repr__(self) -> str:
        return f"Buffer({self._array()!r}, device={self._device!r})"


def _value_shape(value: Any) -> Shape:
    if isinstance(value, tuple):
        return Shape.tuple_shape([_value_shape(v) for v in value])
    return shape_from_pyval(np.asarray(value))


def _host_value(value: Any) -> Any:
    return value.to_py() if isinstance(value, Buffer) else value


class LoadedExecutable(_NoCounterpart):
    """A computation compiled for a client's devices (xla_client's ``LoadedExecutable``)."""

    _kind = "LoadedExecutable"

    def __init__(self, client: Client, computation: XlaComputation, options: CompileOptions) -> None:
        self.client = client
        self.computation = computation
        self.options = options
        self._devices = client.devices()[:options.num_replicas * options.num_partitions]

    def _backend_name(self) -> str:
        return self.client.backend.name

    def local_devices(self) -> list[Device]:
        """The devices it runs on (device d = replica * num_partitions + partition)."""
        return list(self._devices)

    def execute(self, arguments: Sequence[Any]) -> list[Buffer]:
        """Runs it on its one device: one buffer per result (a tuple result's elements)."""
        if len(self._devices) > 1:
            raise OpError(self.computation.name, "arguments", f"execute runs one device; this executable runs "
                          f"{len(self._devices)} (use execute_sharded_on_local_devices)", "arguments")
        device = self._devices[0]
        args = [_host_value(a) for a in _sequence(arguments)]
        if not _uses_host_io(self.computation):
            results = self.client.backend.execute(self.computation, args)
        else:  # the device's queues: what the run reads is taken off its infeed
            infeed, device.infeed = device.infeed, []
            outfeed: list[Any] = []
            results = self.client.backend.execute(self.computation, args, infeed=infeed,  # type: ignore[call-arg]
                                                  outfeed=outfeed)
            device.outfeed.extend(outfeed)
        return [Buffer(r, device, self._backend_name()) for r in results]

    def execute_sharded_on_local_devices(self, arguments: Sequence[Sequence[Any]]) -> list[list[Buffer]]:
        """Runs it on all its devices: ``arguments[i][d]`` is argument i on device d; the result's ``[j][d]`` is
        result j of device d."""
        count = len(self._devices)
        arguments = [_sequence(per_device) for per_device in _sequence(arguments)]
        wrong = [i for i, per_device in enumerate(arguments) if len(per_device) != count]
        if wrong:
            raise OpError(self.computation.name, "arguments", f"argument {wrong[0]} has {len(arguments[wrong[0]])} "
                          f"values, one per device is {count}", "arguments")
        per_device = [[_host_value(argument[d]) for argument in arguments] for d in range(count)]
        o = self.options
        if count == 1:
            results = [self.client.backend.execute(self.computation, per_device[0])]
        else:
            results = self.client.backend.execute(self.computation, per_device, o.num_replicas, o.num_partitions)
        return [[Buffer(results[d][j], self._devices[d], self._backend_name()) for d in range(count)]
                for j in range(len(results[0]))]


def _uses_host_io(computation: XlaComputation) -> bool:
    """Whether a run reads the infeed or writes the outfeed (Infeed, Outfeed, RecvFromHost, SendToHost...)."""
    return any(i.opcode in HOST_IO_OPCODES for c in (computation, *computation.subcomputations())
               for i in c.instructions)


def _sequence(value: Any) -> list[Any]:
    if isinstance(value, (str, bytes, dict, np.ndarray, Buffer)) or not isinstance(value, Sequence):
        raise OpError("execute", "arguments", f"expected a list of arguments, got {type(value).__name__}",
                      "arguments")
    return list(value)


class Client(_NoCounterpart):
    """xla_client's client over a project backend: its devices, ``compile``, ``buffer_from_pyval``."""

    _kind = "Client"

    def __init__(self, backend: Backend, devices: list[Device], platform: str) -> None:
        self.backend = backend
        self.platform = platform
        self.platform_version = f"xla_semantics {backend.name} backend"
        self.runtime_type = "project backend"
        self._devices = devices

    def _backend_name(self) -> str:
        return self.backend.name

    def devices(self) -> list[Device]:
        return list(self._devices)

    def local_devices(self) -> list[Device]:
        return list(self._devices)

    def device_count(self) -> int:
        return len(self._devices)

    def local_device_count(self) -> int:
        return len(self._devices)

    def process_index(self) -> int:
        return 0

    def host_id(self) -> int:
        return 0

    def get_default_device_assignment(self, num_replicas: int, num_partitions: int | None = None) -> Any:
        """The first devices: a list of ``num_replicas``, or ``[replica][partition]`` with ``num_partitions``."""
        partitions = 1 if num_partitions is None else num_partitions
        self._check_count(num_replicas, partitions)
        if num_partitions is None:
            return self._devices[:num_replicas]
        return [self._devices[r * partitions:(r + 1) * partitions] for r in range(num_replicas)]

    def _check_count(self, replicas: Any, partitions: Any) -> None:
        for name, value in (("num_replicas", replicas), ("num_partitions", partitions)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise OpError("Client.compile", "arguments", f"{name} must be an integer >= 1, got {value!r}", name)
        if replicas * partitions > len(self._devices):
            raise UnsupportedError(self.backend.name, "Client.compile", f"{replicas} replicas x {partitions} "
                                   f"partitions need {replicas * partitions} devices and the client has "
                                   f"{len(self._devices)} (make_cpu_client(..., device_count=N))")

    def compile(self, computation: Any, compile_options: CompileOptions | None = None) -> LoadedExecutable:
        """An executable of ``computation`` (an XlaComputation, or a StableHLO module as text or bytecode) on the
        backend; an UnsupportedError when the backend cannot run it."""
        if isinstance(computation, (str, bytes)):
            from backend.stablehlo_import import import_module

            computation = import_module(computation)
        if not isinstance(computation, XlaComputation):
            raise OpError("Client.compile", "arguments", "expected an XlaComputation (XlaBuilder.build()) or a "
                          f"StableHLO module, got {type(computation).__name__}", "computation")
        options = compile_options or CompileOptions()
        if not isinstance(options, CompileOptions):
            raise OpError("Client.compile", "arguments", f"compile_options must be a CompileOptions, got "
                          f"{type(options).__name__}", "compile_options")
        self._check_count(options.num_replicas, options.num_partitions)
        reason = self.backend.supports(computation)
        if reason is not None:
            raise UnsupportedError(self.backend.name, computation.name, reason)
        return LoadedExecutable(self, computation, options)

    def buffer_from_pyval(self, pyval: Any, device: Device | None = None, force_copy: bool = False,
                          host_buffer_semantics: Any = None) -> Buffer:
        """``pyval`` (a NumPy array or scalar) as a buffer on ``device`` (the first by default)."""
        if device is None:
            device = self._devices[0]
        elif not any(device is d for d in self._devices):
            raise OpError("Client.buffer_from_pyval", "arguments", f"{device!r} is not a device of this client",
                          "device")
        value = np.asarray(pyval)
        if value.dtype == object:
            raise OpError("Client.buffer_from_pyval", "arguments", f"expected a NumPy array or scalar, got "
                          f"{type(pyval).__name__}", "pyval")
        return Buffer(value.copy() if force_copy else value, device, self.backend.name)

    def __repr__(self) -> str:
        return f"Client(backend='{self.backend.name}', platform='{self.platform}', devices={len(self._devices)})"


def make_cpu_client(backend: str = "jax", device_count: int | None = None) -> Client:
    """xla_client's ``make_cpu_client``: a client over ``backend`` (a name :func:`get_backend` takes). Its devices:
    ``device_count`` (>= 1), or the jax backend's devices (jax's), or one (the reference runs any number: ask
    for them)."""
    runner = get_backend(backend)
    platform, kind = "cpu", f"{runner.name} (host)"
    if device_count is None:
        device_count = 1
        if runner.name in ("jax", "pallas"):
            from backend.jax_backend.devices import available_devices

            jax_devices = available_devices()
            device_count, platform, kind = len(jax_devices), jax_devices[0].platform, jax_devices[0].device_kind
    if isinstance(device_count, bool) or not isinstance(device_count, int) or device_count < 1:
        raise OpError("make_cpu_client", "arguments", f"device_count must be an integer >= 1, got {device_count!r}",
                      "device_count")
    return Client(runner, [Device(i, platform, kind) for i in range(device_count)], platform)


def make_gpu_client(*args: Any, **kwargs: Any) -> Client:
    """xla_client's GPU client: none here (the jax backend runs on jax's default devices, a GPU when jax has one)."""
    raise NoCounterpartError("jax", "make_gpu_client", "make_cpu_client('jax') runs on jax's default devices, "
                             "a GPU's when jax has one")


def make_tpu_client(*args: Any, **kwargs: Any) -> Client:
    """xla_client's TPU client: none here (the jax backend runs on jax's default devices, a TPU's when jax has one)."""
    raise NoCounterpartError("jax", "make_tpu_client", "make_cpu_client('jax') runs on jax's default devices, "
                             "a TPU's when jax has one")


def execute_with_python_values(executable: LoadedExecutable, arguments: Sequence[Any], backend: Client
                               ) -> list[np.ndarray]:
    """xla_client's helper: runs ``executable`` on one device with Python values in and out."""
    device = executable.local_devices()[0]
    buffers = [backend.buffer_from_pyval(a, device) for a in _sequence(arguments)]
    return [np.asarray(x) for x in executable.execute(buffers)]


def execute_with_python_values_replicated(executable: LoadedExecutable, arguments: Sequence[Sequence[Any]],
                                          backend: Client) -> list[list[np.ndarray]]:
    """xla_client's helper: ``arguments[replica][i]`` in, one list of results per replica out."""
    devices = executable.local_devices()
    per_replica = [_sequence(a) for a in _sequence(arguments)]
    if len(per_replica) != len(devices):
        raise OpError("execute_with_python_values_replicated", "arguments", f"{len(per_replica)} argument lists "
                      f"for {len(devices)} devices", "arguments")
    buffers = [[backend.buffer_from_pyval(a, devices[r]) for a in args] for r, args in enumerate(per_replica)]
    outputs = executable.execute_sharded_on_local_devices([list(column) for column in zip(*buffers)])
    return [[np.asarray(output[r]) for output in outputs] for r in range(len(devices))]
