"""Dense peak throughput per device, for the "fraction of peak" column.

Values are vendor dense (no sparsity) peaks in TFLOP/s (TOP/s for int8).
f32 on NVIDIA is the tf32 tensor-core peak (what XLA's DEFAULT precision uses);
f32 on TPU is quoted at the bf16 rate, since DEFAULT f32 dots are bf16 passes.
"""

from __future__ import annotations

# (substring of jax device_kind, lower-cased) -> {dtype name: TFLOP/s}
DEVICE_PEAK_TFLOPS: dict[str, dict[str, float]] = {
    "h200": {"bfloat16": 989.0, "float16": 989.0, "float32": 494.7, "int8": 1979.0},
    "h100 pcie": {"bfloat16": 756.0, "float16": 756.0, "float32": 378.0, "int8": 1513.0},
    "h100": {"bfloat16": 989.0, "float16": 989.0, "float32": 494.7, "int8": 1979.0},
    "a100": {"bfloat16": 312.0, "float16": 312.0, "float32": 156.0, "int8": 624.0},
    "tpu v6": {"bfloat16": 918.0, "float32": 918.0, "int8": 1836.0},
    "tpu v5p": {"bfloat16": 459.0, "float32": 459.0, "int8": 918.0},
    "tpu v5 lite": {"bfloat16": 197.0, "float32": 197.0, "int8": 394.0},
    "tpu v5e": {"bfloat16": 197.0, "float32": 197.0, "int8": 394.0},
    "tpu v4": {"bfloat16": 275.0, "float32": 275.0, "int8": 275.0},
}


def peak_tflops(device_kind: str, dtype_name: str) -> float | None:
    """Dense peak for ``dtype_name`` on ``device_kind``; None when unknown."""
    kind = device_kind.lower()
    for key, peaks in DEVICE_PEAK_TFLOPS.items():  # specific keys come first
        if key in kind:
            return peaks.get(dtype_name)
    return None
