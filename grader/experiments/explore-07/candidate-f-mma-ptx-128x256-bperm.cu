// Candidate F of issue #45.3, the most aggressive: candidate E with 128 x 256 block tiles, 8 warps of
// 64 x 64 (256 threads, one block per SM, 3 stages in 156 KiB of shared memory): each value of M's
// tile feeds twice the products, and a block's 8 warps share one barrier per phase.
#define BN 256
#define BPERM 1
#include "mma-sync-pipeline.cu"
