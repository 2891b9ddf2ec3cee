"""``backend.client``: the execution half of the former xla_client over a project backend. Its use as xla_client
code wrote it is ``tests/test_xla_client_port.py``; here, what it refuses and how it says so."""

import warnings

import numpy as np
import pytest

import backend as xla_client
from backend import OpError, UnsupportedError, ops
from backend.client import NO_COUNTERPART, NoCounterpartError

F32 = xla_client.PrimitiveType.F32


def _double():
    c = xla_client.XlaBuilder("double")
    x = ops.Parameter(c, 0, xla_client.Shape.array_shape(F32, (2,)))
    ops.Add(x, x)
    return c.build()


@pytest.fixture
def client():
    return xla_client.make_cpu_client("reference", device_count=2)


def test_make_cpu_client_takes_a_backend_and_a_device_count():
    assert xla_client.make_cpu_client("reference").device_count() == 1   # one unless asked: xla_client's CPU
    assert xla_client.make_cpu_client("reference", device_count=3).device_count() == 3
    for bad in (0, -1, True, 1.5):
        with pytest.raises(OpError) as e:
            xla_client.make_cpu_client("reference", device_count=bad)
        assert e.value.arg == "device_count"
    with pytest.raises(ValueError, match="unknown backend"):
        xla_client.make_cpu_client("no_such_backend")


def test_compile_refuses_what_it_cannot_run(client):
    with pytest.raises(OpError) as e:
        client.compile("not a module")
    assert e.value.op == "stablehlo_import" or "parse" in str(e.value)
    with pytest.raises(OpError) as e:
        client.compile(42)
    assert (e.value.op, e.value.arg) == ("Client.compile", "computation")
    with pytest.raises(OpError) as e:
        client.compile(_double(), {"num_replicas": 2})
    assert e.value.arg == "compile_options"
    with pytest.raises(OpError) as e:
        client.compile(_double(), xla_client.CompileOptions(num_replicas=0))
    assert e.value.arg == "num_replicas"
    with pytest.raises(UnsupportedError, match="need 3 devices and the client has 2"):
        client.compile(_double(), xla_client.CompileOptions(num_replicas=3))


def test_compile_takes_stablehlo_text(client):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = xla_client.export.stablehlo_text(_double(), "cpu")
    executable = client.compile(text)
    assert xla_client.execute_with_python_values(executable, [np.array([1, 2], np.float32)], client)[0].tolist() \
        == [2, 4]


def test_execute_arguments_are_checked(client):
    executable = client.compile(_double())
    with pytest.raises(OpError):
        executable.execute(np.zeros(2, np.float32))   # not a list of arguments
    sharded = client.compile(_double(), xla_client.CompileOptions(num_replicas=2))
    with pytest.raises(OpError, match="execute runs one device; this executable runs 2"):
        sharded.execute([np.zeros(2, np.float32)])
    with pytest.raises(OpError, match="argument 0 has 1 values, one per device is 2"):
        sharded.execute_sharded_on_local_devices([[np.zeros(2, np.float32)]])
    with pytest.raises(OpError, match="1 argument lists for 2 devices"):
        xla_client.execute_with_python_values_replicated(sharded, [[np.zeros(2, np.float32)]], client)


def test_buffers(client):
    other = xla_client.make_cpu_client("reference").devices()[0]
    with pytest.raises(OpError, match="is not a device of this client"):
        client.buffer_from_pyval(np.zeros(2), other)
    with pytest.raises(OpError) as e:
        client.buffer_from_pyval({"a": 1})
    assert e.value.arg == "pyval"
    buffer = client.buffer_from_pyval(np.arange(3, dtype=np.int32), force_copy=True)
    assert buffer.on_device_size_in_bytes() == 12 and str(buffer.xla_shape()).startswith("s32[3]")
    assert buffer.block_until_ready() is buffer and buffer.to_py().tolist() == [0, 1, 2]
    buffer.delete()
    assert buffer.is_deleted()
    with pytest.raises(OpError, match="deleted"):
        np.asarray(buffer)


def test_outfeed_reads_are_checked(client):
    device = client.devices()[0]
    shape = xla_client.Shape.array_shape(F32, (2,))
    with pytest.raises(OpError, match="is empty"):
        device.transfer_from_outfeed(shape)
    device.outfeed.append(np.zeros(3, np.float32))
    with pytest.raises(OpError, match="the next outfeed value is f32\\[3\\]"):
        device.transfer_from_outfeed(shape)


@pytest.mark.parametrize("owner", sorted(NO_COUNTERPART))
def test_every_member_without_a_counterpart_says_so(client, owner):
    executable = client.compile(_double())
    objects = {"Client": client, "LoadedExecutable": executable, "Buffer": client.buffer_from_pyval(np.zeros(1))}
    for name, reason in NO_COUNTERPART[owner].items():
        with pytest.raises(NoCounterpartError) as e:
            getattr(objects[owner], name)
        assert isinstance(e.value, UnsupportedError) and isinstance(e.value, AttributeError)
        assert f"{owner}.{name}" in str(e.value) and reason in str(e.value)
        assert not hasattr(objects[owner], name)
