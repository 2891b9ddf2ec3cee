"""``python -m pallas_kernels.bench conv``: lax.conv_general_dilated vs the Pallas kernels.

Cases: every distinct ResNet-50 (v1.5) convolution at batch 32 and 128, a
MobileNet-style depthwise 3x3 set, a grouped dilated 3x3 convolution and a
transposed convolution (lhs dilation 2); NHWC/HWIO, bf16 and f32.  FLOPs count
every multiply-add of the convolution as specified (``2 * N * Ho * Wo * O * KH
* KW * C / groups``), including products with the zeros that lhs dilation
inserts.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp

from pallas_kernels.bench.harness import BenchCase, SuiteOptions, register_suite
from pallas_kernels.conv import conv_general_dilated, plan_conv_general_dilated

NHWC = ("NHWC", "HWIO", "NHWC")


@dataclasses.dataclass(frozen=True)
class ConvShape:
    name: str
    spatial: int
    window: int
    in_channels: int
    out_channels: int
    stride: int = 1
    padding: tuple[int, int] = (0, 0)
    groups: int = 1
    rhs_dilation: int = 1
    lhs_dilation: int = 1


def _resnet50() -> list[ConvShape]:
    shapes = [ConvShape("resnet_stem", 224, 7, 3, 64, stride=2, padding=(3, 3))]
    # (stage, input spatial, bottleneck width, output channels, input channels, stride)
    stages = [(2, 56, 64, 256, 64, 1), (3, 56, 128, 512, 256, 2),
              (4, 28, 256, 1024, 512, 2), (5, 14, 512, 2048, 1024, 2)]
    for stage, spatial, width, out, previous, stride in stages:
        after = spatial // stride
        tag = f"resnet_conv{stage}"
        shapes += [
            ConvShape(f"{tag}_1x1_{previous}-{width}", spatial, 1, previous, width),
            ConvShape(f"{tag}_3x3s{stride}_{width}", spatial, 3, width, width,
                      stride=stride, padding=(1, 1)),
            ConvShape(f"{tag}_1x1_{width}-{out}", after, 1, width, out),
            ConvShape(f"{tag}_1x1_{out}-{width}", after, 1, out, width),
            ConvShape(f"{tag}_proj_{previous}-{out}s{stride}", spatial, 1, previous, out,
                      stride=stride),
            ConvShape(f"{tag}_3x3_{width}", after, 3, width, width, padding=(1, 1)),
        ]
    unique: dict[tuple, ConvShape] = {}
    for shape in shapes:  # distinct convolutions only
        unique.setdefault(dataclasses.astuple(shape)[1:], shape)
    return list(unique.values())


MOBILENET_DEPTHWISE = [
    ConvShape(f"mobilenet_dw_{s}x{s}x{c}_s{st}", s, 3, c, c, stride=st, padding=(1, 1),
              groups=c)
    for s, c, st in [(112, 32, 1), (112, 64, 2), (56, 128, 1), (56, 128, 2), (28, 256, 1),
                     (28, 256, 2), (14, 512, 1), (14, 512, 2), (7, 1024, 1)]
]
OTHERS = [
    ConvShape("grouped32_dilated2_3x3_256", 28, 3, 256, 256, padding=(2, 2), groups=32,
              rhs_dilation=2),
    ConvShape("transposed_3x3_lhsdil2_128-64", 28, 3, 128, 64, padding=(1, 2),
              lhs_dilation=2),
]
SMALL = [
    ConvShape("small_3x3", 12, 3, 16, 32, padding=(1, 1)),
    ConvShape("small_3x3s2", 13, 3, 8, 16, stride=2, padding=(1, 1)),
    ConvShape("small_1x1", 8, 1, 16, 32),
    ConvShape("small_dw", 10, 3, 16, 16, padding=(1, 1), groups=16),
    ConvShape("small_transposed", 6, 3, 8, 8, padding=(1, 2), lhs_dilation=2),
]
DTYPES = (jnp.bfloat16, jnp.float32)


def _case(shape: ConvShape, batch: int, dtype, interpret: bool) -> BenchCase:
    x_shape = (batch, shape.spatial, shape.spatial, shape.in_channels)
    w_shape = (shape.window, shape.window, shape.in_channels // shape.groups,
               shape.out_channels)
    arguments = {
        "window_strides": (shape.stride,) * 2, "padding": (shape.padding,) * 2,
        "lhs_dilation": (shape.lhs_dilation,) * 2,
        "rhs_dilation": (shape.rhs_dilation,) * 2, "dimension_numbers": NHWC,
        "feature_group_count": shape.groups,
    }

    def make_inputs(key):
        x_key, w_key = jax.random.split(key)
        return (jax.random.normal(x_key, x_shape, dtype),
                jax.random.normal(w_key, w_shape, dtype))

    def xla_fn(x, w):
        return jax.lax.conv_general_dilated(x, w, **arguments)

    def kernel_fn(x, w):
        return conv_general_dilated(x, w, **arguments)

    decision = plan_conv_general_dilated(jax.ShapeDtypeStruct(x_shape, dtype),
                                         jax.ShapeDtypeStruct(w_shape, dtype), **arguments)
    plan = decision.plan
    flops = plan.flops if plan is not None else 0.0
    label = f"{shape.name}_n{batch}"
    return BenchCase(
        name=f"conv_{label}_{jnp.dtype(dtype).name}",
        shape=label,
        dtype=jnp.dtype(dtype).name,
        flops=float(flops),
        make_inputs=make_inputs,
        xla_fn=xla_fn,
        kernel_fn=kernel_fn,
        details={**dataclasses.asdict(shape), "batch": batch, "layout": "NHWC/HWIO",
                 "kernel": plan.kind if plan is not None else "xla fallback",
                 "fallback_reason": decision.reason, "interpret": interpret},
    )


def conv_suite(options: SuiteOptions) -> list[BenchCase]:
    make = functools.partial(_case, interpret=options.interpret)
    if options.small:
        return [make(shape, 2, dtype) for shape in SMALL for dtype in DTYPES]
    shapes = _resnet50() + MOBILENET_DEPTHWISE + OTHERS
    batches = {s.name: (32, 128) for s in shapes}
    for shape in OTHERS:
        batches[shape.name] = (32,)
    return [make(shape, batch, dtype) for shape in shapes for batch in batches[shape.name]
            for dtype in DTYPES]


register_suite("conv", conv_suite)
