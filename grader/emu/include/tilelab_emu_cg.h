// tilelab CPU emulator: the part of CUDA's cooperative groups (<cooperative_groups.h>) that a tiled
// matrix multiplication uses, with CUDA's names and types (issue #40, item 4; docs/emulator.md,
// "Cooperative groups"):
//   - the block: thread_block, this_thread_block(), its sync(), thread_rank(), size()/num_threads(),
//     group_index(), thread_index(), group_dim()/dim_threads(); cg::sync(g) of any group below;
//   - tiles of one warp or less: tiled_partition<N>(block or tile) -> thread_block_tile<N, Parent>
//     (converts to thread_block_tile<N>) with sync(), thread_rank(), size()/num_threads(),
//     meta_group_rank(), meta_group_size(), shfl, shfl_up, shfl_down, shfl_xor, any, all, ballot;
//     cg::reduce(tile, value, op) (<cooperative_groups/reduce.h>) over such a tile;
//     tiled_partition(block, n) -> thread_group (sync(), thread_rank(), size()/num_threads(), as
//     CUDA's thread_group: no meta_group_rank() or shuffles there either); this_thread().
// Everything else of the header (grid_group, coalesced_group, cluster groups, memcpy_async, reduce
// of a larger group, the async reduces and scan, labeled and binary partitions, multi-warp tiles, match_any/match_all) is declared and
// refused: its use is a compile error at the student's line that names it and says it works on
// the GPU (GCC's error attribute, as tilelab_emu_warp.h refuses __match_any_sync).
//
// Contract with the runtime: a block's sync() IS a __syncthreads() -- the same call of
// tlemu::syncthreads with the student's file and line (__builtin_FILE/__builtin_LINE as default
// arguments are evaluated at the call, after the rewriter's #line) -- so barrier checks, the race
// build's phases, the count build's barrier counts and ./tilelab trace see block.sync() and
// __syncthreads() alike. A tile's sync() is __syncwarp(tile mask) and its shuffles are
// __shfl_*_sync(tile mask, ..., width = tile size): warp operations of runtime/core.cpp's warp_op.
// A warp is 32 threads of consecutive linear thread id, as on a GPU, so a tile of N threads is N
// consecutive ids starting at a multiple of N.
//
// Named tilelab_emu_*.h so that the race and asan builds' findings skip frames inlined from here
// and name the student's line (runtime/symbolize.cpp). Every name is in namespace
// cooperative_groups, none starts with __ (grader/allowlist.toml's reserved definitions): the
// weak definitions of these inline functions in the student's object are allowed.
#ifndef TILELAB_EMU_CG_H
#define TILELAB_EMU_CG_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace cooperative_groups {

namespace emu_detail {
// The calling thread's linear id in its block (x fastest), the block's size, its lane in the warp.
inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane() { return block_rank() & 31u; }
// The lanes of the calling thread's tile of n threads (n a power of two, at most 32), cut at the
// block's end as CUDA's tiled_partition cuts it (a partial last warp).
inline unsigned tile_lanes(unsigned n) {
  const unsigned base = block_rank() & ~(n - 1u);
  const unsigned present = block_size() - base < n ? block_size() - base : n;
  const unsigned bits = present >= 32 ? 0xffffffffu : (1u << present) - 1u;
  return bits << (lane() & ~(n - 1u));
}
inline void block_sync(const char* file, int line) { ::tlemu::syncthreads(file, line, 0); }
inline void tile_sync(unsigned n, const char* file, int line) {
  ::tlemu::warp_op(::tlemu::warp::sync, tile_lanes(n), 0, 0, 32, file, line);
}
// A shuffle of any trivially copyable value, 8 bytes at a time (CUDA's cooperative groups shuffle
// values of any size; one warp operation moves at most 8 bytes).
template <class T>
inline T tile_shuffle(int op, unsigned n, T value, int arg, const char* file, int line) {
  static_assert(std::is_trivially_copyable<T>::value, "a thread_block_tile shuffles trivially copyable values");
  if constexpr (sizeof(T) <= 8) {
    return ::tlemu::shuffle(file, line, op, tile_lanes(n), value, arg, int(n));
  } else {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (size_t at = 0; at < sizeof(T); at += 8) {
      uint64_t chunk = 0;
      const size_t len = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
      std::memcpy(&chunk, bytes + at, len);
      chunk = ::tlemu::warp_op(op, tile_lanes(n), chunk, arg, int(n), file, line);
      std::memcpy(bytes + at, &chunk, len);
    }
    T out;
    std::memcpy(&out, bytes, sizeof(T));
    return out;
  }
}
// tiled_partition(block, n) with n not a power of two in 1..32: CUDA traps in the kernel (the
// launch fails); here the runner stops with this line.
[[noreturn]] inline void bad_tile_size(unsigned n, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: tiled_partition(block, %u): the tile size must be 1, 2, 4, 8, 16 or 32 (on a GPU the kernel traps)\n",
               file, line, n);
  std::abort();
}
}  // namespace emu_detail

// ---- thread_group: a block or a tile whose size is known at run time ----
class thread_group {
 public:
  unsigned long long size() const { return tile_ ? (unsigned long long)__builtin_popcount(emu_detail::tile_lanes(tile_)) : emu_detail::block_size(); }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const { return tile_ ? emu_detail::block_rank() & (tile_ - 1u) : emu_detail::block_rank(); }
  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    if (tile_) emu_detail::tile_sync(tile_, file, line);
    else emu_detail::block_sync(file, line);
  }

 protected:
  explicit thread_group(unsigned tile) : tile_(tile) {}
  unsigned tile_;  // 0: the whole block; else the tile's size (a power of two, at most 32)

  friend thread_group tiled_partition(const thread_group& parent, unsigned tilesz, const char*, int);
};

// ---- thread_block: the calling thread's block ----
class thread_block : public thread_group {
 public:
  static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) { emu_detail::block_sync(file, line); }
  static unsigned int thread_rank() { return emu_detail::block_rank(); }
  static unsigned int size() { return emu_detail::block_size(); }
  static unsigned int num_threads() { return emu_detail::block_size(); }
  static dim3 group_index() { return dim3(blockIdx); }
  static dim3 thread_index() { return dim3(threadIdx); }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }

 private:
  thread_block() : thread_group(0) {}
  friend thread_block this_thread_block();
};

inline thread_block this_thread_block() { return thread_block(); }

// ---- thread_block_tile<N>: N consecutive threads of one warp, N known when compiling ----
template <unsigned int Size, class ParentT = void>
class thread_block_tile;

template <unsigned int Size>
class thread_block_tile<Size, void> {
  static_assert(Size <= 32 || (Size & (Size - 1)) != 0,
                "thread_block_tile of more than 32 threads (a multi-warp tile) is not supported by the tilelab CPU "
                "emulator (an emulator limit, not an error in your code): it works on the GPU; tiles of 1, 2, 4, 8, "
                "16 or 32 threads are emulated");
  static_assert(Size >= 1 && (Size & (Size - 1)) == 0, "Size must be one of 1/2/4/8/16/32");

 public:
  static constexpr unsigned int numThreads = Size;
  static unsigned int thread_rank() { return emu_detail::block_rank() & (Size - 1u); }
  static constexpr unsigned int size() { return Size; }
  static constexpr unsigned int num_threads() { return Size; }
  static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    emu_detail::tile_sync(Size, file, line);
  }
  // The tile's rank among the tiles its parent was cut into, and their number.
  unsigned int meta_group_rank() const { return meta_rank_; }
  unsigned int meta_group_size() const { return meta_size_; }

  template <class T>
  T shfl(T var, int srcRank, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return emu_detail::tile_shuffle(::tlemu::warp::shfl, Size, var, srcRank, file, line);
  }
  template <class T>
  T shfl_up(T var, unsigned int delta, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return emu_detail::tile_shuffle(::tlemu::warp::shfl_up, Size, var, int(delta), file, line);
  }
  template <class T>
  T shfl_down(T var, unsigned int delta, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return emu_detail::tile_shuffle(::tlemu::warp::shfl_down, Size, var, int(delta), file, line);
  }
  template <class T>
  T shfl_xor(T var, unsigned int laneMask, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return emu_detail::tile_shuffle(::tlemu::warp::shfl_xor, Size, var, int(laneMask), file, line);
  }
  int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return int(::tlemu::warp_op(::tlemu::warp::any, emu_detail::tile_lanes(Size), predicate ? 1 : 0, 0, 32, file, line));
  }
  int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return int(::tlemu::warp_op(::tlemu::warp::all, emu_detail::tile_lanes(Size), predicate ? 1 : 0, 0, 32, file, line));
  }
  // Bit i: the tile's thread of rank i (CUDA's tile ballot is of tile ranks, not warp lanes).
  unsigned int ballot(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    const unsigned lanes = unsigned(
        ::tlemu::warp_op(::tlemu::warp::ballot, emu_detail::tile_lanes(Size), predicate ? 1 : 0, 0, 32, file, line));
    return Size == 32 ? lanes : (lanes >> (emu_detail::lane() & ~(Size - 1u))) & ((1u << (Size & 31u)) - 1u);
  }
#define TLEMU_CG_LIMIT(what)                                                                                   \
  "cooperative_groups " what " is not supported by the tilelab CPU emulator (an emulator limit, not an error " \
  "in your code): it works on the GPU; grade this file there, or do without it"
  template <class... A>
  __attribute__((error(TLEMU_CG_LIMIT("thread_block_tile::match_any")))) unsigned int match_any(A&&...) const;
  template <class... A>
  __attribute__((error(TLEMU_CG_LIMIT("thread_block_tile::match_all")))) unsigned int match_all(A&&...) const;

  // A tile is a thread_group too (CUDA converts it where one is expected).
  operator thread_group() const { return thread_group_of(); }

 protected:
  thread_block_tile(unsigned meta_rank, unsigned meta_size) : meta_rank_(meta_rank), meta_size_(meta_size) {}
  unsigned meta_rank_, meta_size_;

 private:
  struct Group : thread_group {
    Group() : thread_group(Size) {}
  };
  thread_group thread_group_of() const { return Group(); }
};

// What tiled_partition<N>(parent) returns: it converts to thread_block_tile<N> (by slicing: the
// same members, the parent kept only in the type, as in CUDA).
template <unsigned int Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  thread_block_tile(unsigned meta_rank, unsigned meta_size) : thread_block_tile<Size, void>(meta_rank, meta_size) {}
};

template <unsigned int Size>
inline thread_block_tile<Size, thread_block> tiled_partition(const thread_block&) {
  return thread_block_tile<Size, thread_block>(emu_detail::block_rank() / Size,
                                               (emu_detail::block_size() + Size - 1u) / Size);
}
template <unsigned int Size, unsigned int ParentSize, class GrandParent>
inline thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>> tiled_partition(
    const thread_block_tile<ParentSize, GrandParent>&) {
  static_assert(Size <= ParentSize, "tiled_partition<N>(tile): N must not exceed the tile's size");
  return thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>>(
      (emu_detail::block_rank() & (ParentSize - 1u)) / Size, ParentSize / Size);
}

// tiled_partition(parent, n): a thread_group of n threads (n a power of two, at most 32).
inline thread_group tiled_partition(const thread_group& parent, unsigned tilesz, const char* file = __builtin_FILE(),
                                    int line = __builtin_LINE()) {
  if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1u)) != 0) emu_detail::bad_tile_size(tilesz, file, line);
  // A tile of a tile is no larger than its parent.
  return thread_group(parent.tile_ && parent.tile_ < tilesz ? parent.tile_ : tilesz);
}

// The calling thread alone, as a tile of one.
inline thread_block_tile<1, void> this_thread() {
  return thread_block_tile<1, thread_block>(emu_detail::block_rank(), emu_detail::block_size());
}

// cg::sync(g): g.sync(), at the caller's line.
template <class Group>
inline void sync(const Group& g, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  g.sync(file, line);
}

// ---- refused: declared, so that using one names it at the student's line ----
// The groups' types are complete (a variable of one compiles); what makes or uses one is refused.
#define TLEMU_CG_REFUSED_MEMBERS(what)                                                                          \
  template <class... A> __attribute__((error(TLEMU_CG_LIMIT(what)))) unsigned long long sync(A&&...) const;      \
  template <class... A> __attribute__((error(TLEMU_CG_LIMIT(what)))) unsigned long long thread_rank(A&&...) const; \
  template <class... A> __attribute__((error(TLEMU_CG_LIMIT(what)))) unsigned long long size(A&&...) const;      \
  template <class... A> __attribute__((error(TLEMU_CG_LIMIT(what)))) unsigned long long num_threads(A&&...) const;
class grid_group { public: TLEMU_CG_REFUSED_MEMBERS("grid_group (this_grid, grid sync)") };
class multi_grid_group { public: TLEMU_CG_REFUSED_MEMBERS("multi_grid_group (this_multi_grid)") };
class coalesced_group { public: TLEMU_CG_REFUSED_MEMBERS("coalesced_group (coalesced_threads)") };
class cluster_group { public: TLEMU_CG_REFUSED_MEMBERS("cluster_group (this_cluster, thread block clusters)") };
#undef TLEMU_CG_REFUSED_MEMBERS

#define TLEMU_CG_REFUSE(ret, name, what) \
  template <class R = int, class... A>   \
  __attribute__((error(TLEMU_CG_LIMIT(what)))) ret name(A&&...);
TLEMU_CG_REFUSE(grid_group, this_grid, "this_grid (grid_group, grid sync)")
TLEMU_CG_REFUSE(multi_grid_group, this_multi_grid, "this_multi_grid (multi_grid_group)")
TLEMU_CG_REFUSE(coalesced_group, coalesced_threads, "coalesced_threads (coalesced_group)")
TLEMU_CG_REFUSE(cluster_group, this_cluster, "this_cluster (thread block clusters)")
TLEMU_CG_REFUSE(coalesced_group, labeled_partition, "labeled_partition")
TLEMU_CG_REFUSE(coalesced_group, binary_partition, "binary_partition")
TLEMU_CG_REFUSE(R, memcpy_async, "memcpy_async")
TLEMU_CG_REFUSE(void, wait, "wait (memcpy_async)")
TLEMU_CG_REFUSE(void, wait_prior, "wait_prior (memcpy_async)")
TLEMU_CG_REFUSE(R, reduce, "reduce (of a group other than a tile of one warp or less)")
TLEMU_CG_REFUSE(R, reduce_update_async, "reduce_update_async")
TLEMU_CG_REFUSE(R, reduce_store_async, "reduce_store_async")
TLEMU_CG_REFUSE(R, inclusive_scan, "inclusive_scan")
TLEMU_CG_REFUSE(R, exclusive_scan, "exclusive_scan")
TLEMU_CG_REFUSE(R, invoke_one, "invoke_one")
TLEMU_CG_REFUSE(R, invoke_one_broadcast, "invoke_one_broadcast")
#undef TLEMU_CG_REFUSE
#undef TLEMU_CG_LIMIT
// cg::reduce over a tile of one warp or less (tiled_partition<N>): a butterfly of the tile's
// shfl_xor, so every thread of the tile receives the result, as CUDA's contract says (its order of
// operations is its own, unspecified, as here). More specialized than the refused reduce above,
// which is left to every other group.
namespace emu_detail {
template <class G> struct tile_size : std::integral_constant<unsigned int, 0> {};
template <unsigned int Size, class ParentT>
struct tile_size<thread_block_tile<Size, ParentT>> : std::integral_constant<unsigned int, Size> {};
}  // namespace emu_detail
template <class Tile, class T, class Op, unsigned int Size = emu_detail::tile_size<std::decay_t<Tile>>::value,
          class = std::enable_if_t<(Size > 0)>>
inline std::decay_t<T> reduce(Tile&& tile, T&& val, Op&& op, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  std::decay_t<T> acc = val;
  for (unsigned int mask = Size / 2; mask > 0; mask /= 2) acc = op(acc, tile.shfl_xor(acc, mask, file, line));
  return acc;
}
// The operators reduce and the scans take, so that a refused call is reported as the call itself.
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

}  // namespace cooperative_groups

#endif  // TILELAB_EMU_CG_H
