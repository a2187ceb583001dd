// The CUDA runtime's occupancy calculator and cudaFuncGetAttributes, for host code that sizes its
// launch from them (cudaOccupancyMaxPotentialBlockSize, as NVIDIA's blog and samples teach).
// Included by tilelab_emu.h. The emulator knows neither a kernel's registers nor its static shared
// memory: it answers as a GPU would for a kernel that uses none, so the threads per SM, the blocks
// per SM and the dynamic shared memory asked for bound the blocks (runtime/occupancy.cpp). The
// answers differ from a GPU's only where the GPU's are smaller, and a launch sized from them stays
// within the emulator's limits (1024 threads a block).
#pragma once

#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01

// The fields of CUDA's cudaFuncAttributes, in its order.
struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
};

// Out of line, under CUDA's names, so that the allow-list sees the calls a GPU build makes.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags);

template <class F>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, F* func) {
  return cudaFuncGetAttributes(attr, reinterpret_cast<const void*>(func));
}
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, F func, int blockSize,
                                                                 size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, reinterpret_cast<const void*>(func), blockSize,
                                                       dynamicSMemSize);
}
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, F func, int blockSize,
                                                                          size_t dynamicSMemSize, unsigned int flags) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, reinterpret_cast<const void*>(func),
                                                                blockSize, dynamicSMemSize, flags);
}

// CUDA's search (cuda_runtime.h): every multiple of the warp size from the largest block down, the
// one with the most threads resident per SM; the dynamic shared memory as a function of the block.
template <class UnaryFunction, class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int* minGridSize, int* blockSize, F func, UnaryFunction blockSizeToDynamicSMemSize, int blockSizeLimit = 0,
    unsigned int flags = cudaOccupancyDefault) {
  if (!minGridSize || !blockSize || !func) return cudaErrorInvalidValue;
  cudaFuncAttributes attr;
  int sms = 0, warp = 32, max_block = 0;
  cudaError_t err = cudaFuncGetAttributes(&attr, reinterpret_cast<const void*>(func));
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&max_block, cudaDevAttrMaxThreadsPerBlock, 0);
  if (err != cudaSuccess) return err;
  int limit = attr.maxThreadsPerBlock < max_block ? attr.maxThreadsPerBlock : max_block;
  if (blockSizeLimit > 0 && blockSizeLimit < limit) limit = blockSizeLimit;
  int best_block = 0, best_blocks = 0, best_threads = 0;
  for (int block = (limit + warp - 1) / warp * warp; block > 0; block -= warp) {
    const int b = block < limit ? block : limit;
    int blocks = 0;
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        &blocks, reinterpret_cast<const void*>(func), b, size_t(blockSizeToDynamicSMemSize(b)), flags);
    if (err != cudaSuccess) return err;
    if (blocks * b > best_threads) best_block = b, best_blocks = blocks, best_threads = blocks * b;
  }
  *minGridSize = best_blocks * sms;
  *blockSize = best_block;
  return cudaSuccess;
}
template <class UnaryFunction, class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int* minGridSize, int* blockSize, F func,
                                                                  UnaryFunction blockSizeToDynamicSMemSize,
                                                                  int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(minGridSize, blockSize, func,
                                                                 blockSizeToDynamicSMemSize, blockSizeLimit);
}
template <class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int* minGridSize, int* blockSize, F func,
                                                               size_t dynamicSMemSize = 0, int blockSizeLimit = 0,
                                                               unsigned int flags = cudaOccupancyDefault) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
      minGridSize, blockSize, func, [dynamicSMemSize](int) { return dynamicSMemSize; }, blockSizeLimit, flags);
}
template <class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, F func,
                                                      size_t dynamicSMemSize = 0, int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, dynamicSMemSize, blockSizeLimit);
}
