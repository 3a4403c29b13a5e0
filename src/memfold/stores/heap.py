"""Freed memory is overwritten, so erased data cannot come back through a file write.

Chroma's HNSW index (hnswlib, in Rust/C++) allocates each element's link lists with
``malloc`` and writes them to ``data_level0.bin`` whole, including slots it never
filled. Those slots hold whatever the allocator handed back: stale heap bytes from
earlier work in the same process, such as another record's metadata. Measured: after
``forget(U)`` and more indexing in the same process, ``{"user_id": "U", ...}`` was in
``data_level0.bin`` in 3 of 3 runs (issue 17 item 2).

glibc's ``M_PERTURB`` fills every chunk with a constant byte when it is freed and with
its complement when it is allocated, so an unfilled slot holds that constant, never an
earlier record (the same runs then left 0 bytes of U). Memory the kernel maps in fresh is
zeroed already. Python's small-object allocator is not affected (its arenas come from
``mmap``), so the cost is a ``memset`` per native allocation.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_PERTURB = -6  # glibc's mallopt parameter number
PERTURB_BYTE = 0x5A

_done = False


def scrub_freed_memory() -> bool:
    """Turn on glibc's perturbation once per process; False where it is not available
    (not Linux/glibc): the erasure tests would then show the leak, not hide it."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c") or "libc.so.6"
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and others have no mallopt
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    _done = mallopt(M_PERTURB, PERTURB_BYTE) == 1
    return _done
