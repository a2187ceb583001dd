"""Blocks per SM on the model's GPU (sm_90: H100, H200), by CUDA's occupancy calculator's rules
(PMPP 4.7; docs/walkthrough/06-register-tiled.md section 6): registers are allocated per warp in
units of 256 from the SM's 65536; shared memory per block in units of 128 bytes, each block with 1 KB
reserved, from 228 KB; at most 2048 threads and 32 blocks. The judge's C++ (grader/runner/
occupancy.cpp: the back-end lines and the performance model) applies the same rules to the launch
the emulator counted; both are tested on tests/python/data/occupancy-cases.json."""

from __future__ import annotations

import math

REGISTERS_PER_SM = 65536
REGISTER_ALLOC_PER_WARP = 256
SHARED_PER_SM = 233472          # 228 KB
SHARED_RESERVED_PER_BLOCK = 1024
SHARED_ALLOC = 128
THREADS_PER_SM = 2048
BLOCKS_PER_SM = 32


def limits(registers: int, threads_per_block: int, shared_bytes: int) -> dict[str, int]:
    """Blocks per SM each resource allows (threads, registers, shared_memory, blocks)."""
    warps = math.ceil(threads_per_block / 32)
    out = {"threads": THREADS_PER_SM // (warps * 32) if warps else 0, "blocks": BLOCKS_PER_SM}
    per_warp = math.ceil(registers * 32 / REGISTER_ALLOC_PER_WARP) * REGISTER_ALLOC_PER_WARP
    out["registers"] = REGISTERS_PER_SM // (per_warp * warps) if per_warp and warps else BLOCKS_PER_SM
    per_block = math.ceil(shared_bytes / SHARED_ALLOC) * SHARED_ALLOC + SHARED_RESERVED_PER_BLOCK
    out["shared_memory"] = SHARED_PER_SM // per_block if shared_bytes else BLOCKS_PER_SM
    return out


def blocks_per_sm(registers: int, threads_per_block: int, shared_bytes: int) -> tuple[int, str]:
    """The blocks an SM holds and the resource that binds (of a tie, the launch's own limits first:
    threads, blocks, then shared memory, then registers)."""
    lim = limits(registers, threads_per_block, shared_bytes)
    order = ("threads", "blocks", "shared_memory", "registers")
    n = min(lim.values())
    return n, next(k for k in order if lim[k] == n)
