// Candidate D of issue #45.3: candidate C with 8 warps of 64 x 32 (256 threads, 128 registers a
// thread, 2 blocks per SM: 16 warps an SM, twice C's) - more warps to hide each warp's wait for its
// fragments, at 0.75 fragment loads per mma against C's 0.5.
#define WN 32
#define MINB 2
#include "mma-sync-pipeline.cu"
