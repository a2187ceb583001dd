// Candidate E of issue #45.3: candidate C with N's fragments loaded 16 bytes at a time: each n8 tile
// of a warp holds every 8th column (BPERM in mma-sync-pipeline.cu), so a lane's 8 tiles' values are
// adjacent in a row of Bs, whose 16-byte groups are swizzled (XOR) against bank conflicts instead of
// padded. Per k-step 8 shared loads for 32 mma (C: 20, wmma: 32); P stored as float4.
#define BPERM 1
#include "mma-sync-pipeline.cu"
