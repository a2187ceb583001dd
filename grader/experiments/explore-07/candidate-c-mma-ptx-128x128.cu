// Candidate C of issue #45.3: candidate A's tiles and pipeline (128 x 128, 4 warps of 64 x 64, 3
// cp.async stages of BK 32) on mma.sync.m16n8k8 through inline PTX instead of wmma: M's fragments by
// ldmatrix.x4 (one instruction for what load_matrix_sync does in 4), N's by 32-bit loads, padded
// shared rows (no bank conflicts), P stored from registers (the accumulator layout is documented).
// Answers "is wmma the wall": the same kernel as A but for the operand instructions.
#include "mma-sync-pipeline.cu"
