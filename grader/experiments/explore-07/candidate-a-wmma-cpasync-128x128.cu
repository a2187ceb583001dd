// Candidate A of issue #45.3, the teachable next step: the reference's 128 x 128 block and 4 warps of
// 64 x 64 wmma accumulators, its tiles copied by cp.async into 3 buffers of BK 32 (one barrier per
// phase, no staging registers), the next k-step's fragments loaded before this one's products, no
// TF32 rounding (the tensor cores truncate: inside the stage's rule). K or L not a multiple of 4: the
// current reference. Measured before on an H100 (walkthrough 07, section 7): 83.8 / 84.1 TFLOP/s.
#define HYBRID 1
#define FDB 1
#define CONV 0
#include "cp-async-pipeline.cu"
