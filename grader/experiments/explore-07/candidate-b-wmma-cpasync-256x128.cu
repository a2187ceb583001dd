// Candidate B of issue #45.3: candidate A with 256 x 128 block tiles, 8 warps of 64 x 64 (256
// threads, one block per SM): each value copied into shared memory feeds twice the products of M's
// side. Measured before on an H100 without the reference's scalar path: 85.1 / 86.8 TFLOP/s, the best
// wmma figure so far.
#define HYBRID 1
#define FDB 1
#define CONV 0
#define BM 256
#include "cp-async-pipeline.cu"
