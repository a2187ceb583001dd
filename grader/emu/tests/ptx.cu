// The kit's PTX wrappers on the emulator (<tilelab/mma_ptx.cuh>: include/tilelab_emu_ptx.h,
// runtime/ptx.cpp), checked on a .cu file that goes through the same rewrite and build as a
// student's, in every build (kit.emu.wmma.<build>, beside tests/wmma.cu). mma_m16n8k8_tf32 and
// ldmatrix_x4 are checked against a lane-level model written here from the PTX ISA's tables ("Matrix
// Fragments for mma.m16n8k8", .tf32; ldmatrix's thread-to-row map), not from the emulator's layout
// header. Line numbers matter below: findings are checked against __LINE__ of their call.
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <tilelab/mma_ptx.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime.hpp"
#include "tests/emu_test_support.hpp"

namespace {

using emu_test::bits;
using emu_test::build;
using emu_test::findings_of;
using emu_test::from_bits;
using emu_test::random_floats;
template <class T>
using Dev = emu_test::Device<T>;

// What the tensor cores read of a float: its top 19 bits.
double tf32(float x) { return double(from_bits(bits(x) & 0xFFFFE000u)); }

// The PTX ISA's m16n8k8 .tf32 tables, g = lane / 4, t = lane % 4: A 16 x 8, B 8 x 8, C/D 16 x 8.
int a_row(int lane, int i) { return lane / 4 + 8 * (i % 2); }
int a_col(int lane, int i) { return lane % 4 + 4 * (i / 2); }
int b_row(int lane, int i) { return lane % 4 + 4 * i; }
int b_col(int lane, int) { return lane / 4; }
int c_row(int lane, int i) { return lane / 4 + 8 * (i / 2); }
int c_col(int lane, int i) { return 2 * (lane % 4) + i % 2; }

// One warp: its fragments given lane by lane (a: 32 x 4, b: 32 x 2, c: 32 x 4 values), D out lane by lane.
__global__ void mma_lanes(const float* a, const float* b, const float* c, float* d) {
    const int lane = threadIdx.x;
    uint32_t fa[4], fb[2];
    float acc[4];
    for (int i = 0; i < 4; ++i) fa[i] = __float_as_uint(a[lane * 4 + i]), acc[i] = c[lane * 4 + i];
    for (int i = 0; i < 2; ++i) fb[i] = __float_as_uint(b[lane * 2 + i]);
    mma_m16n8k8_tf32(acc, fa, fb);
    for (int i = 0; i < 4; ++i) d[lane * 4 + i] = acc[i];
}

// Accumulators followed into P (runtime/hooks_count.cpp, "Products that reach P"): two mma_syncs
// summed into acc, which is stored; `tokens` more on zero fragments whose results nothing stores;
// with `rewrite`, the kernel writes acc itself between the two (the first one's sum is not stored).
__global__ void mma_tokens(const float* a, const float* b, float* d, int tokens, bool rewrite) {
    const int lane = threadIdx.x;
    uint32_t fa[4], fb[2];
    const uint32_t za[4] = {0u, 0u, 0u, 0u}, zb[2] = {0u, 0u};
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}, dz[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < 4; ++i) fa[i] = __float_as_uint(a[lane * 4 + i]);
    for (int i = 0; i < 2; ++i) fb[i] = __float_as_uint(b[lane * 2 + i]);
    mma_m16n8k8_tf32(acc, fa, fb);
    if (rewrite)
        for (int i = 0; i < 4; ++i) acc[i] = a[lane * 4 + i];
    mma_m16n8k8_tf32(acc, fa, fb);
    for (int t = 0; t < tokens; ++t) mma_m16n8k8_tf32(dz, za, zb);
    for (int i = 0; i < 4; ++i) d[lane * 4 + i] = acc[i];
}

// mma_lanes with its b operand naming global memory (lane l's two words of b), not registers: on a
// GPU two 32-bit loads a lane; on the emulator a load no build would see, so refused.
const int kOperandLine = __LINE__ + 6;
__global__ void mma_b_in_global(const float* a, const float* b, float* d) {
    const int lane = threadIdx.x;
    uint32_t fa[4];
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < 4; ++i) fa[i] = __float_as_uint(a[lane * 4 + i]);
    mma_m16n8k8_tf32(acc, fa, *reinterpret_cast<const uint32_t(*)[2]>(&b[lane * 2]));
    for (int i = 0; i < 4; ++i) d[lane * 4 + i] = acc[i];
}

// A 16 x 8 tile of M (row-major, 8 floats a row) staged in shared memory with rows of `pitch`
// floats at column offset `shift`, then loaded by ldmatrix_x4 as the mma's a: out 32 x 4.
const int kLdmatrixLine = __LINE__ + 8;
__global__ void ldmatrix_tile(const float* M, uint32_t* out, int pitch, int shift, int row_offset) {
    __shared__ __align__(16) float s[16 * 12 + 8];
    const int lane = threadIdx.x;
    for (int e = lane; e < 16 * 8; e += 32) s[(e / 8) * pitch + shift + e % 8] = M[e];
    __syncthreads();
    const int q = lane / 8, row = lane % 8 + 8 * (q & 1) + row_offset, col = 4 * (q >> 1) + shift;
    uint32_t r[4];
    ldmatrix_x4(r, &s[row * pitch + col]);
    for (int i = 0; i < 4; ++i) out[lane * 4 + i] = r[i];
}

// ldmatrix_x4 alone, on a tile of rows `pitch` floats apart (the count build's test: values unused).
__global__ void ldmatrix_only(uint32_t* out, int pitch) {
    __shared__ __align__(16) float s[16 * 12];
    const int lane = threadIdx.x, q = lane / 8;
    uint32_t r[4];
    ldmatrix_x4(r, &s[(lane % 8 + 8 * (q & 1)) * pitch + 4 * (q >> 1)]);
    out[lane] = r[0] ^ r[1] ^ r[2] ^ r[3];
}

// ldmatrix_x4 given rows of global memory (M's), which it cannot read: reported, and read as zeros.
const int kGlobalRowLine = __LINE__ + 4;
__global__ void ldmatrix_global(const float* M, uint32_t* out) {
    const int lane = threadIdx.x;
    uint32_t r[4];
    ldmatrix_x4(r, &M[(lane % 16) * 8]);
    for (int i = 0; i < 4; ++i) out[lane * 4 + i] = r[i];
}

// 64 threads copy a 16 x 8 tile of M (rows of 8 floats) into shared memory with cp_async_16, rows
// at or past `rows` zero-filled; with `wait`, they wait and meet at a barrier before reading it
// back (each thread reads another warp's copies).
const int kReadLine = __LINE__ + 12;
__global__ void cp_async_tile(const float* M, float* out, int rows, bool wait, bool barrier) {
    __shared__ __align__(16) float s[16 * 8];
    const int t = threadIdx.x;          // 32 segments of 4 floats: threads 0..31 copy, all 64 read
    if (t < 32) {
        const int r = t / 2, c = (t % 2) * 4;
        const bool in = r < rows;
        cp_async_16(&s[r * 8 + c], in ? &M[r * 8 + c] : M, in);
    }
    cp_async_commit();
    if (wait) cp_async_wait<0>();
    if (barrier) __syncthreads();
    for (int e = t; e < 16 * 8; e += 64) out[e] = s[(e + 64) % 128];
}

// Warp 1 refills a tile that warp 0 reads in the same barrier interval (the emulator runs warp 0's
// reads first; the copies are never waited for, so only their start meets the reads).
const int kRefillLine = __LINE__ + 8;
__global__ void refill_while_read(const float* M, float* out) {
    __shared__ __align__(16) float s[128];
    for (int e = threadIdx.x; e < 128; e += 64) s[e] = 1.0f;
    __syncthreads();
    if (threadIdx.x < 32) {
        out[threadIdx.x] = s[threadIdx.x * 4];
    } else {
        cp_async_16(&s[(threadIdx.x - 32) * 4], &M[(threadIdx.x - 32) * 4], true);
        cp_async_commit();
    }
}

// Two groups in flight: cp_async_wait<1> lands only the older.
__global__ void two_groups(const float* M, float* out) {
    __shared__ __align__(16) float s[8];
    if (threadIdx.x == 0) {
        cp_async_16(&s[0], &M[0], true);
        cp_async_commit();
        cp_async_16(&s[4], &M[4], true);
        cp_async_commit();
        cp_async_wait<1>();
        out[0] = s[0];  // landed
        out[1] = s[4];  // in flight: undefined (here the NaN of a copy not landed)
        cp_async_wait<0>();
        out[2] = s[4];
    }
}

const int kMisalignedLine = __LINE__ + 3;
__global__ void cp_async_misaligned(const float* M, float* out, int which) {
    __shared__ __align__(16) float s[16];
    if (which == 0) cp_async_16(&s[1], M, true);    // a destination 4 bytes past a 16-byte boundary
    if (which == 1) cp_async_16(&s[0], out, true);  // any global buffer is a source
    if (which == 2) cp_async_16(out, M, true);      // a global destination
    cp_async_commit();
    cp_async_wait<0>();
    out[threadIdx.x] = s[0];
}

const int kOverrunLine = __LINE__ + 3;
__global__ void cp_async_past_end(const float* M, float* out) {
    extern __shared__ __align__(16) float dyn[];
    cp_async_16(&dyn[16], M, true);  // the launch asked for 16 floats
    cp_async_commit();
    cp_async_wait<0>();
    out[0] = dyn[0];
}

TEST_CASE("ptx: mma_m16n8k8_tf32 computes D = A B + C by the PTX fragment tables, with TF32 inputs") {
    const auto A = random_floats(16 * 8, 1), B = random_floats(8 * 8, 2), C = random_floats(16 * 8, 3);
    std::vector<float> a(32 * 4), b(32 * 2), c(32 * 4);
    for (int l = 0; l < 32; ++l) {
        for (int i = 0; i < 4; ++i) a[l * 4 + i] = A[a_row(l, i) * 8 + a_col(l, i)], c[l * 4 + i] = C[c_row(l, i) * 8 + c_col(l, i)];
        for (int i = 0; i < 2; ++i) b[l * 2 + i] = B[b_row(l, i) * 8 + b_col(l, i)];
    }
    Dev<float> da(a), db(b), dc(c), dd(32 * 4);
    tlemu::take_findings();
    mma_lanes<<<1, 32>>>(da.p, db.p, dc.p, dd.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto d = dd.get();
    double worst = 0;
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < 4; ++i) {
            const int r = c_row(l, i), col = c_col(l, i);
            double want = C[r * 8 + col];
            for (int k = 0; k < 8; ++k) want += tf32(A[r * 8 + k]) * tf32(B[k * 8 + col]);
            worst = std::max(worst, std::fabs(d[l * 4 + i] - want));
        }
    CHECK(worst < 1e-5);  // float32 sums of exact products
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("ptx: mma_m16n8k8_tf32 truncates its operands to TF32; to_tf32 rounds them first") {
    // A = 1 + 2^-11 + 2^-12 everywhere (past TF32's 10 mantissa bits), B = the identity's first column.
    const float x = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12);
    std::vector<float> a(32 * 4, x), b(32 * 2), c(32 * 4, 0.0f);
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < 2; ++i) b[l * 2 + i] = b_row(l, i) == 0 && b_col(l, i) == 0 ? 1.0f : 0.0f;
    Dev<float> da(a), db(b), dc(c), dd(32 * 4);
    mma_lanes<<<1, 32>>>(da.p, db.p, dc.p, dd.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto d = dd.get();
    CHECK(d[0] == 1.0f);  // lane 0's d[0] is D(0, 0) = A(0, 0): truncated
    CHECK(from_bits(to_tf32(x)) == 1.0f + std::ldexp(1.0f, -10));  // rounded to nearest
    CHECK(to_tf32(1.0f + std::ldexp(1.0f, -12)) == bits(1.0f));
}

TEST_CASE("ptx: ldmatrix_x4 gives each lane the PTX ldmatrix words, which are mma's fragment a") {
    const auto M = random_floats(16 * 8, 4);
    Dev<float> dm(M);
    Dev<uint32_t> out(32 * 4);
    tlemu::take_findings();
    for (int pitch : {8, 12}) {
        ldmatrix_tile<<<1, 32>>>(dm.p, out.p, pitch, 0, 0);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const auto r = out.get();
        int wrong = 0;
        for (int l = 0; l < 32; ++l)
            for (int q = 0; q < 4; ++q) {
                // ldmatrix: lane l receives word l % 4 of row l / 4 of matrix q, whose rows lanes 8q.. gave.
                const int from = 8 * q + l / 4, row = from % 8 + 8 * (q & 1), col = 4 * (q >> 1) + l % 4;
                wrong += r[l * 4 + q] != bits(M[row * 8 + col]);
                wrong += r[l * 4 + q] != bits(M[a_row(l, q) * 8 + a_col(l, q)]);  // and that is a[q]
            }
        CHECK(wrong == 0);
    }
    CHECK(tlemu::take_findings().empty());
    ldmatrix_tile<<<1, 32>>>(dm.p, out.p, 12, 1, 0);  // rows 4 bytes past a 16-byte boundary
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto f = findings_of("ptx-operand");
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == kLdmatrixLine);
    CHECK(f[0].message.find("16-byte boundary") != std::string::npos);
}

TEST_CASE("ptx: ldmatrix_x4 reads shared memory only: rows elsewhere are reported and read as zeros") {
    Dev<float> dm(random_floats(16 * 8, 10));
    Dev<uint32_t> out(32 * 4);
    tlemu::take_findings();
    ldmatrix_global<<<1, 32>>>(dm.p, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto f = findings_of("ptx-operand");
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == kGlobalRowLine);
    CHECK(f[0].message.find("not shared memory") != std::string::npos);
    int nonzero = 0;
    for (uint32_t v : out.get()) nonzero += v != 0;
    CHECK(nonzero == 0);
}

TEST_CASE("ptx: cp_async_16 lands at the wait, zero-fills outside, and waits for the older groups only") {
    const auto M = random_floats(16 * 8, 5);
    Dev<float> dm(M), out(16 * 8);
    tlemu::take_findings();
    cp_async_tile<<<1, 64>>>(dm.p, out.p, 11, true, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto o = out.get();
    int wrong = 0;
    for (int e = 0; e < 128; ++e) {
        const int from = (e + 64) % 128;
        wrong += o[e] != (from / 8 < 11 ? M[from] : 0.0f);
    }
    CHECK(wrong == 0);
    CHECK(tlemu::take_findings().empty());
    two_groups<<<1, 32>>>(dm.p, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    o = out.get();
    CHECK(o[0] == M[0]);
    if (build() != "emu-count") CHECK(std::isnan(o[1]));  // the count build writes nothing the GPU does not
    CHECK(o[2] == M[4]);
}

TEST_CASE("ptx: cp_async_16's operands must be 16-byte aligned, the destination shared memory") {
    Dev<float> dm(random_floats(64, 6)), out(64);
    for (int which : {0, 2}) {
        tlemu::take_findings();
        cp_async_misaligned<<<1, 32>>>(dm.p, out.p, which);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const auto f = findings_of("ptx-operand");
        REQUIRE(f.size() == 1);
        CHECK(f[0].line == kMisalignedLine + which);
        CHECK(f[0].message.find(which == 0 ? "16-byte boundary" : "not shared memory") != std::string::npos);
    }
    tlemu::take_findings();
    cp_async_misaligned<<<1, 32>>>(dm.p, out.p, 1);  // any global source is fine
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(findings_of("ptx-operand").empty());
}

TEST_CASE("ptx: the race build sees a copy land at the wait: reads before it, or across warps without a barrier") {
    if (build() != "emu-race") return;
    Dev<float> dm(random_floats(16 * 8, 7)), out(16 * 8);
    tlemu::take_findings();
    cp_async_tile<<<1, 64>>>(dm.p, out.p, 16, true, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(tlemu::take_findings().empty());
    // No wait: the barrier orders nothing that has landed; the values read are the copies' NaN, and reach out.
    cp_async_tile<<<1, 64>>>(dm.p, out.p, 16, false, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto f = findings_of("uninitialized-shared");
    REQUIRE(!f.empty());
    CHECK(f[0].line == kReadLine);
    CHECK(!f[0].warning);
    CHECK(f[0].message.find("cp_async_16") != std::string::npos);
    // A wait and no barrier: each thread's own copies have landed, another warp's are read unordered.
    cp_async_tile<<<1, 64>>>(dm.p, out.p, 16, true, false);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    f = findings_of("race");
    REQUIRE(!f.empty());
    CHECK(f[0].line == kReadLine);
}

TEST_CASE("ptx: the race build sees a copy's start as a write: a tile refilled while another warp reads it") {
    // (A read after the copy has landed, in the same interval, is a read-after-write race at the
    // read: the race test above.)
    if (build() != "emu-race") return;
    Dev<float> dm(random_floats(128, 11)), out(64);
    tlemu::take_findings();
    refill_while_read<<<1, 64>>>(dm.p, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto f = findings_of("race");
    REQUIRE(!f.empty());
    CHECK(f[0].line == kRefillLine);
    CHECK(f[0].message.find("write-after-read") != std::string::npos);
}

TEST_CASE("ptx: the asan build finds a cp_async_16 past the end of shared memory, at its line") {
    if (build() != "emu-asan") return;
    const std::string found = emu_test::fatal_finding([] {
        Dev<float> dm(random_floats(64, 8)), out(4);
        cp_async_past_end<<<1, 32, 16 * sizeof(float)>>>(dm.p, out.p);
        cudaDeviceSynchronize();
    });
    CHECK(found == "out-of-bounds-shared:" + std::to_string(kOverrunLine));
}

TEST_CASE("ptx: the count build counts cp.async's 16-byte loads and stores, ldmatrix's phases, mma's products") {
    if (build() != "emu-count") return;
    Dev<float> dm(random_floats(16 * 8, 9)), out(16 * 8);
    Dev<uint32_t> lo(32 * 4);
    tlemu::TrafficCounts c;
    tlemu::take_counts(c);  // the setup's
    cp_async_tile<<<1, 64>>>(dm.p, out.p, 16, true, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(tlemu::take_counts(c));
    CHECK(c.global_loads == 1);  // warp 0's 32 lanes x 16 bytes: one request
    CHECK(c.global_load_bytes == 16 * 8 * 4);
    CHECK(c.shared_stores == 1);  // the landing, one warp-level 16-byte store
    CHECK(c.tensor_fmas == 0);
    // ldmatrix: its 4 phases, each 8 rows of 16 bytes: rows 48 bytes apart (pitch 12) fall in 32
    // distinct banks, one wavefront a phase; 32 bytes apart (pitch 8), rows r and r + 4 share banks: two.
    for (int pitch : {12, 8}) {
        ldmatrix_only<<<1, 32>>>(lo.p, pitch);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(tlemu::take_counts(c));
        CHECK(c.shared_loads == 4);
        CHECK(c.shared_wavefronts == (pitch == 12 ? 4 : 8));
    }
    Dev<float> a(32 * 4), b(32 * 2), cc(32 * 4), d(32 * 4);
    mma_lanes<<<1, 32>>>(a.p, b.p, cc.p, d.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(tlemu::take_counts(c));
    CHECK(c.tensor_fmas == 16 * 8 * 8);
    CHECK(c.tensor_insts == 1);
}

// P overwritten by a later launch of the same call (attack3-token-kernel-overwritten's first kernel).
__global__ void overwrite(float* p, float v) {
    for (int i = 0; i < 4; ++i) p[threadIdx.x * 4 + i] = v + float(threadIdx.x * 4 + i);
}

TEST_CASE("ptx: the count build tells the products stored into P from token ones (tensor_fmas_unstored)") {
    if (build() != "emu-count") return;
    Dev<float> a(random_floats(32 * 4, 14)), b(random_floats(32 * 2, 15)), d(32 * 4);
    tlemu::TrafficCounts c;
    tlemu::take_counts(c);  // the setup's
    tlemu::set_product(d.p, 32 * 4 * sizeof(float));
    struct Case {
        int tokens;
        bool rewrite;
        double unstored;
    };
    for (const Case k : {Case{0, false, 0.0}, Case{3, false, 3 * 1024.0}, Case{0, true, 1024.0}}) {
        CAPTURE(k.tokens);
        CAPTURE(k.rewrite);
        mma_tokens<<<1, 32>>>(a.p, b.p, d.p, k.tokens, k.rewrite);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(tlemu::take_counts(c));
        CHECK(c.tensor_fmas == (2 + k.tokens) * 1024.0);
        CHECK(c.tensor_fmas_unstored == k.unstored);
    }
    // Products stored and then overwritten by a later launch of the call are not the product's: P is
    // judged as the call leaves it (take_counts), not at each block's end.
    mma_tokens<<<1, 32>>>(a.p, b.p, d.p, 0, false);
    overwrite<<<1, 32>>>(d.p, 1000.0f);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(tlemu::take_counts(c));
    CHECK(c.tensor_fmas == 2 * 1024.0);
    CHECK(c.tensor_fmas_unstored == 2 * 1024.0);
    tlemu::set_product(nullptr, 0);
}

TEST_CASE("ptx: mma_m16n8k8_tf32's operands must be the lane's registers: one naming global memory is refused") {
    // (Not the asan build: its locals may lie on AddressSanitizer's fake stack; it checks the read.)
    if (build() == "emu-asan") return;
    Dev<float> a(random_floats(32 * 4, 12)), b(random_floats(32 * 2, 13)), d(32 * 4);
    tlemu::take_findings();
    mma_b_in_global<<<1, 32>>>(a.p, b.p, d.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto f = findings_of("ptx-operand");
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == kOperandLine);
    CHECK(f[0].message.find("operand b") != std::string::npos);
    CHECK(f[0].message.find("not the lane's own registers") != std::string::npos);
    // Registers, as every kernel above gives them: nothing to report.
    Dev<float> c(32 * 4);
    mma_lanes<<<1, 32>>>(a.p, b.p, c.p, d.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(findings_of("ptx-operand").empty());
}

}  // namespace
