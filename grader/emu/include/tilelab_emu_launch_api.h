// cudaLaunchKernel, the runtime API's launch without <<< >>>: the launch a <<<>>> is rewritten to
// (tlemu::launch), with the arguments read through the pointers in `args`, as CUDA reads them, by
// the kernel's parameter types. Included by tilelab_emu.h after tlemu::launch.
// The kernel must be passed with its type (cudaLaunchKernel(MatrixMulKernel, ...), CUDA's template
// overload): a kernel cast to void* has lost the parameter types the emulator calls it with, and is
// refused at compile time with a message that says so (nvcc reads them from the fatbinary).
#pragma once

namespace tlemu {
template <class... P, size_t... I>
inline cudaError_t launch_with_args(const LaunchSite& site, void (*kernel)(P...), dim3 grid, dim3 block,
                                    void** args, size_t shared, cudaStream_t stream, std::index_sequence<I...>) {
  if (!kernel) return cudaErrorInvalidDeviceFunction;
  if (sizeof...(P) > 0 && !args) return cudaErrorInvalidValue;
  launch(site, grid, block, shared, stream, kernel, *static_cast<std::decay_t<P>*>(args[I])...);
  return cudaPeekAtLastError();
}
template <class T>
struct always_false : std::false_type {};
}  // namespace tlemu

template <class... P>
inline cudaError_t cudaLaunchKernel(void (*func)(P...), dim3 gridDim, dim3 blockDim, void** args,
                                    size_t sharedMem = 0, cudaStream_t stream = nullptr,
                                    const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return tlemu::launch_with_args({file, line, "cudaLaunchKernel"}, func, gridDim, blockDim, args, sharedMem, stream,
                                 std::index_sequence_for<P...>{});
}
template <class T = void>
inline cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t = 0, cudaStream_t = nullptr) {
  static_assert(tlemu::always_false<T>::value,
                "tilelab emulator: cudaLaunchKernel cannot run a kernel cast to void* (the emulator calls it with "
                "its parameter types, which the cast removed): pass the kernel itself, "
                "cudaLaunchKernel(MyKernel, grid, block, args, shared, stream), or launch with <<<grid, block>>>");
  return cudaErrorInvalidDeviceFunction;
}

// cudaLaunchKernelEx and the cooperative launches: refused on both backends (grader/allowlist.toml,
// refuse.launch_api), here at compile time and in the allow-list's words, where g++ would say only
// that the names are not declared.
struct cudaLaunchAttribute;
struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned int numAttrs;
};
#define TLEMU_LAUNCH_REFUSED(name)                                                                           \
  name " is not allowed in a submission: the grader counts and times launches made with <<<grid, block>>> " \
       "(grader/allowlist.toml, refuse.launch_api); launch kernels with <<<grid, block, shared, stream>>>"
template <class... T>
inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t*, T&&...) {
  static_assert(tlemu::always_false<tlemu::LaunchSite(T...)>::value, TLEMU_LAUNCH_REFUSED("cudaLaunchKernelEx"));
  return cudaErrorNotSupported;
}
// CUDA's signature: a declaration of the student's own (an extern "C" one) is a better match.
template <class T>
inline cudaError_t cudaLaunchCooperativeKernel(const T*, dim3, dim3, void**, size_t = 0, cudaStream_t = nullptr) {
  static_assert(tlemu::always_false<T>::value, TLEMU_LAUNCH_REFUSED("cudaLaunchCooperativeKernel"));
  return cudaErrorNotSupported;
}
#undef TLEMU_LAUNCH_REFUSED
