"""memview.cuda: what this process can see of CUDA.

The driver library is loaded at run time; without a driver or a GPU memview still
imports and works on the CPU, and these functions say so.
"""
from . import _core

__all__ = ["is_available", "device_count"]


def device_count() -> int:
    """Number of CUDA devices the driver sees (0 without a driver)."""
    return _core.cuda_device_count()


def is_available() -> bool:
    """True if a CUDA driver and at least one device are present."""
    return device_count() > 0
