// Static initializers the list allows: iostream's, a __shared__ array and a __constant__ array at
// namespace scope, a constant table (no code at all).
#include <cuda_runtime.h>
#include <iostream>
__shared__ float s_tile[16];
__constant__ float c_scale[4];
static const float table[4] = {1, 2, 3, 4};
__global__ void K(float* p) { s_tile[threadIdx.x] = c_scale[threadIdx.x % 4]; __syncthreads(); p[threadIdx.x] = s_tile[15 - threadIdx.x]; }
void launch_matmul(const float*, const float*, float* P, int) { K<<<1, 16>>>(P); P[0] = table[1]; std::cout << "done" << std::endl; }
