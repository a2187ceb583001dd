// tilelab CPU emulator: the header force-included (g++ -include) into every student .cu file that is
// compiled for the emulator, after grader/emu/rewrite has turned its launches `k<<<g, b, s, st>>>(a)`
// into tlemu::launch(...) calls and its `__shared__` declarations into references to the per-block
// shared arena. It provides what CUDA's compiler and runtime would: the execution-space keywords,
// the built-in variables, dim3, __syncthreads(), and the runtime API subset the kit's stages use,
// on host memory. Error codes have CUDA's numeric values (driver_types.h), so a student's checks and
// messages behave as on a GPU.
//
// Contract with the runtime (grader/emu/runtime/, internal.hpp): one emulated CUDA thread runs at a time, on its
// own fiber; the runtime sets threadIdx/blockIdx/blockDim/gridDim before it resumes a thread, and a
// thread gives up the CPU only inside __syncthreads() or when it returns. Nothing here may be used
// from more than one OS thread at a time.
#ifndef TILELAB_EMU_H
#define TILELAB_EMU_H

// In the builds that see memory accesses through g++'s -fsanitize=thread instrumentation (race,
// count, trace), libc's block copies are the runtime's (runtime/instrument.hpp), which report their
// ranges as the kernel's accesses before doing them: std::copy, std::memcpy, std::fill of bytes and
// __builtin_memcpy otherwise reach memory through libc, which no build instruments (known-bad
// attack3-stdcopy-host-product). An asm label on a function's first declaration renames every call
// g++ makes of it, those its builtins expand to included; this header comes before any other.
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
#undef _FORTIFY_SOURCE  // Ubuntu's g++ defines it: glibc's checked copies (__memcpy_chk) would go round the renaming
extern "C" void* memcpy(void*, const void*, __SIZE_TYPE__) noexcept __asm__("tlemu_memcpy");
extern "C" void* memmove(void*, const void*, __SIZE_TYPE__) noexcept __asm__("tlemu_memmove");
extern "C" void* memset(void*, int, __SIZE_TYPE__) noexcept __asm__("tlemu_memset");
// libc's sort and search too: they move and read the array in libc, and call the comparator from
// there, where the indirect-branch check (runtime/indirect_branch.cpp) does not reach.
extern "C" void qsort(void*, __SIZE_TYPE__, __SIZE_TYPE__, int (*)(const void*, const void*)) __asm__("tlemu_qsort");
extern "C" void* bsearch(const void*, const void*, __SIZE_TYPE__, __SIZE_TYPE__,
                         int (*)(const void*, const void*)) __asm__("tlemu_bsearch");
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <tuple>
#include <vector>
#include <type_traits>
#include <utility>

#define TILELAB_EMULATOR 1

// ---- loop unrolling as nvcc does it, where accesses are counted ----
// The rewriter puts TLEMU_UNROLL(n) / TLEMU_UNROLL_ALL where the student wrote #pragma unroll [n],
// and TLEMU_UNROLL_DEFAULT before every other `for`. The builds that see each access (race and
// count: -fsanitize=thread, with g++'s partial unrolling of loops turned off) unroll as nvcc does:
// a loop whose trip count is known when compiling is unrolled (nvcc unrolls it completely when it
// is small and partly otherwise, so its loads stand side by side either way; here completely, up
// to 128 iterations: a 64-deep k loop was left rolled at 32, and its loads were not merged where
// nvcc merges them), one whose trip count is known only at run time is not. The count build sees an unrolled loop's loads as distinct instructions
// and a rolled one's as one instruction run again, as nvcc compiles them: it merges the first into
// wide shared loads where nvcc does, and not the second (hooks_count.cpp, vector_widths).
// The sanitizer macros g++ defines for the race and count object (__SANITIZE_THREAD__) and the asan
// one (__SANITIZE_ADDRESS__) are undefined below, once this header has used them: a file cannot
// test them to be tiled only in the build that counts it (known-bad redteam2-count-sanitize-macro;
// docs/integrity.md, "What is counted is what is checked and timed").
#if defined(__SANITIZE_THREAD__)
#define TLEMU_PRAGMA_(x) _Pragma(#x)
// #pragma unroll n with n >= 4 on a loop of known trip count: nvcc unrolls it by n, so its loads
// stand side by side in runs of n; here it is unrolled completely (up to 128), which merges the
// same runs of 4. With n of 2 or 3 it stays at n (g++ then leaves such a loop rolled, and nvcc
// merges at most pairs); 0 or 1: not unrolled.
#define TLEMU_UNROLL(n) TLEMU_PRAGMA_(GCC unroll ((n) >= 4 ? 128 : (n) >= 2 ? (n) : 1))
#define TLEMU_UNROLL_ALL TLEMU_PRAGMA_(GCC unroll 65534)
#define TLEMU_UNROLL_DEFAULT TLEMU_PRAGMA_(GCC unroll 128)
#else
#define TLEMU_UNROLL(n)
#define TLEMU_UNROLL_ALL
#define TLEMU_UNROLL_DEFAULT
#endif
#undef __SANITIZE_THREAD__
#undef __SANITIZE_ADDRESS__

// ---- execution spaces and qualifiers: host code, every one of them ----
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
// A __device__, __constant__ or __managed__ variable (grader/emu/rewrite gives it this in place of
// its qualifier): in the section of device memory, whose pages the runtime protects whenever host
// code runs (runtime/internal.hpp, DeviceAccess): host code that reads or writes one by name faults
// and is a finding (host-accessed-device), as on a GPU its name is a host copy kernels never see.
// __managed__ too: the allow-list refuses managed memory on a GPU (grader/allowlist.toml), and here
// it is device memory like the others.
#define TLEMU_DEVICE_VAR __attribute__((section("tlemu_device_vars")))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __grid_constant__
// __restrict__ is understood by g++ itself. __shared__ is rewritten by grader/emu/rewrite before
// compilation; one that survives (inside a macro body, which the rewriter leaves alone) becomes a
// static: correct for the plain build, since blocks run one at a time, but not analysed.
#define __shared__ static
// __noinline__ as nvcc defines it (`static __device__ __noinline__ float f()`: g++ said "does not
// name a type"). libstdc++ writes the attribute as __attribute__((__noinline__)), which this macro
// would break: its headers that do (bits/shared_ptr_base.h through <memory>; libstdc++ 14's
// bits/basic_string.h and .tcc through <string>) are read first, and their include guards keep them
// from being read again (stacktrace and experimental/simd are C++23 and TS only). glibc's
// sys/cdefs.h only defines a macro of it that no other header uses.
#include <memory>
#include <string>
#define __noinline__ __attribute__((noinline))

#include "tilelab_emu_vector.h"

// ---- built-in variables: set by the runtime for the thread that runs ----
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
constexpr int warpSize = 32;

// ---- errors: the numeric values of CUDA's driver_types.h ----
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
  cudaFuncAttributeMax
};
// Values of cudaFuncAttributePreferredSharedMemoryCarveout (a percentage, or one of these).
enum cudaSharedCarveout {
  cudaSharedmemCarveoutDefault = -1,
  cudaSharedmemCarveoutMaxShared = 100,
  cudaSharedmemCarveoutMaxL1 = 0
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106
};

// The fields of CUDA's cudaDeviceProp that course code reads; values describe an H100 SXM.
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  size_t reservedSharedMemPerBlock;
  int concurrentKernels;
  int deviceOverlap;
  int asyncEngineCount;
  int unifiedAddressing;
  int ECCEnabled;
  // Printed by "device query" code from elsewhere; CUDA 12 and 13 both have them.
  size_t textureAlignment;
  int integrated;
  int canMapHostMemory;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int persistingL2CacheMaxSize;
  int managedMemory;
  int isMultiGpuBoard;
};

struct CUstream_st;
typedef CUstream_st* cudaStream_t;
struct CUevent_st;
typedef CUevent_st* cudaEvent_t;

const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);

cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream = nullptr);
template <class T>
inline cudaError_t cudaMalloc(T** ptr, size_t size) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), size);
}
template <class T>
inline cudaError_t cudaMallocHost(T** ptr, size_t size) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), size);
}
// __constant__ and __device__ variables are plain host variables here; the copy itself is the
// runtime's (runtime/cuda_api.cpp), which accounts it as traffic between host and device memory.
cudaError_t tlemu_symbol_copy(void* dst, const void* src, size_t count, int to_symbol);
template <class T>
inline cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, size_t count, size_t offset = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
  return tlemu_symbol_copy(reinterpret_cast<char*>(&symbol) + offset, src, count, 1);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
  return tlemu_symbol_copy(dst, reinterpret_cast<const char*>(&symbol) + offset, count, 0);
}
// On any stream: work runs to completion as it is queued here.
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(T& symbol, const void* src, size_t count, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = nullptr) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = nullptr) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
// CUDA's special stream handles: the legacy default stream and the calling thread's default stream.
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaEventCreate(cudaEvent_t* event);
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// Kernel attributes: recorded (a dynamic shared size above 48 KiB must be opted into, as on a GPU).
cudaError_t tlemu_func_set_attribute(const void* key, cudaFuncAttribute attr, int value);
template <class F>
inline cudaError_t cudaFuncSetAttribute(F* func, cudaFuncAttribute attr, int value) {
  return tlemu_func_set_attribute(reinterpret_cast<const void*>(func), attr, value);
}
// Cache and bank configuration: hints a GPU may ignore; accepted here.
template <class F>
inline cudaError_t cudaFuncSetCacheConfig(F* func, cudaFuncCache) {
  return func ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}
// Device-wide: out of line (runtime/cuda_api.cpp), so that the allow-list sees a call as it does on
// a GPU, and refuses it on both backends (grader/allowlist.toml, refuse.cuda_device_state).
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig);
// The occupancy calculator and cudaFuncGetAttributes.
#include "tilelab_emu_occupancy.h"

// ---- device functions: CUDA's math, atomics and warp operations ----
#include "tilelab_emu_math.h"
#include "tilelab_emu_warp.h"
// The SM's cycle counter, virtual: each read advances it by one, in the order the emulated threads
// run, so its differences count reads, never host time. A kernel timing its own accesses with it
// reads the same in every block and every build (plain, asan, race, count), so it cannot tell
// which of its blocks the count build counts in detail (docs/integrity.md, "What is counted").
// Not instrumented (no_sanitize): the counter is the emulator's, not the kernel's memory.
__attribute__((no_sanitize("thread"), noinline)) inline long long clock64() {
  static long long cycles = 0;
  return ++cycles;
}
inline void __nanosleep(unsigned) {}

// ---- memcpy, memset and memmove in device code ----
// grader/emu/rewrite turns these calls (memcpy, std::memcpy, ::memcpy, __builtin_memcpy, and the
// same of memset and memmove) in the bodies of __global__ and __device__ functions into calls of
// these, so that the copy is made of loads and stores of the student's file: counted by the count
// build, checked by the asan and race builds, as a GPU's copy loop is a kernel's own accesses. A
// libc call would be none of that. Each access is as wide as both pointees' alignment (4 bytes for
// float, 16 for float4; 1 through void*), as a GPU compiler widens a copy; a tail that is shorter,
// or an address the type does not align, goes byte by byte. Always inlined: each call site has
// loads and stores of its own, as on a GPU.
namespace tlemu {
template <size_t W> struct MemWord;
template <> struct MemWord<1> { typedef unsigned char __attribute__((may_alias)) type; };
template <> struct MemWord<2> { typedef uint16_t __attribute__((may_alias)) type; };
template <> struct MemWord<4> { typedef uint32_t __attribute__((may_alias)) type; };
template <> struct MemWord<8> { typedef uint64_t __attribute__((may_alias)) type; };
template <> struct MemWord<16> { typedef unsigned int __attribute__((vector_size(16), may_alias)) type; };
template <class T>
constexpr size_t mem_width() {
  if constexpr (std::is_void<T>::value || !std::is_object<T>::value) return 1;
  else return alignof(T) < 16 ? alignof(T) : 16;
}
template <size_t W>
__attribute__((always_inline)) inline void mem_copy(unsigned char* d, const unsigned char* s, size_t n, bool backward) {
  using T = typename MemWord<W>::type;
  const size_t words = n / W * W;
  if (!backward) {
    for (size_t i = 0; i < words; i += W) *reinterpret_cast<T*>(d + i) = *reinterpret_cast<const T*>(s + i);
    for (size_t i = words; i < n; ++i) d[i] = s[i];
  } else {
    for (size_t i = n; i > words; --i) d[i - 1] = s[i - 1];
    for (size_t i = words; i > 0; i -= W) *reinterpret_cast<T*>(d + i - W) = *reinterpret_cast<const T*>(s + i - W);
  }
}
template <size_t W>
__attribute__((always_inline)) inline void mem_set(unsigned char* d, unsigned char b, size_t n) {
  using T = typename MemWord<W>::type;
  T v;
  if constexpr (W == 16) v = T{} + 0x01010101u * b;
  else v = T(0x0101010101010101ull * b);
  const size_t words = n / W * W;
  for (size_t i = 0; i < words; i += W) *reinterpret_cast<T*>(d + i) = v;
  for (size_t i = words; i < n; ++i) d[i] = b;
}
__attribute__((always_inline)) inline void mem_move(size_t w, void* d, const void* s, size_t n, bool backward) {
  auto* dd = static_cast<unsigned char*>(d);
  auto* ss = static_cast<const unsigned char*>(s);
  const uintptr_t a = reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s);
  if (w >= 16 && a % 16 == 0) return mem_copy<16>(dd, ss, n, backward);
  if (w >= 8 && a % 8 == 0) return mem_copy<8>(dd, ss, n, backward);
  if (w >= 4 && a % 4 == 0) return mem_copy<4>(dd, ss, n, backward);
  if (w >= 2 && a % 2 == 0) return mem_copy<2>(dd, ss, n, backward);
  mem_copy<1>(dd, ss, n, backward);
}
template <class D, class S>
__attribute__((always_inline)) inline void* device_memcpy(D* d, S* s, size_t n) {
  constexpr size_t w = mem_width<D>() < mem_width<S>() ? mem_width<D>() : mem_width<S>();
  mem_move(w, static_cast<void*>(d), static_cast<const void*>(s), n, false);
  return d;
}
template <class D, class S>
__attribute__((always_inline)) inline void* device_memmove(D* d, S* s, size_t n) {
  constexpr size_t w = mem_width<D>() < mem_width<S>() ? mem_width<D>() : mem_width<S>();
  const bool backward = reinterpret_cast<uintptr_t>(static_cast<const void*>(s)) <
                        reinterpret_cast<uintptr_t>(static_cast<void*>(d));
  mem_move(w, static_cast<void*>(d), static_cast<const void*>(s), n, backward);
  return d;
}
template <class D>
__attribute__((always_inline)) inline void* device_memset(D* d, int value, size_t n) {
  constexpr size_t w = mem_width<D>();
  auto* dd = static_cast<unsigned char*>(static_cast<void*>(d));
  const uintptr_t a = reinterpret_cast<uintptr_t>(dd);
  const auto b = static_cast<unsigned char>(value);
  if (w >= 16 && a % 16 == 0) mem_set<16>(dd, b, n);
  else if (w >= 8 && a % 8 == 0) mem_set<8>(dd, b, n);
  else if (w >= 4 && a % 4 == 0) mem_set<4>(dd, b, n);
  else if (w >= 2 && a % 2 == 0) mem_set<2>(dd, b, n);
  else mem_set<1>(dd, b, n);
  return d;
}
// Arguments that are not pointers (nullptr, a class that converts to one): byte by byte.
inline void* device_memcpy(void* d, const void* s, size_t n) { return device_memcpy<void, const void>(d, s, n); }
inline void* device_memmove(void* d, const void* s, size_t n) { return device_memmove<void, const void>(d, s, n); }
inline void* device_memset(void* d, int value, size_t n) { return device_memset<void>(d, value, n); }
}  // namespace tlemu

// ---- barriers: the call site names the barrier in findings ----
namespace tlemu {
// Blocks the calling emulated thread until every thread of its block has arrived at a barrier (or
// has returned); returns the number of threads whose `predicate` was non-zero.
int syncthreads(const char* file, int line, int predicate);

// Threads as loops between barriers (the rewriter's resumable copy of a kernel body, compiled where
// TLEMU_THREAD_LOOPS is defined: grader/emu/rewrite_thread_loops.cpp). At the top of the body:
// whether the calling thread is to run its whole block itself (thread 0 of the block, in a launch).
bool loops_offered();
// The loop's steps, for run_as_loops: whether thread t is ready to run (then it is the current one:
// threadIdx); the current thread arrived at the __syncthreads() at file:line (as syncthreads()
// records it, without waiting); thread t returned; after a pass over the threads, the barrier's
// release as the scheduler does it: false when no thread waits any more.
bool loop_select(size_t t);
void loop_arrive(const char* file, int line);
void loop_finished(size_t t);
bool loop_release();
size_t loop_threads();
// Runs every thread of the block: passes over the threads in index order, each ready one from its
// last barrier to its next (`step` returns true when the thread returned), the barrier released
// after each pass: the order in which the contexts run the threads.
template <class Frame, class Step>
void run_as_loops(Step&& step) {
  std::vector<Frame> frames(loop_threads());
  do {
    for (size_t t = 0; t < frames.size(); ++t)
      if (loop_select(t) && step(frames[t])) loop_finished(t);
  } while (loop_release());
}
// An array declared `= {}` (or `{0}`) in the resumable copy: zeroed where its declaration stood.
template <class T>
inline void loop_zero(T& a) {
  a = T{};
}
template <class T, size_t N>
inline void loop_zero(T (&a)[N]) {
  for (auto& e : a) loop_zero(e);
}
}  // namespace tlemu
#define __syncthreads() ::tlemu::syncthreads(__FILE__, __LINE__, 0)
#define __syncthreads_count(p) ::tlemu::syncthreads(__FILE__, __LINE__, (p) ? 1 : 0)
#define __syncthreads_and(p) (::tlemu::syncthreads(__FILE__, __LINE__, (p) ? 1 : 0) == \
                              int(blockDim.x * blockDim.y * blockDim.z))
#define __syncthreads_or(p) (::tlemu::syncthreads(__FILE__, __LINE__, (p) ? 1 : 0) > 0)
#define __threadfence() ((void)0)
#define __threadfence_block() ((void)0)

// ---- launches and shared memory: the targets of grader/emu/rewrite ----
namespace tlemu {

struct LaunchSite {
  const char* file;
  int line;
  const char* kernel;  // the kernel expression as written, e.g. "MatrixMulKernel<16>"
};

// Validates the configuration (CUDA's limits and error codes), then runs thread(ctx) once for every
// thread of every block, blocks in order, each thread on its own fiber. `pointers` are the kernel's
// pointer arguments, checked to lie in memory from cudaMalloc. Errors go where CUDA puts them:
// cudaGetLastError().
void launch_erased(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
                   void (*thread)(void*), void* ctx, const void* const* pointers, int n_pointers);

// The bytes of a launch's by-value arguments, reported to the memory observer (kLaunchArgs): the
// host sends them to the device with the launch (docs/integrity.md, "The product is computed by a
// kernel").
void note_launch_arguments(size_t bytes);

template <class T>
inline void collect_pointer(const T& arg, const void** out, int& n) {
  if constexpr (std::is_pointer<T>::value) out[n++] = reinterpret_cast<const void*>(arg);
}

// What each thread of a launch starts from (launch, below): the kernel and the launch's copy of the
// arguments, on the host's stack.
template <class K, class Args>
struct LaunchCtx {
  K* kernel;
  Args* args;
};
// Each thread copies the arguments onto its own stack, as its parameters, before the kernel runs, and
// calls it. A named function, not a lambda: g++ 10 (Debian 11) ignores a no_sanitize attribute on a
// lambda, and the race build then took the launch's copy for the kernel's reads of host memory.
// The kernel is called through call_kernel, never inlined there: g++ 10 inlines an instrumented
// function into a no_sanitize one and drops its instrumentation (the kernel's own accesses).
template <class K, class Args>
__attribute__((noinline)) void call_kernel(K& kernel, Args& args) {
  std::apply(kernel, args);
}
// The kernel is copied onto the thread's stack too, uninstrumented: a kernel the launch names by a
// variable (a function pointer, handed to launch by value: grader/emu/rewrite_launch.cpp) is read
// here, as CUDA reads it at the launch, and not by the kernel from the host's memory (the race
// build's kernel-accessed-host; known-good 05-kernel-table-ldg).
template <class K, class Args, bool Trivial>
__attribute__((no_sanitize("thread", "address"))) void start_thread(void* c) {
  auto* x = static_cast<LaunchCtx<K, Args>*>(c);
  std::decay_t<K> kernel = *x->kernel;  // a function named by the launch: a pointer to it
  if constexpr (Trivial) {
    alignas(Args) unsigned char own[sizeof(Args)];
    __builtin_memcpy(own, static_cast<const void*>(x->args), sizeof(Args));
    call_kernel(kernel, *std::launder(reinterpret_cast<Args*>(own)));
  } else {
    call_kernel(kernel, *x->args);
  }
}

// k<<<g, b, s, st>>>(args...) becomes launch(site, g, b, s, st, [&](auto&&... a) { k(a...); }, args...),
// and becomes launch(site, g, b, s, st, k, args...) where k is a variable (a function pointer).
// The arguments are evaluated and copied once, as CUDA copies them at the launch; each thread then
// receives its own by-value parameters.
template <class F, class... A>
inline void launch(const LaunchSite& site, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
                   F&& kernel, A&&... args) {
  // A call that does not compile was reported on the student's line already (grader/emu/rewrite).
  if constexpr (std::is_invocable<std::remove_reference_t<F>&, std::decay_t<A>&...>::value) {
    std::tuple<std::decay_t<A>...> copied(std::forward<A>(args)...);
    LaunchCtx<std::remove_reference_t<F>, std::tuple<std::decay_t<A>...>> ctx{&kernel, &copied};
    const void* pointers[sizeof...(A) + 1] = {};
    int n = 0;
    std::apply([&](const auto&... a) { (collect_pointer(a, pointers, n), ...); }, copied);
    note_launch_arguments((size_t(0) + ... + sizeof(std::decay_t<A>)));
    // Each thread copies the arguments onto its own stack, as its parameters, before the kernel
    // runs (the kernel's reads of them are then of its own stack, which the count build does not
    // count as global memory; the launch's copy lives on the host's stack, which it would). The copy
    // is not instrumented: it is the launch's, not the kernel's.
    using Args = std::tuple<std::decay_t<A>...>;
    launch_erased(site, grid, block, dynamic_shared, stream,
                  &start_thread<std::remove_reference_t<F>, Args,
                                (std::is_trivially_copyable<std::decay_t<A>>::value && ...)>,
                  &ctx, pointers, n);
  } else {
    static_assert(sizeof(F) == 0, "tilelab emulator: the kernel cannot be called with copies of the launch's "
                                  "arguments (CUDA passes kernel arguments by value)");
  }
}

// Shape of a __shared__ array, for messages such as "Mds[3][15]".
template <class T>
struct SharedShape {
  static void fill(int* dims, int& rank) {
    if constexpr (std::rank<T>::value > 0) {
      dims[rank++] = int(std::extent<T>::value);
      SharedShape<std::remove_extent_t<T>>::fill(dims, rank);
    }
  }
};

// Storage for one `__shared__` variable: the rewriter turns `__shared__ T name[A][B];` into a
// reference bound from a function-local static pointer set on first execution (shared_bind). Blocks run one after another, so one
// address serves every block (as one SM's shared memory serves the blocks it runs in turn).
// read: false where the rewriter found the kernel never reads it (only declared, or only assigned):
// nvcc allocates nothing for such a variable, so it counts in no launch's static shared memory.
void* shared_alloc(size_t bytes, size_t align, size_t elem_bytes, const int* dims, int rank, const char* name,
                   const char* file, int line, bool read = true);
template <class T>
inline T& shared_var(const char* name, const char* file, int line, bool read = true) {
  int dims[8] = {};
  int rank = 0;
  SharedShape<T>::fill(dims, rank);
  return *static_cast<T*>(shared_alloc(sizeof(T), alignof(T), sizeof(std::remove_all_extents_t<T>), dims, rank,
                                       name, file, line, read));
}
// The rewriter's pointer to a __shared__ variable (rewrite_shared.cpp), set to `at` by the runtime,
// whose code is not instrumented: the store is the emulator's, not the kernel's (the race build
// reports a kernel's store to host memory, its static storage included).
void* bind_shared_slot(void** slot, void* at);
template <class T>
inline T* shared_bind(T*& slot, T& at) {
  return static_cast<T*>(bind_shared_slot(reinterpret_cast<void**>(const_cast<std::remove_cv_t<T>**>(&slot)),
                                          const_cast<void*>(static_cast<const volatile void*>(&at))));
}
// `extern __shared__ T name[];`: the launch's dynamic shared memory.
void* dynamic_shared_base(const char* name, size_t elem_bytes);
template <class T>
inline T& dynamic_shared(const char* name, const char*, int) {
  return *static_cast<T*>(dynamic_shared_base(name, sizeof(std::remove_all_extents_t<T>)));
}

}  // namespace tlemu

// cudaLaunchKernel: the runtime API's launch, made as a <<<>>> is.
#include "tilelab_emu_launch_api.h"

// ---- what the builds that count and check cannot see: refused in every build ----
// The count build counts the loads g++'s instrumentation reports (runtime/instrument.hpp), the race
// and asan builds check them. An attribute that turns the instrumentation off for a function would
// hide a kernel's loads from them, so its names are poisoned after the emulator's own uses above:
// any later use, spelled out or made by a macro or by ## pasting, is a compile error on the
// student's line ("attempt to use poisoned "no_sanitize_thread""). No C or C++ library header uses
// them. Inline assembly, never instrumented, is refused by grader/emu/rewrite on its line ("inline
// assembly cannot run on the emulator"); it is not poisoned here, since the C library's headers
// (wchar.h, signal.h) and doctest's use __asm. docs/integrity.md, "What is counted is what is
// checked and timed".
#pragma GCC poison no_sanitize __no_sanitize__ no_sanitize_thread __no_sanitize_thread__
#pragma GCC poison no_sanitize_address __no_sanitize_address__ no_address_safety_analysis __no_address_safety_analysis__
#pragma GCC poison no_sanitize_undefined __no_sanitize_undefined__ no_sanitize_coverage __no_sanitize_coverage__

#endif  // TILELAB_EMU_H
