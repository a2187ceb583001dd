"""A lane-level model of mma-sync-pipeline.cu on the CPU, for the shapes the emulator cannot run
(it refuses inline PTX): python3 mma-sync-model.py (numpy). Each of the kernel's index formulas is
transcribed as written there; ldmatrix, mma.m16n8k8 (.tf32) and the accumulator layout are modelled
from the PTX ISA's fragment tables, lane by lane, independently of the kernel's own comments. The
copies land at once (a buffer reused too early shows as a wrong product, not a race), shared memory
starts as NaN (a fragment read from an unwritten place poisons P), and P starts as NaN (an element
not written stays NaN). Checked: P == M N in float64 (no TF32 rounding here) to 1e-9 relative.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np


def bs_col(k: int, c: int, bperm: bool) -> int:
    return c ^ (((k & 1) << 2) | ((k & 2) << 3)) if bperm else c


def run(J, K, L, BM=128, BN=128, WM=64, WN=64, STAGES=3, BPERM=False, RASTER=8, rng=np.random.default_rng(1)):
    BK = 32
    MI, NI = WM // 16, WN // 8
    THREADS = (BM // WM) * (BN // WN) * 32
    LDA, LDB = BK + 4, (BN if BPERM else BN + 8)
    SF = BM * LDA + BK * LDB
    M = rng.standard_normal((J, K))
    N = rng.standard_normal((K, L))
    Mf, Nf = M.ravel(), N.ravel()
    P = np.full(J * L, np.nan)
    grid_n, grid_m = -(-L // BN), -(-J // BM)
    seen = set()
    for bid in range(grid_m * grid_n):
        block_m, block_n = bid // grid_n, bid % grid_n
        if RASTER > 0:
            per_group = RASTER * grid_n
            first = bid // per_group * RASTER
            rows = min(grid_m - first, RASTER)
            block_m = first + bid % per_group % rows
            block_n = bid % per_group // rows
        seen.add((block_m, block_n))
        bm, bn = block_m * BM, block_n * BN
        smem = np.full(STAGES * SF, np.nan)
        phases = -(-K // BK)

        def copy_phase(base, k0):
            for tid in range(THREADS):
                for i in range(BM * BK // 4 // THREADS):
                    seg = tid + i * THREADS
                    r, c = seg // (BK // 4), (seg % (BK // 4)) * 4
                    inside = bm + r < J and k0 + c < K
                    smem[base + r * LDA + c: base + r * LDA + c + 4] = Mf[(bm + r) * K + k0 + c:(bm + r) * K + k0 + c + 4] if inside else 0
                b = base + BM * LDA
                for i in range(BK * BN // 4 // THREADS):
                    seg = tid + i * THREADS
                    r, c = seg // (BN // 4), (seg % (BN // 4)) * 4
                    inside = k0 + r < K and bn + c < L
                    dst = b + r * LDB + bs_col(r, c, BPERM)
                    smem[dst:dst + 4] = Nf[(k0 + r) * L + bn + c:(k0 + r) * L + bn + c + 4] if inside else 0

        acc = {w: np.zeros((MI, NI, 32, 4)) for w in range(THREADS // 32)}
        for s in range(STAGES - 1):
            if s < phases:
                copy_phase(s * SF, s * BK)
        for ph in range(phases):
            nxt = ph + STAGES - 1
            if nxt < phases:
                copy_phase((nxt % STAGES) * SF, nxt * BK)
            As = (ph % STAGES) * SF
            Bs = As + BM * LDA
            for w in range(THREADS // 32):
                wm, wn = (w // (BN // WN)) * WM, (w % (BN // WN)) * WN
                for ks in range(BK // 8):
                    a = np.zeros((MI, 32, 4))
                    b = np.zeros((NI, 32, 2))
                    for i in range(MI):  # ldmatrix.x4: lane 8q + r gives row r's address of matrix q
                        addr = {}
                        for lane in range(32):
                            q = lane // 8
                            row, col = lane % 8 + (q & 1) * 8, ks * 8 + (q >> 1) * 4
                            addr[(q, lane % 8)] = As + (wm + 16 * i + row) * LDA + col
                        for lane, q in itertools.product(range(32), range(4)):
                            a[i, lane, q] = smem[addr[(q, lane // 4)] + lane % 4]
                    for lane in range(32):
                        g, t = lane // 4, lane % 4
                        if BPERM:
                            for h in range(2):
                                k = ks * 8 + t + 4 * h
                                lo = smem[Bs + k * LDB + bs_col(k, wn + 8 * g, True):][:4]
                                hi = smem[Bs + k * LDB + bs_col(k, wn + 8 * g + 4, True):][:4]
                                v = np.concatenate([lo, hi])
                                for j in range(NI):
                                    b[j, lane, h] = v[j]
                        else:
                            for j in range(NI):
                                b[j, lane, 0] = smem[Bs + (ks * 8 + t) * LDB + wn + 8 * j + g]
                                b[j, lane, 1] = smem[Bs + (ks * 8 + t + 4) * LDB + wn + 8 * j + g]
                    for i, j in itertools.product(range(MI), range(NI)):  # mma.m16n8k8 from the PTX tables
                        A = np.zeros((16, 8)); B = np.zeros((8, 8)); C = np.zeros((16, 8))
                        for lane in range(32):
                            g, t = lane // 4, lane % 4
                            A[g, t], A[g + 8, t], A[g, t + 4], A[g + 8, t + 4] = a[i, lane]
                            B[t, g], B[t + 4, g] = b[j, lane]
                            C[g, 2 * t], C[g, 2 * t + 1], C[g + 8, 2 * t], C[g + 8, 2 * t + 1] = acc[w][i, j, lane]
                        D = A @ B + C
                        for lane in range(32):
                            g, t = lane // 4, lane % 4
                            acc[w][i, j, lane] = D[g, 2 * t], D[g, 2 * t + 1], D[g + 8, 2 * t], D[g + 8, 2 * t + 1]
        for w in range(THREADS // 32):
            wm, wn = (w // (BN // WN)) * WM, (w % (BN // WN)) * WN
            for lane in range(32):
                g, t = lane // 4, lane % 4
                c = acc[w]
                if BPERM:
                    for i, h, q in itertools.product(range(MI), range(2), range(4)):
                        row = bm + wm + 16 * i + g + 8 * h
                        if row >= J:
                            continue
                        col, j, e = bn + wn + 16 * t + 4 * q, (q % 2) * 4, 2 * h + q // 2
                        if col < L:
                            P[row * L + col: row * L + col + 4] = [c[i, j + x, lane, e] for x in range(4)]
                else:
                    for i, j in itertools.product(range(MI), range(NI)):
                        row, col = bm + wm + 16 * i + g, bn + wn + 8 * j + 2 * t
                        if col >= L:
                            continue
                        if row < J:
                            P[row * L + col: row * L + col + 2] = c[i, j, lane, 0:2]
                        if row + 8 < J:
                            P[(row + 8) * L + col: (row + 8) * L + col + 2] = c[i, j, lane, 2:4]
    assert len(seen) == grid_m * grid_n, "the launch order misses or repeats blocks"
    ref = M @ N
    P = P.reshape(J, L)
    err = np.max(np.abs(P - ref)) / max(np.max(np.abs(ref)), 1e-30)
    return bool(np.isfinite(P).all() and err < 1e-9), err


if __name__ == "__main__":
    configs = {"C": {}, "D": {"WN": 32}, "E": {"BPERM": True}, "F": {"BN": 256, "BPERM": True},
               "E-4stages": {"BPERM": True, "STAGES": 4}, "E-raster0": {"BPERM": True, "RASTER": 0}}
    shapes = [(16, 8, 16), (5, 4, 12), (131, 36, 132), (129, 72, 260), (40, 100, 36), (1100, 4, 264)]
    bad = 0
    for (name, cfg), (J, K, L) in itertools.product(configs.items(), shapes):
        ok, err = run(J, K, L, **cfg)
        bad += not ok
        print(f"{name:<10} {J}x{K}x{L}: {'ok' if ok else 'WRONG'} (max rel. error {err:.1e})", flush=True)
    sys.exit(1 if bad else 0)
