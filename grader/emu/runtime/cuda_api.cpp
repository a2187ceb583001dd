// The CUDA runtime API on host memory: errors, device properties, memory, streams and events.
// Device memory itself is the build's (hooks::alloc_buffer, hooks::free_buffer).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "internal.hpp"

#define TLEMU_STICKY() \
  if (rt().sticky != cudaSuccess) return rt().sticky

using tlemu::rt;
using tlemu::set_error;

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
#define TLEMU_NAME(x) \
  case x:             \
    return #x;
    TLEMU_NAME(cudaSuccess)
    TLEMU_NAME(cudaErrorInvalidValue)
    TLEMU_NAME(cudaErrorMemoryAllocation)
    TLEMU_NAME(cudaErrorInitializationError)
    TLEMU_NAME(cudaErrorInvalidConfiguration)
    TLEMU_NAME(cudaErrorInvalidSymbol)
    TLEMU_NAME(cudaErrorInvalidDevicePointer)
    TLEMU_NAME(cudaErrorInvalidMemcpyDirection)
    TLEMU_NAME(cudaErrorInvalidDeviceFunction)
    TLEMU_NAME(cudaErrorNoDevice)
    TLEMU_NAME(cudaErrorInvalidDevice)
    TLEMU_NAME(cudaErrorInvalidResourceHandle)
    TLEMU_NAME(cudaErrorNotReady)
    TLEMU_NAME(cudaErrorIllegalAddress)
    TLEMU_NAME(cudaErrorLaunchOutOfResources)
    TLEMU_NAME(cudaErrorLaunchFailure)
    TLEMU_NAME(cudaErrorNotSupported)
    TLEMU_NAME(cudaErrorUnknown)
#undef TLEMU_NAME
  }
  return "cudaErrorUnknown";
}

// The texts of CUDA's runtime, so that a student's error messages read the same.
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unrecognized error code";
}

cudaError_t cudaGetLastError() {
  auto& r = rt();
  const cudaError_t e = r.sticky != cudaSuccess ? r.sticky : r.last_error;
  r.last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return rt().sticky != cudaSuccess ? rt().sticky : rt().last_error; }
// Cache and bank configuration: hints a GPU may ignore; accepted here.
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }

cudaError_t cudaDeviceSynchronize() {
  TLEMU_STICKY();
  return cudaSuccess;
}
cudaError_t cudaDeviceReset() {
  rt().sticky = rt().last_error = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return set_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (!device) return set_error(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (!p) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "tilelab CPU emulator (NVIDIA H100-like limits)");
  p->totalGlobalMem = 80ull << 30;
  p->sharedMemPerBlock = 48 * 1024;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
  p->clockRate = 1980000;
  p->totalConstMem = 65536;
  p->major = 9, p->minor = 0;
  p->multiProcessorCount = 132;
  p->memoryClockRate = 2619000;
  p->memoryBusWidth = 5120;
  p->l2CacheSize = 50 * 1024 * 1024;
  p->maxThreadsPerMultiProcessor = 2048;
  p->sharedMemPerMultiprocessor = 233472;
  p->regsPerMultiprocessor = 65536;
  p->sharedMemPerBlockOptin = tlemu::kMaxSharedPerBlock;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 1024;
  p->concurrentKernels = 1;
  p->deviceOverlap = 1;
  p->asyncEngineCount = 3;
  p->unifiedAddressing = 1;
  p->textureAlignment = 512;
  p->canMapHostMemory = 1;
  p->persistingL2CacheMaxSize = 32 * 1024 * 1024;
  p->managedMemory = 1;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value || device != 0) return set_error(device != 0 ? cudaErrorInvalidDevice : cudaErrorInvalidValue);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrTotalConstantMemory: *value = int(p.totalConstMem); break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    default: return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t tlemu_func_set_attribute(const void* key, cudaFuncAttribute attr, int value) {
  if (!key) return set_error(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize && (value < 0 || size_t(value) > tlemu::kMaxSharedPerBlock))
    return set_error(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, size_t size) {
  tlemu::DeviceOp op(rt());
  TLEMU_STICKY();
  if (!ptr) return set_error(cudaErrorInvalidValue);
  // More than the emulated device holds fails as it would on the GPU, before any guard zone
  // (as large as the request) is touched.
  if (size > (80ull << 30)) {
    *ptr = nullptr;
    return set_error(cudaErrorMemoryAllocation);
  }
  auto& r = rt();
  tlemu::Buffer b{};
  b.size = size;
  if (!tlemu::hooks::alloc_buffer(b, size)) return set_error(cudaErrorMemoryAllocation);
  r.buffers[reinterpret_cast<uintptr_t>(b.ptr)] = b;
  *ptr = b.ptr;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  tlemu::DeviceOp op(rt());
  TLEMU_STICKY();
  if (!ptr) return cudaSuccess;
  auto& r = rt();
  auto it = r.buffers.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == r.buffers.end()) return set_error(cudaErrorInvalidValue);
  tlemu::hooks::free_buffer(r, it->second);
  r.buffers.erase(it);
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  if (!ptr) return set_error(cudaErrorInvalidValue);
  *ptr = std::malloc(std::max<size_t>(size, 1));
  if (!*ptr) return set_error(cudaErrorMemoryAllocation);
  rt().pinned[reinterpret_cast<uintptr_t>(*ptr)] = size;
  tlemu::MemoryEvent e;
  e.kind = tlemu::MemoryEvent::kPinnedAlloc, e.bytes = size;
  rt().observe(e);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  if (!ptr) return cudaSuccess;
  auto it = rt().pinned.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == rt().pinned.end()) return set_error(cudaErrorInvalidValue);
  tlemu::MemoryEvent e;
  e.kind = tlemu::MemoryEvent::kPinnedFree, e.bytes = it->second;
  rt().pinned.erase(it);
  rt().observe(e);
  std::free(ptr);
  return cudaSuccess;
}

namespace {
// A device-side range must lie inside one cudaMalloc buffer, as the CUDA runtime requires.
bool device_range(const void* p, size_t n) { return rt().find_buffer(p, n) != nullptr; }
}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  tlemu::DeviceOp op(rt());
  TLEMU_STICKY();
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return set_error(cudaErrorInvalidValue);
  bool dst_dev = false, src_dev = false;
  switch (kind) {
    case cudaMemcpyHostToHost: break;
    case cudaMemcpyHostToDevice: dst_dev = true; break;
    case cudaMemcpyDeviceToHost: src_dev = true; break;
    case cudaMemcpyDeviceToDevice: dst_dev = src_dev = true; break;
    case cudaMemcpyDefault:
      dst_dev = rt().find_buffer(dst, 0) != nullptr;
      src_dev = rt().find_buffer(src, 0) != nullptr;
      break;
    default: return set_error(cudaErrorInvalidMemcpyDirection);
  }
  if ((dst_dev && !device_range(dst, count)) || (src_dev && !device_range(src, count)))
    return set_error(cudaErrorInvalidValue);
  tlemu::Runtime& r = rt();
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst);
  if (r.recording && dst_dev && !src_dev && d < r.watched + r.watched_bytes && d + count > r.watched) ++r.host_copies;
  std::memmove(dst, src, count);
  tlemu::MemoryEvent e;
  e.dst = dst, e.src = src, e.bytes = count, e.dst_device = dst_dev, e.src_device = src_dev;
  r.observe(e);
  return cudaSuccess;
}

// cudaMemcpyToSymbol and cudaMemcpyFromSymbol (templates of tilelab_emu.h, which check the range):
// a symbol is device memory; the other end is device memory when it lies in a cudaMalloc buffer.
cudaError_t tlemu_symbol_copy(void* dst, const void* src, size_t count, int to_symbol) {
  tlemu::DeviceOp op(rt());  // a copy between a symbol and a buffer changes the buffer legitimately
  TLEMU_STICKY();
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return set_error(cudaErrorInvalidValue);
  std::memmove(dst, src, count);
  tlemu::MemoryEvent e;
  e.dst = dst, e.src = src, e.bytes = count;
  e.dst_device = to_symbol || rt().find_buffer(dst, 0) != nullptr;
  e.src_device = !to_symbol || rt().find_buffer(src, 0) != nullptr;
  rt().observe(e);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, count, kind);
}
cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  tlemu::DeviceOp op(rt());
  TLEMU_STICKY();
  if (count == 0) return cudaSuccess;
  if (!device_range(ptr, count)) return set_error(cudaErrorInvalidValue);
  std::memset(ptr, value, count);
  tlemu::MemoryEvent e;
  e.kind = tlemu::MemoryEvent::kMemset, e.dst = ptr, e.bytes = count, e.dst_device = true;
  rt().observe(e);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t) { return cudaMemset(ptr, value, count); }

// Streams and events: work runs to completion at the launch, so every stream is idle.
struct CUstream_st {};
struct CUevent_st {
  std::chrono::steady_clock::time_point t;
  bool recorded = false;
  bool timing = true;  // false: created with cudaEventDisableTiming
};
cudaError_t cudaStreamCreate(cudaStream_t* s) {
  if (!s) return set_error(cudaErrorInvalidValue);
  *s = new CUstream_st;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int /*flags: every stream is in order here*/) {
  return cudaStreamCreate(s);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (s == cudaStreamLegacy || s == cudaStreamPerThread) return set_error(cudaErrorInvalidResourceHandle);
  delete s;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  TLEMU_STICKY();
  return cudaSuccess;
}
// Work runs to completion as it is queued: every stream is idle, every wait already satisfied.
cudaError_t cudaStreamQuery(cudaStream_t) {
  TLEMU_STICKY();
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned int) {
  return e ? cudaSuccess : set_error(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  if (!e) return set_error(cudaErrorInvalidValue);
  *e = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int flags) {
  const cudaError_t err = cudaEventCreate(e);
  if (err == cudaSuccess) (*e)->timing = (flags & cudaEventDisableTiming) == 0;
  return err;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (!e) return set_error(cudaErrorInvalidResourceHandle);
  e->t = std::chrono::steady_clock::now();
  e->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) { return e ? cudaSuccess : set_error(cudaErrorInvalidResourceHandle); }
cudaError_t cudaEventQuery(cudaEvent_t e) { return e ? cudaSuccess : set_error(cudaErrorInvalidResourceHandle); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  if (!ms || !a || !b) return set_error(cudaErrorInvalidValue);
  if (!a->recorded || !b->recorded || !a->timing || !b->timing) return set_error(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(b->t - a->t).count();
  return cudaSuccess;
}
