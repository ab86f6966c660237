"""Element types and NumPy dtypes (docs/PYTHON.md, "Types").

Each storage type has one NumPy dtype: u8 uint8, u16 uint16, u32 uint32, u64 uint64, i8 int8,
i16 int16, i32 int32, i64 int64, f16 float16, f32 float32, f64 float64, bool bool (buffers hold
4-byte words; bool arrays are converted to and from them), and bf16 uint16: NumPy has no bfloat16,
so bf16 buffers exchange their raw bits; ``bf16.from_float32`` and ``bf16.to_float32`` convert.
"""
from __future__ import annotations

import numpy as np

from ._vyre import dtype_of  # the one mapping, in C++ (python/src/arrays.cpp)


class bf16:
    """bfloat16 bits in uint16 arrays."""

    @staticmethod
    def from_float32(values) -> np.ndarray:
        """Round float32 values to bfloat16 (to nearest, ties to even; NaN stays NaN), as bits."""
        bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
        nan = np.isnan(np.asarray(values, dtype=np.float32))
        return np.where(nan, (bits >> np.uint32(16)) | np.uint32(0x40), rounded).astype(np.uint16)

    @staticmethod
    def to_float32(bits) -> np.ndarray:
        """float32 values of bfloat16 bits (exact)."""
        return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
