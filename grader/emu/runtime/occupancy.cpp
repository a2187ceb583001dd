// The occupancy calculator and a kernel's attributes (tilelab_emu_occupancy.h), from the limits
// cudaGetDeviceProperties reports: a kernel is taken to use no registers and no static shared
// memory (the emulator knows neither), so the blocks resident per SM are bounded by its threads, its
// blocks and the dynamic shared memory asked for (each block also takes the reserved 1 KiB).
#include "internal.hpp"

using tlemu::set_error;

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  if (!attr) return set_error(cudaErrorInvalidValue);
  if (!func) return set_error(cudaErrorInvalidDeviceFunction);
  *attr = cudaFuncAttributes{};
  attr->maxThreadsPerBlock = 1024;
  attr->ptxVersion = 90, attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = 48 * 1024;
  attr->preferredShmemCarveout = -1;
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int) {
  if (!numBlocks || blockSize <= 0) return set_error(cudaErrorInvalidValue);
  if (!func) return set_error(cudaErrorInvalidDeviceFunction);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  *numBlocks = 0;
  if (blockSize > p.maxThreadsPerBlock || dynamicSMemSize > p.sharedMemPerBlockOptin) return cudaSuccess;
  const int warps = (blockSize + p.warpSize - 1) / p.warpSize;
  int blocks = std::min(p.maxBlocksPerMultiProcessor, p.maxThreadsPerMultiProcessor / p.warpSize / warps);
  if (dynamicSMemSize > 0)
    blocks = std::min<int>(blocks, p.sharedMemPerMultiprocessor / (dynamicSMemSize + p.reservedSharedMemPerBlock));
  *numBlocks = blocks;
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                cudaOccupancyDefault);
}
