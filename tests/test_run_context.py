"""The run context (``ctx``) of evaluators, mask functions and lowerings: backend.runtime.context.OpRunContext.

The walker's EvalContext and the views that stand in for it provide the protocol, both backends' device contexts
provide DeviceInfo, and every registered function declares its first parameter as its backend's context (what a
type checker holds each function to)."""

import inspect

import numpy as np
import pytest

from backend import XlaBuilder, ops
from backend.hlo.shape import Shape
from backend.jax_backend import LOWERINGS
from backend.jax_backend.devices import JaxDeviceContext
from backend.pallas_backend import PALLAS_LOWERINGS
from backend.reference import EVALUATORS, IMPLEMENTATION_DEFINED
from backend.reference.devices import DeviceContext
from backend.runtime.collective_view import CollectiveView
from backend.runtime.context import ContextView, DeviceInfo, OpRunContext
from backend.runtime.walker import EvalContext, GraphWalker

F32_4 = Shape.array_shape(np.float32, [4])


def _context(devices=None):
    b = XlaBuilder("c")
    ops.AllReduceStart(ops.Parameter(b, 0, F32_4), _add())
    comp = b.build()
    return EvalContext(comp.root_instruction, GraphWalker("reference", EVALUATORS, devices or DeviceContext()),
                       [np.zeros(4, np.float32)], [F32_4])


def _add():
    b = XlaBuilder("add")
    scalar = Shape.array_shape(np.float32, [])
    ops.Add(ops.Parameter(b, 0, scalar), ops.Parameter(b, 1, scalar))
    return b.build()


def test_the_eval_context_and_its_views_are_run_contexts():
    ctx = _context()
    assert isinstance(ctx, OpRunContext)
    view = ContextView(ctx, shape=F32_4)
    assert isinstance(view, OpRunContext)
    assert (view.shape, view.inst, view.attrs, view.devices, view.backend) == \
        (F32_4, ctx.inst, ctx.attrs, ctx.devices, "reference")
    assert view.attr("replica_groups") == ctx.attr("replica_groups")
    collective = CollectiveView(ctx, "AllReduce", F32_4, {"shape_with_layout": None})
    assert isinstance(collective, OpRunContext)
    assert (collective.inst.opcode, collective.inst.shape, collective.shape) == ("AllReduce", F32_4, F32_4)
    assert collective.attrs["shape_with_layout"] is None and collective.inst.attrs is collective.attrs
    assert collective.inst.operands == ctx.inst.operands and collective.inst.id == ctx.inst.id
    assert ctx.inst.opcode == "AllReduceStart" and "shape_with_layout" not in ctx.attrs  # the original is kept
    assert (collective.arguments, collective.operand_shapes, collective.channels) == \
        (ctx.arguments, ctx.operand_shapes, ctx.channels)


def test_both_backends_device_contexts_are_device_info():
    for devices in (DeviceContext(2, 3), JaxDeviceContext(2, 3)):
        assert isinstance(devices, DeviceInfo)
        assert (devices.replicas, devices.partitions, devices.count) == (2, 3, 6)


@pytest.mark.parametrize("registry, context", [(EVALUATORS, "EvaluatorContext"),
                                               (IMPLEMENTATION_DEFINED, "EvaluatorContext"),
                                               (LOWERINGS, "LoweringContext"),
                                               (PALLAS_LOWERINGS, "LoweringContext")])
def test_every_registered_function_takes_its_backends_context(registry, context):
    wrong = {}
    for name in registry.names():
        first = next(iter(inspect.signature(registry.get(name)).parameters.values()))
        if (first.name, first.annotation) != ("ctx", context):
            wrong[name] = f"{first.name}: {first.annotation}"
    assert not wrong, f"{registry.what}s whose first parameter is not 'ctx: {context}': {wrong}"
