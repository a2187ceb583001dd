#include "launch_probe.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tilelab::probe {
namespace {

struct Launch {
  const void* func;
  dim3 grid, block;
  size_t smem;
  cudaStream_t stream;
};

std::mutex mu;
bool recording = false;
std::vector<Launch> launches;
std::map<const void*, const void*> kernel_to_stub;  // cudaKernel_t -> host stub (CUDA 13 path)
uintptr_t watched = 0;
size_t watched_bytes = 0, host_copies = 0;

Ledger the_ledger;
std::map<const void*, size_t> pinned;  // cudaMallocHost/cudaHostAlloc memory held now, by start
size_t pinned_total = 0;

// Whether p lies in device memory (cudaMalloc, a __device__ symbol, managed memory); host memory,
// pinned included, is not. Asked only while a call is accounted (the worker's own copies are not).
bool on_device(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();  // an address the runtime does not know: host memory
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

// A copy for the ledger: `bytes` moved from src to dst, each end's memory asked of the runtime
// unless the API fixes it (a symbol is device memory). After the copy was queued without an error
// (what failed moved nothing, as the emulator counts it) and, for matmul_host, completed (wait_for).
void account(void* dst, const void* src, size_t bytes, int dst_dev = -1, int src_dev = -1) {
  if (!the_ledger.active() || !bytes) return;
  CopyEvent e;
  e.dst = dst, e.src = src, e.bytes = bytes;
  e.dst_device = dst_dev >= 0 ? dst_dev != 0 : on_device(dst);
  e.src_device = src_dev >= 0 ? src_dev != 0 : on_device(src);
  the_ledger.note(e);
}
void account_set() {
  CopyEvent e;
  e.kind = CopyEvent::kMemset;
  the_ledger.note(e);
}
// matmul_host's copies back are read by the ledger when they return: an asynchronous one is
// waited for first (its stream only, so the order of the student's work is unchanged).
void wait_for(cudaStream_t s) {
  if (the_ledger.wants_content()) cudaStreamSynchronize(s);
}

// A copy of `bytes` from the host (kind, or the source's memory type for cudaMemcpyDefault) whose
// destination range meets the watched buffer.
void note_copy(const void* dst, size_t bytes, const void* src, cudaMemcpyKind kind) {
  std::lock_guard<std::mutex> lock(mu);
  if (!recording || !watched_bytes || !bytes) return;
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst);
  if (d >= watched + watched_bytes || d + bytes <= watched) return;
  bool from_host = kind == cudaMemcpyHostToDevice;
  if (kind == cudaMemcpyDefault) {
    cudaPointerAttributes a{};
    from_host = cudaPointerGetAttributes(&a, src) != cudaSuccess || a.type != cudaMemoryTypeDevice;
    cudaGetLastError();
  }
  if (from_host) ++host_copies;
}

void record(const void* func, dim3 g, dim3 b, size_t smem, cudaStream_t s) {
  std::lock_guard<std::mutex> lock(mu);
  if (recording) launches.push_back({func, g, b, smem, s});
}

// A launch's by-value arguments, for the ledger (CopyEvent::kLaunchArgs): their bytes from the
// kernel's parameter info (CUDA 12.4 and later; earlier toolkits report none), asked once a kernel.
// `func` is the host stub or, on the CUDA 13 path where no stub is known, the cudaKernel_t.
void account_arguments(const void* func) {
  if (!the_ledger.active() || !func) return;
#if CUDART_VERSION >= 12040
  static std::map<const void*, size_t> sizes;
  size_t total = 0;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = sizes.find(func);
    if (it != sizes.end()) total = it->second, known = true;
  }
  if (!known) {
    for (size_t i = 0;; ++i) {
      size_t offset = 0, size = 0;
      if (cudaFuncGetParamInfo(func, i, &offset, &size) != cudaSuccess) {
        cudaGetLastError();  // past the last parameter
        break;
      }
      total = std::max(total, offset + size);
    }
    std::lock_guard<std::mutex> lock(mu);
    sizes[func] = total;
  }
  CopyEvent e;
  e.kind = CopyEvent::kLaunchArgs, e.bytes = total;
  the_ledger.note(e);
#endif
}

nlohmann::json dims(dim3 d) { return {d.x, d.y, d.z}; }

// Pinned host memory held, and its changes for the ledger (whose pinned_bytes is the most held at
// once during the call: memory a kernel can read and write without a copy).
void pinned_alloc(const void* p, size_t n) {
  {
    std::lock_guard<std::mutex> lock(mu);
    pinned[p] = n;
    pinned_total += n;
  }
  CopyEvent e;
  e.kind = CopyEvent::kPinnedAlloc, e.bytes = n;
  the_ledger.note(e);
}
void pinned_free(const void* p) {
  size_t n = 0;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = pinned.find(p);
    if (it == pinned.end()) return;
    n = it->second;
    pinned_total -= n;
    pinned.erase(it);
  }
  CopyEvent e;
  e.kind = CopyEvent::kPinnedFree, e.bytes = n;
  the_ledger.note(e);
}

}  // namespace

void start_recording() {
  std::lock_guard<std::mutex> lock(mu);
  launches.clear();
  host_copies = 0;
  recording = true;
}

void watch(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  watched = reinterpret_cast<uintptr_t>(p);
  watched_bytes = bytes;
}

Ledger& ledger() { return the_ledger; }
size_t pinned_held() {
  std::lock_guard<std::mutex> lock(mu);
  return pinned_total;
}

size_t copies_into_watched() {
  std::lock_guard<std::mutex> lock(mu);
  return host_copies;
}

void stop_recording() {
  std::lock_guard<std::mutex> lock(mu);
  recording = false;
}

size_t count() {
  std::lock_guard<std::mutex> lock(mu);
  return launches.size();
}

nlohmann::json report(const cudaDeviceProp& prop) {
  std::lock_guard<std::mutex> lock(mu);
  nlohmann::json out = {{"launches", launches.size()}};
  if (launches.empty()) return out;
  bool side_stream = false;
  for (const auto& l : launches) side_stream = side_stream || l.stream != nullptr;
  out["non_default_stream"] = side_stream;
  const Launch& l = launches.back();
  const int threads = int(l.block.x * l.block.y * l.block.z);
  out["grid"] = dims(l.grid);
  out["block"] = dims(l.block);
  out["dynamic_shared_bytes"] = l.smem;
  cudaFuncAttributes a{};
  if (!l.func || cudaFuncGetAttributes(&a, l.func) != cudaSuccess) {
    cudaGetLastError();
    return out;
  }
  const size_t smem = a.sharedSizeBytes + l.smem;
  // Each limit on resident blocks per SM, as in PMPP 4.7; the smallest one binds.
  const int warps = (threads + prop.warpSize - 1) / prop.warpSize;
  const int regs_per_warp = ((a.numRegs * prop.warpSize + 255) / 256) * 256;  // allocation unit
  std::map<std::string, int> limit;
  limit["threads"] = threads > 0 ? prop.maxThreadsPerMultiProcessor / (warps * prop.warpSize) : 0;
  limit["blocks"] = prop.maxBlocksPerMultiProcessor;
  limit["registers"] = a.numRegs > 0 ? prop.regsPerMultiprocessor / (regs_per_warp * warps) : limit["blocks"];
  limit["shared_memory"] =
      smem > 0 ? int(prop.sharedMemPerMultiprocessor / (smem + prop.reservedSharedMemPerBlock)) : limit["blocks"];
  // Ties are common (16x16 blocks hit the thread and register limits together): list them all,
  // naming the book's first suspects first.
  int least = limit["blocks"];
  for (const auto& [k, v] : limit) least = std::min(least, v);
  std::vector<std::string> binding;
  for (const char* k : {"threads", "registers", "shared_memory", "blocks"})
    if (limit[k] == least) binding.push_back(k);
  int active = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, l.func, threads, l.smem) != cudaSuccess) {
    cudaGetLastError();
    active = -1;
  }
  out["kernel"] = {
      {"registers_per_thread", a.numRegs},
      {"static_shared_bytes", a.sharedSizeBytes},
      {"local_bytes_per_thread", a.localSizeBytes},
      {"max_threads_per_block", a.maxThreadsPerBlock},
  };
  out["occupancy"] = {
      {"active_blocks_per_sm", active},
      {"active_threads_per_sm", active > 0 ? active * threads : 0},
      {"fraction", active > 0 ? double(active * warps * prop.warpSize) / prop.maxThreadsPerMultiProcessor : 0.0},
      {"limits", limit},
      {"binding_limit", binding.front()},
      {"binding_limits", binding},
  };
  return out;
}

}  // namespace tilelab::probe

// ---- link-time wrappers (the runner links with -Wl,--wrap=<name> for each) ----
extern "C" {
cudaError_t __real_cudaLaunchKernel(const void* func, dim3 g, dim3 b, void** args, size_t smem,
                                    cudaStream_t s);
cudaError_t __wrap_cudaLaunchKernel(const void* func, dim3 g, dim3 b, void** args, size_t smem,
                                    cudaStream_t s) {
  tilelab::probe::record(func, g, b, smem, s);
  tilelab::probe::account_arguments(func);
  return __real_cudaLaunchKernel(func, g, b, args, smem, s);
}

cudaError_t __real_cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind);
cudaError_t __wrap_cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  tilelab::probe::note_copy(dst, n, src, kind);
  const cudaError_t e = __real_cudaMemcpy(dst, src, n, kind);
  if (e == cudaSuccess) tilelab::probe::account(dst, src, n);
  return e;
}
cudaError_t __real_cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t s);
cudaError_t __wrap_cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t s) {
  tilelab::probe::note_copy(dst, n, src, kind);
  const cudaError_t e = __real_cudaMemcpyAsync(dst, src, n, kind, s);
  tilelab::probe::wait_for(s);
  if (e == cudaSuccess) tilelab::probe::account(dst, src, n);
  return e;
}
cudaError_t __real_cudaMemcpy2D(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind kind);
cudaError_t __wrap_cudaMemcpy2D(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h, cudaMemcpyKind kind) {
  tilelab::probe::note_copy(dst, h ? dp * (h - 1) + w : 0, src, kind);
  const cudaError_t e = __real_cudaMemcpy2D(dst, dp, src, sp, w, h, kind);
  // w * h bytes moved; matmul_host's words are read from each end's start as if packed (the
  // allow-list refuses cudaMemcpy2D: this is the rule's backstop, not an idiom it must read exactly).
  if (e == cudaSuccess) tilelab::probe::account(dst, src, w * h);
  return e;
}
cudaError_t __real_cudaMemcpy2DAsync(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h,
                                     cudaMemcpyKind kind, cudaStream_t s);
cudaError_t __wrap_cudaMemcpy2DAsync(void* dst, size_t dp, const void* src, size_t sp, size_t w, size_t h,
                                     cudaMemcpyKind kind, cudaStream_t s) {
  tilelab::probe::note_copy(dst, h ? dp * (h - 1) + w : 0, src, kind);
  const cudaError_t e = __real_cudaMemcpy2DAsync(dst, dp, src, sp, w, h, kind, s);
  tilelab::probe::wait_for(s);
  if (e == cudaSuccess) tilelab::probe::account(dst, src, w * h);
  return e;
}

// Every other route between host and device memory (docs/integrity.md, "The product is computed
// by a kernel"): symbols, 3D and peer copies, sets, and pinned host memory, which a kernel reads
// and writes directly through unified addressing. Most are refused by the allow-list; accounted all
// the same, so that the rule does not rest on the list alone.
cudaError_t __real_cudaMemcpyToSymbol(const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind kind);
cudaError_t __wrap_cudaMemcpyToSymbol(const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind kind) {
  const cudaError_t e = __real_cudaMemcpyToSymbol(sym, src, n, off, kind);
  if (e == cudaSuccess) tilelab::probe::account(nullptr, src, n, 1);
  return e;
}
cudaError_t __real_cudaMemcpyToSymbolAsync(const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind kind,
                                           cudaStream_t s);
cudaError_t __wrap_cudaMemcpyToSymbolAsync(const void* sym, const void* src, size_t n, size_t off, cudaMemcpyKind kind,
                                           cudaStream_t s) {
  const cudaError_t e = __real_cudaMemcpyToSymbolAsync(sym, src, n, off, kind, s);
  if (e == cudaSuccess) tilelab::probe::account(nullptr, src, n, 1);
  return e;
}
cudaError_t __real_cudaMemcpyFromSymbol(void* dst, const void* sym, size_t n, size_t off, cudaMemcpyKind kind);
cudaError_t __wrap_cudaMemcpyFromSymbol(void* dst, const void* sym, size_t n, size_t off, cudaMemcpyKind kind) {
  const cudaError_t e = __real_cudaMemcpyFromSymbol(dst, sym, n, off, kind);
  if (e == cudaSuccess) tilelab::probe::account(dst, nullptr, n, -1, 1);
  return e;
}
cudaError_t __real_cudaMemcpyFromSymbolAsync(void* dst, const void* sym, size_t n, size_t off, cudaMemcpyKind kind,
                                             cudaStream_t s);
cudaError_t __wrap_cudaMemcpyFromSymbolAsync(void* dst, const void* sym, size_t n, size_t off, cudaMemcpyKind kind,
                                             cudaStream_t s) {
  const cudaError_t e = __real_cudaMemcpyFromSymbolAsync(dst, sym, n, off, kind, s);
  tilelab::probe::wait_for(s);
  if (e == cudaSuccess) tilelab::probe::account(dst, nullptr, n, -1, 1);
  return e;
}
cudaError_t __real_cudaMemcpy3D(const cudaMemcpy3DParms* p);
cudaError_t __wrap_cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  const cudaError_t e = __real_cudaMemcpy3D(p);
  if (e == cudaSuccess && p)  // an array end is device memory
    tilelab::probe::account(p->dstPtr.ptr, p->srcPtr.ptr, p->extent.width * p->extent.height * p->extent.depth,
                            p->dstArray ? 1 : -1, p->srcArray ? 1 : -1);
  return e;
}
cudaError_t __real_cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t s);
cudaError_t __wrap_cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t s) {
  const cudaError_t e = __real_cudaMemcpy3DAsync(p, s);
  tilelab::probe::wait_for(s);
  if (e == cudaSuccess && p)
    tilelab::probe::account(p->dstPtr.ptr, p->srcPtr.ptr, p->extent.width * p->extent.height * p->extent.depth,
                            p->dstArray ? 1 : -1, p->srcArray ? 1 : -1);
  return e;
}
cudaError_t __real_cudaMemcpyPeer(void* dst, int dd, const void* src, int sd, size_t n);
cudaError_t __wrap_cudaMemcpyPeer(void* dst, int dd, const void* src, int sd, size_t n) {
  const cudaError_t e = __real_cudaMemcpyPeer(dst, dd, src, sd, n);
  if (e == cudaSuccess) tilelab::probe::account(dst, src, n);
  return e;
}
cudaError_t __real_cudaMemcpyPeerAsync(void* dst, int dd, const void* src, int sd, size_t n, cudaStream_t s);
cudaError_t __wrap_cudaMemcpyPeerAsync(void* dst, int dd, const void* src, int sd, size_t n, cudaStream_t s) {
  const cudaError_t e = __real_cudaMemcpyPeerAsync(dst, dd, src, sd, n, s);
  tilelab::probe::wait_for(s);
  if (e == cudaSuccess) tilelab::probe::account(dst, src, n);
  return e;
}
cudaError_t __real_cudaMemset(void* p, int v, size_t n);
cudaError_t __wrap_cudaMemset(void* p, int v, size_t n) {
  const cudaError_t e = __real_cudaMemset(p, v, n);
  if (e == cudaSuccess && n) tilelab::probe::account_set();  // as the emulator counts them
  return e;
}
cudaError_t __real_cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t s);
cudaError_t __wrap_cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t s) {
  const cudaError_t e = __real_cudaMemsetAsync(p, v, n, s);
  if (e == cudaSuccess && n) tilelab::probe::account_set();
  return e;
}
cudaError_t __real_cudaMemset2D(void* p, size_t pitch, int v, size_t w, size_t h);
cudaError_t __wrap_cudaMemset2D(void* p, size_t pitch, int v, size_t w, size_t h) {
  const cudaError_t e = __real_cudaMemset2D(p, pitch, v, w, h);
  if (e == cudaSuccess && w * h) tilelab::probe::account_set();
  return e;
}
cudaError_t __real_cudaMemset2DAsync(void* p, size_t pitch, int v, size_t w, size_t h, cudaStream_t s);
cudaError_t __wrap_cudaMemset2DAsync(void* p, size_t pitch, int v, size_t w, size_t h, cudaStream_t s) {
  const cudaError_t e = __real_cudaMemset2DAsync(p, pitch, v, w, h, s);
  if (e == cudaSuccess && w * h) tilelab::probe::account_set();
  return e;
}
cudaError_t __real_cudaMallocHost(void** p, size_t n);
cudaError_t __wrap_cudaMallocHost(void** p, size_t n) {
  const cudaError_t e = __real_cudaMallocHost(p, n);
  if (e == cudaSuccess && p) tilelab::probe::pinned_alloc(*p, n);
  return e;
}
cudaError_t __real_cudaHostAlloc(void** p, size_t n, unsigned flags);
cudaError_t __wrap_cudaHostAlloc(void** p, size_t n, unsigned flags) {
  const cudaError_t e = __real_cudaHostAlloc(p, n, flags);
  if (e == cudaSuccess && p) tilelab::probe::pinned_alloc(*p, n);
  return e;
}
cudaError_t __real_cudaFreeHost(void* p);
cudaError_t __wrap_cudaFreeHost(void* p) {
  tilelab::probe::pinned_free(p);
  return __real_cudaFreeHost(p);
}

#ifdef TILELAB_WRAP_KERNEL_HANDLES  // CUDA 13: <<<>>> goes through __cudaGetKernel/__cudaLaunchKernel
cudaError_t __real___cudaGetKernel(cudaKernel_t* kernel, const void* func);
cudaError_t __wrap___cudaGetKernel(cudaKernel_t* kernel, const void* func) {
  const cudaError_t e = __real___cudaGetKernel(kernel, func);
  if (e == cudaSuccess && kernel) {
    std::lock_guard<std::mutex> lock(tilelab::probe::mu);
    tilelab::probe::kernel_to_stub[*kernel] = func;
  }
  return e;
}
cudaError_t __real___cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void** args, size_t smem,
                                      cudaStream_t s);
cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void** args, size_t smem,
                                      cudaStream_t s) {
  const void* func = nullptr;
  {
    std::lock_guard<std::mutex> lock(tilelab::probe::mu);
    auto it = tilelab::probe::kernel_to_stub.find(k);
    if (it != tilelab::probe::kernel_to_stub.end()) func = it->second;
  }
  tilelab::probe::record(func, g, b, smem, s);
  tilelab::probe::account_arguments(func ? func : static_cast<const void*>(k));
  return __real___cudaLaunchKernel(k, g, b, args, smem, s);
}
#endif
}
