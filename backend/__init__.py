"""XLA's operation semantics, executable: the ``xla_client``-style builder surface and backends.

Code written against ``jax.lib.xla_client``'s builder ports by changing the import::

    from backend import XlaBuilder, ops, Shape, PrimitiveType, get_backend

(``import backend as xla_client`` keeps ``xla_client.ops.Add(...)``-style code as it is, and its client:
``xla_client.make_cpu_client().compile(computation)``, :mod:`backend.client`.)

This package is the facade over the layers (docs/ARCHITECTURE.md): each public name is imported from the module
that defines it when it is first used, so ``import backend.hlo.shape`` (or ``import backend; ops.Add(...)``)
loads only what that needs, and no jax.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

#: Public name -> the module that defines it.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("ComparisonDirection", "ComparisonType", "ConvolutionDimensionNumbers", "CustomCallApiVersion",
                     "CustomCallSchedule", "DotDimensionNumbers", "FftType", "GatherDimensionNumbers", "OpMetadata",
                     "OpSharding", "PaddingConfig", "PaddingConfigDimension", "Precision", "PrecisionConfig",
                     "RandomAlgorithm", "ReplicaGroup", "ResultAccuracy", "ResultAccuracyMode",
                     "ScatterDimensionNumbers", "TriangularSolveOptions_Transpose"), "backend.hlo.attribute_types"),
    **dict.fromkeys(("CurrentSourceInfoMetadata", "PaddingType", "PrecisionConfig_Precision", "ResultAccuracy_Mode",
                     "window_padding_type_to_pad_values", "make_convolution_dimension_numbers",
                     "make_dot_dimension_numbers", "make_padding_config", "make_replica_groups"),
                    "backend.hlo.xla_client_helpers"),
    **dict.fromkeys(("ProgramShape", "XlaComputation", "XlaOp"), "backend.hlo.graph"),
    "XlaBuilder": "backend.hlo.builder",
    **dict.fromkeys(("ExecutionError", "OpError", "SpecError", "UnsupportedError", "XlaRuntimeError"), "backend.errors"),
    **dict.fromkeys(("PrimitiveType", "dtype_to_etype", "etype_to_dtype"), "backend.hlo.etypes"),
    **dict.fromkeys(("Layout", "Shape", "shape_from_pyval"), "backend.hlo.shape"),
    "Backend": "backend.runtime.protocol",
    **dict.fromkeys(("available_backends", "get_backend", "register_backend"), "backend.backends"),
    **dict.fromkeys(("Buffer", "Client", "CompileOptions", "Device", "LoadedExecutable", "NoCounterpartError",
                     "execute_with_python_values", "execute_with_python_values_replicated", "make_cpu_client",
                     "make_gpu_client", "make_tpu_client"), "backend.client"),
    "execute_with_io": "backend.runtime.host_io",
    **dict.fromkeys(("register_custom_call_target", "unregister_custom_call_target"), "backend.runtime.custom_calls"),
}
#: Submodules reached as attributes (``backend.ops``, ``xla_client.ops.Add``).
_SUBMODULES = ("ops", "export")

__all__ = sorted([*_EXPORTS, "ops"])


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value  # the next lookup is a plain attribute
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'backend' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _LazyExporter:
    """``XlaComputation.as_stablehlo_text`` / ``as_stablehlo_bytecode``: :mod:`backend.export`, imported (with jax)
    on the first call."""

    def stablehlo_text(self, computation: Any, platform: str) -> str:
        return importlib.import_module("backend.export").stablehlo_text(computation, platform)  # type: ignore[no-any-return]

    def stablehlo_bytecode(self, computation: Any, platform: str) -> bytes:
        return importlib.import_module("backend.export").stablehlo_bytecode(computation, platform)  # type: ignore[no-any-return]


def _install_exporter() -> None:
    from backend.hlo.graph import set_stablehlo_exporter

    set_stablehlo_exporter(_LazyExporter())


_install_exporter()

if TYPE_CHECKING:  # what static tools see: the same names, from their modules
    from backend import ops as ops
    from backend.backends import available_backends as available_backends
    from backend.backends import get_backend as get_backend
    from backend.backends import register_backend as register_backend
    from backend.client import Buffer as Buffer
    from backend.client import Client as Client
    from backend.client import CompileOptions as CompileOptions
    from backend.client import Device as Device
    from backend.client import LoadedExecutable as LoadedExecutable
    from backend.client import NoCounterpartError as NoCounterpartError
    from backend.client import execute_with_python_values as execute_with_python_values
    from backend.client import execute_with_python_values_replicated as execute_with_python_values_replicated
    from backend.client import make_cpu_client as make_cpu_client
    from backend.client import make_gpu_client as make_gpu_client
    from backend.client import make_tpu_client as make_tpu_client
    from backend.errors import ExecutionError as ExecutionError
    from backend.errors import OpError as OpError
    from backend.errors import SpecError as SpecError
    from backend.errors import UnsupportedError as UnsupportedError
    from backend.errors import XlaRuntimeError as XlaRuntimeError
    from backend.hlo.attribute_types import ComparisonDirection as ComparisonDirection
    from backend.hlo.attribute_types import ComparisonType as ComparisonType
    from backend.hlo.attribute_types import ConvolutionDimensionNumbers as ConvolutionDimensionNumbers
    from backend.hlo.attribute_types import CustomCallApiVersion as CustomCallApiVersion
    from backend.hlo.attribute_types import CustomCallSchedule as CustomCallSchedule
    from backend.hlo.attribute_types import DotDimensionNumbers as DotDimensionNumbers
    from backend.hlo.attribute_types import FftType as FftType
    from backend.hlo.attribute_types import GatherDimensionNumbers as GatherDimensionNumbers
    from backend.hlo.attribute_types import OpMetadata as OpMetadata
    from backend.hlo.attribute_types import OpSharding as OpSharding
    from backend.hlo.attribute_types import PaddingConfig as PaddingConfig
    from backend.hlo.attribute_types import PaddingConfigDimension as PaddingConfigDimension
    from backend.hlo.attribute_types import Precision as Precision
    from backend.hlo.attribute_types import PrecisionConfig as PrecisionConfig
    from backend.hlo.attribute_types import RandomAlgorithm as RandomAlgorithm
    from backend.hlo.attribute_types import ReplicaGroup as ReplicaGroup
    from backend.hlo.attribute_types import ResultAccuracy as ResultAccuracy
    from backend.hlo.attribute_types import ResultAccuracyMode as ResultAccuracyMode
    from backend.hlo.attribute_types import ScatterDimensionNumbers as ScatterDimensionNumbers
    from backend.hlo.attribute_types import TriangularSolveOptions_Transpose as TriangularSolveOptions_Transpose
    from backend.hlo.builder import XlaBuilder as XlaBuilder
    from backend.hlo.etypes import PrimitiveType as PrimitiveType
    from backend.hlo.etypes import dtype_to_etype as dtype_to_etype
    from backend.hlo.etypes import etype_to_dtype as etype_to_dtype
    from backend.hlo.graph import ProgramShape as ProgramShape
    from backend.hlo.graph import XlaComputation as XlaComputation
    from backend.hlo.graph import XlaOp as XlaOp
    from backend.hlo.shape import Layout as Layout
    from backend.hlo.shape import Shape as Shape
    from backend.hlo.shape import shape_from_pyval as shape_from_pyval
    from backend.hlo.xla_client_helpers import CurrentSourceInfoMetadata as CurrentSourceInfoMetadata
    from backend.hlo.xla_client_helpers import PaddingType as PaddingType
    from backend.hlo.xla_client_helpers import PrecisionConfig_Precision as PrecisionConfig_Precision
    from backend.hlo.xla_client_helpers import ResultAccuracy_Mode as ResultAccuracy_Mode
    from backend.hlo.xla_client_helpers import make_convolution_dimension_numbers as make_convolution_dimension_numbers
    from backend.hlo.xla_client_helpers import make_dot_dimension_numbers as make_dot_dimension_numbers
    from backend.hlo.xla_client_helpers import make_padding_config as make_padding_config
    from backend.hlo.xla_client_helpers import make_replica_groups as make_replica_groups
    from backend.hlo.xla_client_helpers import window_padding_type_to_pad_values as window_padding_type_to_pad_values
    from backend.runtime.custom_calls import register_custom_call_target as register_custom_call_target
    from backend.runtime.custom_calls import unregister_custom_call_target as unregister_custom_call_target
    from backend.runtime.host_io import execute_with_io as execute_with_io
    from backend.runtime.protocol import Backend as Backend

if sys.modules.get("jax") is not None:  # jax came first: give it its host devices before its backends start
    importlib.import_module("backend.jax_backend")  # configures jax's CPU device count on import
