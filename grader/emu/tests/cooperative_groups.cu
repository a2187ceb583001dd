// The emulator's cooperative groups (include/tilelab_emu_cg.h; issue #40, item 4), checked on a .cu
// file that goes through the same rewrite and build as a student's (grader/cmake/TilelabEmu.cmake):
// the block's indices and barriers (block.sync() and cg::sync(block) are __syncthreads() at the
// caller's line: the barrier findings name it), and tiles of one warp or less (ranks, meta groups,
// partial tiles at the block's end, shuffles, votes). What is refused cannot compile, so it is not
// here; docs/emulator.md lists it. Line numbers matter below: findings are checked against __LINE__.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <vector>

#include "runtime.hpp"

namespace cg = cooperative_groups;

namespace {

template <class T>
struct Buffer {
    T* p = nullptr;
    size_t n;
    explicit Buffer(size_t count) : n(count) {
        REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
        REQUIRE(cudaMemset(p, 0, n * sizeof(T)) == cudaSuccess);
    }
    ~Buffer() { cudaFree(p); }
    std::vector<T> get() const {
        std::vector<T> h(n);
        REQUIRE(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
        return h;
    }
};

// Per thread: rank, size, num_threads, group_index, thread_index, group_dim, dim_threads (as ints).
__global__ void block_api(int* out) {
    cg::thread_block block = cg::this_thread_block();
    const unsigned g = blockIdx.x * block.size() + block.thread_rank();
    int* o = out + g * 9;
    o[0] = int(block.thread_rank());
    o[1] = int(block.size());
    o[2] = int(block.num_threads());
    o[3] = int(block.group_index().x);
    o[4] = int(block.thread_index().x + 10 * block.thread_index().y + 100 * block.thread_index().z);
    o[5] = int(block.group_dim().x * block.group_dim().y * block.group_dim().z);
    o[6] = int(block.dim_threads().y);
    const cg::thread_group& as_group = block;  // a thread_block is a thread_group
    o[7] = int(as_group.thread_rank());
    o[8] = int(as_group.size());
}

// Reverses each block's values through shared memory with the two barrier spellings.
__global__ void reverse(const int* in, int* out) {
    __shared__ int t[64];
    cg::thread_block block = cg::this_thread_block();
    const unsigned r = block.thread_rank(), n = block.size();
    t[r] = in[blockIdx.x * n + r];
    block.sync();
    const int v = t[n - 1 - r];
    cg::sync(block);
    t[r] = v;
    block.sync();
    out[blockIdx.x * n + r] = t[r];
}

const int kBlockSyncLine = __LINE__ + 4;
__global__ void diverge(int* out) {
    cg::thread_block block = cg::this_thread_block();
    if (threadIdx.x % 2 == 0) {
        block.sync();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1;
}

const int kSkipLine = __LINE__ + 5;
__global__ void skip(int* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    if (threadIdx.x >= n) return;
    out[threadIdx.x] = 0;
    cg::sync(block);
}

// Tiles of 32, 16 and 4 (of the 16): ranks and meta groups, a reduction, a broadcast, votes.
__global__ void tiles(int* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    auto half = cg::tiled_partition<16>(block);
    auto quad = cg::tiled_partition<4>(half);
    int* o = out + block.thread_rank() * 12;
    o[0] = int(warp.thread_rank());
    o[1] = int(warp.meta_group_rank());
    o[2] = int(warp.meta_group_size());
    o[3] = int(half.thread_rank() + 100 * half.meta_group_rank());
    o[4] = int(quad.thread_rank() + 100 * quad.meta_group_rank() + 10000 * quad.meta_group_size());
    int sum = int(block.thread_rank());
    for (int d = warp.size() / 2; d > 0; d /= 2) sum += warp.shfl_down(sum, d);
    o[5] = warp.shfl(sum, 0);  // lane 0's total, to every lane
    int x = int(half.thread_rank());
    for (int m = 1; m < 16; m *= 2) x += half.shfl_xor(x, m);
    o[6] = x;
    o[7] = int(half.ballot(half.thread_rank() % 3 == 0));
    o[8] = warp.any(block.thread_rank() == 40) + 10 * warp.all(block.thread_rank() < 64);
    o[9] = quad.shfl_up(int(quad.thread_rank()), 1);
    warp.sync();
    cg::sync(half);
    o[10] = int(cg::this_thread().thread_rank() + 10 * cg::this_thread().size());
    o[11] = int(warp.num_threads() + half.size());
}

struct Wide {
    double a, b;
};
__global__ void wide_shuffle(double* out) {
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    Wide w{double(warp.thread_rank()), -double(warp.thread_rank())};
    Wide got = warp.shfl(w, 31 - int(warp.thread_rank()));
    out[2 * threadIdx.x] = got.a;
    out[2 * threadIdx.x + 1] = got.b;
}

// cg::reduce (<cooperative_groups/reduce.h>) over tiles of 32 and 8: every thread gets the result.
__global__ void tile_reduce(int* out) {
    cg::thread_block block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(warp);
    const int r = int(block.thread_rank());
    out[3 * r] = cg::reduce(warp, r, cg::plus<int>());
    out[3 * r + 1] = cg::reduce(eighth, r, cg::greater<int>());
    out[3 * r + 2] = cg::reduce(eighth, r, cg::less<int>());
}

// tiled_partition(block, n): thread_group tiles, the last one cut at the block's end.
__global__ void dynamic_tiles(int* out, unsigned n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, n);
    tile.sync();
    cg::sync(tile);
    out[2 * block.thread_rank()] = int(tile.thread_rank());
    out[2 * block.thread_rank() + 1] = int(tile.size());
}

TEST_CASE("cg: the block's ranks, sizes and indices are CUDA's") {
    Buffer<int> out(2 * 16 * 9);
    block_api<<<2, dim3(4, 2, 2)>>>(out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto h = out.get();
    for (int b = 0; b < 2; ++b)
        for (int z = 0; z < 2; ++z)
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 4; ++x) {
                    const int r = x + 4 * (y + 2 * z);
                    const int* o = &h[(b * 16 + r) * 9];
                    CHECK(o[0] == r);
                    CHECK(o[1] == 16);
                    CHECK(o[2] == 16);
                    CHECK(o[3] == b);
                    CHECK(o[4] == x + 10 * y + 100 * z);
                    CHECK(o[5] == 16);
                    CHECK(o[6] == 2);
                    CHECK(o[7] == r);
                    CHECK(o[8] == 16);
                }
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("cg: block.sync() and cg::sync(block) are barriers") {
    std::vector<int> in(3 * 64);
    for (size_t i = 0; i < in.size(); ++i) in[i] = int(i * 7 + 1);
    Buffer<int> d_in(in.size()), d_out(in.size());
    REQUIRE(cudaMemcpy(d_in.p, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
    reverse<<<3, 64>>>(d_in.p, d_out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto h = d_out.get();
    for (int b = 0; b < 3; ++b)
        for (int r = 0; r < 64; ++r) CHECK(h[b * 64 + r] == in[b * 64 + 63 - r]);
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("cg: a block.sync() is reported as a __syncthreads() is, at its line") {
    Buffer<int> d(8);
    diverge<<<1, 8>>>(d.p);
    auto f = tlemu::take_findings();
    REQUIRE(f.size() == 1);
    CHECK(f[0].kind == "barrier-divergence");
    CHECK(f[0].message.find("line " + std::to_string(kBlockSyncLine)) != std::string::npos);
    CHECK(f[0].message.find("line " + std::to_string(kBlockSyncLine + 2)) != std::string::npos);

    skip<<<2, 8>>>(d.p, 5);
    f = tlemu::take_findings();
    REQUIRE(f.size() == 1);
    CHECK(f[0].kind == "barrier-skipped");
    CHECK(f[0].line == kSkipLine);
}

TEST_CASE("cg: tiles of 32, 16 and 4 threads: ranks, meta groups, shuffles, votes") {
    const int n = 64;
    Buffer<int> out(n * 12);
    tiles<<<1, n>>>(out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(tlemu::take_findings().empty());
    const auto h = out.get();
    for (int r = 0; r < n; ++r) {
        CAPTURE(r);
        const int* o = &h[r * 12];
        const int w = r / 32, hf = r / 16;
        CHECK(o[0] == r % 32);
        CHECK(o[1] == w);
        CHECK(o[2] == 2);
        CHECK(o[3] == r % 16 + 100 * hf);
        CHECK(o[4] == r % 4 + 100 * (r % 16 / 4) + 10000 * 4);
        CHECK(o[5] == 32 * w * 32 + 31 * 32 / 2);  // the sum of the warp's ranks in the block
        CHECK(o[6] == 15 * 16 / 2);
        CHECK(o[7] == 0x9249);                     // tile ranks 0, 3, 6, 9, 12, 15
        CHECK(o[8] == (w == 1 ? 1 : 0) + 10);
        CHECK(o[9] == (r % 4 == 0 ? 0 : r % 4 - 1));  // rank 0 keeps its own value
        CHECK(o[10] == 10);
        CHECK(o[11] == 48);
    }
}

TEST_CASE("cg: a tile shuffles values wider than 8 bytes") {
    Buffer<double> out(64);
    wide_shuffle<<<1, 32>>>(out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto h = out.get();
    for (int r = 0; r < 32; ++r) {
        CHECK(h[2 * r] == double(31 - r));
        CHECK(h[2 * r + 1] == -double(31 - r));
    }
}

TEST_CASE("cg: reduce over a tile gives every thread of the tile the tile's result") {
    Buffer<int> out(3 * 64);
    tile_reduce<<<1, 64>>>(out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(tlemu::take_findings().empty());
    const auto h = out.get();
    for (int r = 0; r < 64; ++r) {
        CAPTURE(r);
        CHECK(h[3 * r] == 32 * (r / 32) * 32 + 31 * 32 / 2);
        CHECK(h[3 * r + 1] == r / 8 * 8 + 7);
        CHECK(h[3 * r + 2] == r / 8 * 8);
    }
}

TEST_CASE("cg: tiled_partition(block, n) cuts the last tile at the block's end") {
    Buffer<int> out(2 * 40);
    dynamic_tiles<<<1, 40>>>(out.p, 32);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(tlemu::take_findings().empty());
    auto h = out.get();
    for (int r = 0; r < 40; ++r) {
        CHECK(h[2 * r] == r % 32);
        CHECK(h[2 * r + 1] == (r < 32 ? 32 : 8));
    }
    dynamic_tiles<<<1, 40>>>(out.p, 8);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    h = out.get();
    for (int r = 0; r < 40; ++r) {
        CHECK(h[2 * r] == r % 8);
        CHECK(h[2 * r + 1] == 8);
    }
}

}  // namespace
