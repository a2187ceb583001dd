// Stage 01 with one warp per element of P, summed by cooperative groups' reduce, and the host code
// of a "device query" sample: the properties printed once, events and a stream of its own.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>

namespace cg = cooperative_groups;

constexpr int kWarps = 4;   // warps per block, one element of P each

__global__ void warp_dot(const float* M, const float* N, float* P, int Width) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const long long element = (long long)blockIdx.x * kWarps + warp.meta_group_rank();
  const bool live = element < (long long)Width * Width;
  const int row = live ? int(element / Width) : 0, col = live ? int(element % Width) : 0;
  float partial = 0.0f;
  if (live)
    for (int k = warp.thread_rank(); k < Width; k += warp.size()) partial += M[row * Width + k] * N[k * Width + col];
  const float total = cg::reduce(warp, partial, cg::plus<float>());
  // Every lane holds the total; lane 0 stores it. __syncthreads_or: the block has work at all.
  if (__syncthreads_or(live) && live && warp.thread_rank() == 0) P[row * Width + col] = total;
}

static void print_device_once() {
  static bool printed = false;
  if (printed) return;
  printed = true;
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return;
  int smem_sm = 0, regs = 0, max_blocks = 0;
  cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
  cudaDeviceGetAttribute(&regs, cudaDevAttrMaxRegistersPerBlock, 0);
  cudaDeviceGetAttribute(&max_blocks, cudaDevAttrMaxBlocksPerMultiprocessor, 0);
  printf("device: %s (%d.%d), %d SMs, %zu B shared/block, %d B shared/SM, %d regs/block, %d blocks/SM, "
         "bus %d bit, texture alignment %zu, integrated %d, maps host memory %d, PCI bus %d, managed %d\n",
         prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.sharedMemPerBlock, smem_sm, regs,
         max_blocks, prop.memoryBusWidth, prop.textureAlignment, prop.integrated, prop.canMapHostMemory,
         prop.pciBusID, prop.managedMemory);
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
  print_device_once();
  cudaStream_t stream;
  cudaEvent_t queued, done;
  cudaStreamCreate(&stream);
  cudaEventCreateWithFlags(&queued, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&done, cudaEventDefault);
  cudaEventRecord(queued, 0);
  cudaStreamWaitEvent(stream, queued, 0);   // after the default stream's work
  const long long elements = (long long)Width * Width;
  warp_dot<<<unsigned((elements + kWarps - 1) / kWarps), 32 * kWarps, 0, stream>>>(M, N, P, Width);
  cudaEventRecord(done, stream);
  if (cudaStreamQuery(stream) != cudaSuccess) cudaEventSynchronize(done);
  cudaStreamSynchronize(stream);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) fprintf(stderr, "warp_dot: %s (%s)\n", cudaGetErrorString(err), cudaGetErrorName(err));
  cudaEventDestroy(queued);
  cudaEventDestroy(done);
  cudaStreamDestroy(stream);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
  const size_t bytes = sizeof(float) * Width * Width;
  float *M_d = nullptr, *N_d = nullptr, *P_d = nullptr;
  if (cudaMalloc(&M_d, bytes) != cudaSuccess || cudaMalloc(&N_d, bytes) != cudaSuccess ||
      cudaMalloc(&P_d, bytes) != cudaSuccess) {
    cudaFree(M_d), cudaFree(N_d), cudaFree(P_d);
    return;
  }
  cudaMemcpy(M_d, M_h, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(N_d, N_h, bytes, cudaMemcpyHostToDevice);
  launch_matmul(M_d, N_d, P_d, Width);
  cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost);
  cudaFree(M_d), cudaFree(N_d), cudaFree(P_d);
}
