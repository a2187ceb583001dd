// The emulator's tensor cores (nvcuda::wmma: include/tilelab_emu_wmma.h, runtime/wmma.cpp), checked on a
// .cu file that goes through the same rewrite and build as a student's, in every build: plain, asan,
// race and count (grader/cmake/TilelabEmu.cmake, kit.emu.wmma.<build>). Cases that only one build can
// see (a race, an out-of-bounds read, the traffic) ask tlemu::backend_name() which build runs them.
// Line numbers matter below: findings are checked against __LINE__ of their call.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime.hpp"
#include "tests/emu_test_support.hpp"

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L);  // wmma_matmul.cu

using namespace nvcuda;

namespace {

using emu_test::Device;
using emu_test::bits;
using emu_test::build;
using emu_test::findings_of;
using emu_test::from_bits;
using emu_test::random_floats;

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using FragAc = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major>;
using FragBc = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major>;
using Acc = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;

// CUDA's counts for sm_80 and later (crt/mma.h).
static_assert(FragA::num_elements == 4 && FragB::num_elements == 4 && Acc::num_elements == 8, "tf32 m16n16k8");
static_assert(wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>::num_elements == 16, "half");
static_assert(wmma::fragment<wmma::matrix_b, 32, 8, 16, __half, wmma::col_major>::num_elements == 16, "half");
static_assert(wmma::fragment<wmma::matrix_a, 8, 32, 16, __half, wmma::row_major>::num_elements == 16, "half");
static_assert(wmma::fragment<wmma::accumulator, 8, 32, 16, __half>::num_elements == 8, "half accumulator");
static_assert(wmma::fragment<wmma::accumulator, 32, 8, 16, float>::num_elements == 8, "float accumulator");
static_assert(std::is_same<FragA::storage_element_type, float>::value, "tf32 is stored as float");

// One warp: d = a * b + c, A 16x8 and B 8x16 in the layouts of the fragments' types (lda, ldb), C and
// D 16x16 row-major; `convert`: the inputs through __float_to_tf32 first.
template <class FA, class FB>
__global__ void mma_16x16x8(const float* A, const float* B, const float* C, float* D, int lda, int ldb, bool convert) {
    FA a;
    FB b;
    Acc c;
    wmma::load_matrix_sync(a, A, lda);
    wmma::load_matrix_sync(b, B, ldb);
    wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
    if (convert) {
        for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(a.x[i]);
        for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(b.x[i]);
    }
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

// Every lane's x[] after a load, lane by lane (out[lane * num_elements + i]).
template <class F>
__global__ void dump_fragment(const typename F::storage_element_type* src, unsigned ldm, float* out) {
    F f;
    wmma::load_matrix_sync(f, src, ldm);
    for (int i = 0; i < f.num_elements; ++i) out[threadIdx.x * f.num_elements + i] = float(f.x[i]);
}

// An accumulator loaded in one layout and stored in another.
__global__ void acc_round_trip(const float* src, float* dst, bool col_in, bool col_out) {
    Acc c;
    wmma::load_matrix_sync(c, src, 16, col_in ? wmma::mem_col_major : wmma::mem_row_major);
    wmma::store_matrix_sync(dst, c, 16, col_out ? wmma::mem_col_major : wmma::mem_row_major);
}

// Half inputs: d (TD accumulator) = a * b + 0 for shape m x n x k, all row-major and packed.
template <int m, int n, int k, class TD>
__global__ void mma_half(const __half* A, const __half* B, TD* D) {
    wmma::fragment<wmma::matrix_a, m, n, k, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, m, n, k, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, m, n, k, TD> c;
    wmma::fill_fragment(c, 0.0f);
    wmma::load_matrix_sync(a, A, k);
    wmma::load_matrix_sync(b, B, k);  // B stored column by column: column j at B + j * k
    for (int i = 0; i < a.num_elements; ++i) a.x[i] = __hmul(a.x[i], __float2half(1.0f));  // elementwise code
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, n, wmma::mem_row_major);
}

const int kDivergentLoad = __LINE__ + 5;
__global__ void divergent_load(const float* A, float* out) {
    FragA a;
    wmma::fill_fragment(a, 0.0f);
    if (threadIdx.x < 16) {
        wmma::load_matrix_sync(a, A, 8);
    }
    out[threadIdx.x] = a.x[0];
}

const int kReturnedLoad = __LINE__ + 5;
__global__ void early_return_load(const float* A, float* out) {
    FragA a;
    if (threadIdx.x >= 16) return;
    wmma::fill_fragment(a, 0.0f);
    wmma::load_matrix_sync(a, A, 8);
    out[threadIdx.x] = a.x[0];
}

const int kArgsLoad = __LINE__ + 3;
__global__ void load_with(const float* A, unsigned ldm, float* out) {
    FragA a;
    wmma::load_matrix_sync(a, A, ldm);
    out[threadIdx.x] = a.x[0];
}

const int kNonUniformLoad = __LINE__ + 3;
__global__ void nonuniform_load(const float* A, float* out) {
    FragA a;
    wmma::load_matrix_sync(a, A + (threadIdx.x / 16) * 8, 8);  // lanes 16-31 one 32-byte step further
    out[threadIdx.x] = a.x[0];
}

// The tile is written by the warp's lanes, then read by load_matrix_sync with (or without) the barrier.
const int kRacyLoad = __LINE__ + 8;
__global__ void stage_then_load(const float* A, float* out, bool barrier) {
    __shared__ __align__(32) float tile[16 * 8];
    for (int i = threadIdx.x; i < 16 * 8; i += 32) tile[i] = A[i];
    if (barrier) __syncthreads();
    FragA a;
    Acc c;
    wmma::fill_fragment(c, 0.0f);
    wmma::load_matrix_sync(a, tile, 8);
    FragB b;
    wmma::fill_fragment(b, 1.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}

// tf32 as the tensor cores read it: the top 19 bits.
float truncated(float v) { return std::isnan(v) ? v : from_bits(bits(v) & 0xFFFFE000u); }

// The documented numerics on the host: products exact, float sums in k order from c.
std::vector<float> emulated(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
                            bool convert) {
    std::vector<float> D(256);
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            float acc = C[i * 16 + j];
            for (int k = 0; k < 8; ++k) {
                const float a = convert ? wmma::__float_to_tf32(A[i * 8 + k]) : truncated(A[i * 8 + k]);
                const float b = convert ? wmma::__float_to_tf32(B[k * 16 + j]) : truncated(B[k * 16 + j]);
                acc = acc + a * b;
            }
            D[i * 16 + j] = acc;
        }
    return D;
}

}  // namespace

TEST_CASE("wmma: a 16x16x8 tf32 product matches a float64 reference within tf32 error, in both layouts") {
    const auto A = random_floats(16 * 8, 1), B = random_floats(8 * 16, 2), C = random_floats(256, 3);
    std::vector<float> At(8 * 16), Bt(16 * 8);  // column-major copies
    for (int i = 0; i < 16; ++i)
        for (int k = 0; k < 8; ++k) At[k * 16 + i] = A[i * 8 + k], Bt[i * 8 + k] = B[k * 16 + i];
    Device<float> a(A), b(B), c(C), at(At), bt(Bt), d(256);
    for (bool convert : {true, false}) {
        mma_16x16x8<FragA, FragB><<<1, 32>>>(a.p, b.p, c.p, d.p, 8, 16, convert);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const auto D = d.get();
        const auto E = emulated(A, B, C, convert);
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j) {
                double ref = C[i * 16 + j], mag = std::fabs(C[i * 16 + j]);
                for (int k = 0; k < 8; ++k) {
                    ref += double(A[i * 8 + k]) * B[k * 16 + j];
                    mag += std::fabs(double(A[i * 8 + k]) * B[k * 16 + j]);
                }
                CHECK(std::fabs(D[i * 16 + j] - ref) <= mag * (convert ? 0x1p-10 : 0x1p-9) + 1e-6);
                CHECK(bits(D[i * 16 + j]) == bits(E[i * 16 + j]));  // the documented numerics, bit for bit
            }
        mma_16x16x8<FragAc, FragBc><<<1, 32>>>(at.p, bt.p, c.p, d.p, 16, 8, convert);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHECK(d.get() == D);
    }
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("wmma: the ownership of x[] is the documented one, and a load then a store gives the matrix back") {
    std::vector<float> M(32 * 32);
    for (size_t i = 0; i < M.size(); ++i) M[i] = float(i);
    Device<float> m(M), out(32 * 16), back(256);
    // PTX's mma.m16n8k8 tf32 fragments (tilelab_emu_wmma_layout.h): lane 5 is g = 1, t = 1.
    dump_fragment<FragA><<<1, 32>>>(m.p, 8, out.p);  // A 16x8 at row length 8
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto x = out.get();
    CHECK(x[5 * 4 + 0] == M[1 * 8 + 1]);
    CHECK(x[5 * 4 + 1] == M[9 * 8 + 1]);
    CHECK(x[5 * 4 + 2] == M[1 * 8 + 5]);
    CHECK(x[5 * 4 + 3] == M[9 * 8 + 5]);
    dump_fragment<FragB><<<1, 32>>>(m.p, 16, out.p);  // B 8x16 at row length 16
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    x = out.get();
    CHECK(x[5 * 4 + 0] == M[1 * 16 + 1]);
    CHECK(x[5 * 4 + 1] == M[5 * 16 + 1]);
    CHECK(x[5 * 4 + 2] == M[1 * 16 + 9]);
    CHECK(x[5 * 4 + 3] == M[5 * 16 + 9]);
    // Every element of each matrix is held by exactly one (lane, i) among the distinct ones, and the
    // copies of the half fragments repeat them.
    auto covers = [&](auto tag, unsigned ldm, int rows, int cols, int distinct) {
        using F = decltype(tag);
        Device<float> o(32 * F::num_elements);
        std::vector<__half> H(M.size());
        for (size_t i = 0; i < M.size(); ++i) H[i] = __half(float(i % 2048));
        Device<__half> h(H);
        if constexpr (std::is_same<typename F::storage_element_type, __half>::value)
            dump_fragment<F><<<1, 32>>>(h.p, ldm, o.p);
        else
            dump_fragment<F><<<1, 32>>>(m.p, ldm, o.p);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const auto v = o.get();
        std::vector<int> seen(size_t(rows * cols), 0);
        for (int l = 0; l < 32; ++l)
            for (int i = 0; i < F::num_elements; ++i) {
                const float e = v[size_t(l * F::num_elements + i)];
                if (i >= distinct) {
                    CHECK(e == v[size_t(l * F::num_elements + i % distinct)]);
                    continue;
                }
                const int at = int(e), r = at / int(ldm), c = at % int(ldm);
                REQUIRE(r < rows);
                REQUIRE(c < cols);
                ++seen[size_t(r * cols + c)];
            }
        for (int s : seen) CHECK(s == 1);
    };
    covers(FragA{}, 8, 16, 8, 4);
    covers(FragB{}, 16, 8, 16, 4);
    covers(wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major>{}, 16, 16, 16, 8);
    covers(wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major>{}, 16, 16, 16, 8);
    covers(wmma::fragment<wmma::matrix_a, 32, 8, 16, __half, wmma::row_major>{}, 16, 32, 16, 16);
    covers(wmma::fragment<wmma::matrix_b, 32, 8, 16, __half, wmma::row_major>{}, 8, 16, 8, 4);
    covers(wmma::fragment<wmma::matrix_a, 8, 32, 16, __half, wmma::row_major>{}, 16, 8, 16, 4);
    covers(wmma::fragment<wmma::matrix_b, 8, 32, 16, __half, wmma::row_major>{}, 32, 16, 32, 16);
    // Accumulators: load and store in every pair of layouts.
    std::vector<float> S(M.begin(), M.begin() + 256);
    Device<float> s(S);
    for (bool col_in : {false, true})
        for (bool col_out : {false, true}) {
            acc_round_trip<<<1, 32>>>(s.p, back.p, col_in, col_out);
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            const auto b = back.get();
            for (int i = 0; i < 16; ++i)
                for (int j = 0; j < 16; ++j) CHECK(b[i * 16 + j] == (col_in == col_out ? S[i * 16 + j] : S[j * 16 + i]));
        }
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("wmma: __float_to_tf32 rounds to nearest, ties away from zero, as cvt.rna.tf32.f32") {
    const auto cvt = [](uint32_t u) { return bits(wmma::__float_to_tf32(from_bits(u))); };
    CHECK(cvt(0x3F800000u) == 0x3F800000u);  // 1
    CHECK(cvt(0x3F801000u) == 0x3F802000u);  // 1 + 2^-11: a tie, away from zero
    CHECK(cvt(0xBF801000u) == 0xBF802000u);  // -(1 + 2^-11): away from zero too
    CHECK(cvt(0x3F800FFFu) == 0x3F800000u);  // just below the tie: down
    CHECK(cvt(0x3F801001u) == 0x3F802000u);  // just above: up
    CHECK(cvt(0x3F803000u) == 0x3F804000u);  // a tie above an odd last bit: still away (not to even)
    CHECK(cvt(0x3FFFF000u) == 0x40000000u);  // a carry into the exponent
    CHECK(cvt(0x7F7FEFFFu) == 0x7F7FE000u);  // near FLT_MAX: the largest tf32
    CHECK(cvt(0x7F7FFFFFu) == 0x7F800000u);  // FLT_MAX rounds away, to infinity
    CHECK(cvt(0x00000FFFu) == 0x00000000u);  // a small denormal: to zero
    CHECK(cvt(0x00001000u) == 0x00002000u);  // a denormal tie: away
    CHECK(cvt(0x80000000u) == 0x80000000u);  // -0
    CHECK(cvt(0x7F800000u) == 0x7F800000u);  // infinity passes through
    CHECK(cvt(0xFF800000u) == 0xFF800000u);
    CHECK(cvt(0x7FC00001u) == 0x7FC00001u);  // NaNs pass through with their payload
    CHECK(cvt(0x7F800001u) == 0x7F800001u);
    CHECK(cvt(0x7FC1A5EDu) == 0x7FC1A5EDu);
}

TEST_CASE("wmma: tf32 inputs not converted are truncated to 10 mantissa bits; converted ones are rounded") {
    std::vector<float> A(16 * 8, 0.0f), B(8 * 16, 0.0f), C(256, 0.0f);
    A[0] = from_bits(0x3F801800u);  // 1 + 2^-11 + 2^-12: truncates to 1, rounds to 1 + 2^-10
    B[0] = 1.0f;
    A[1 * 8 + 0] = from_bits(0x7FC1A5EDu);  // a NaN stays that NaN (the race build's marker)
    Device<float> a(A), b(B), c(C), d(256);
    mma_16x16x8<FragA, FragB><<<1, 32>>>(a.p, b.p, c.p, d.p, 8, 16, false);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto D = d.get();
    CHECK(D[0] == 1.0f);
    CHECK(bits(D[16]) == 0x7FC1A5EDu);
    mma_16x16x8<FragA, FragB><<<1, 32>>>(a.p, b.p, c.p, d.p, 8, 16, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    D = d.get();
    CHECK(bits(D[0]) == 0x3F802000u);
}

TEST_CASE("wmma: half inputs in every shape, with float and half accumulators") {
    const auto run = [](auto m_, auto n_, auto k_, auto acc_tag) {
        constexpr int m = decltype(m_)::value, n = decltype(n_)::value, k = decltype(k_)::value;
        using TD = decltype(acc_tag);
        std::vector<__half> A(m * k), B(k * n);  // B column-major
        std::vector<float> Af(m * k), Bf(k * n);
        for (int i = 0; i < m * k; ++i) A[i] = __half(Af[i] = float((i * 7) % 13 - 6) * 0.25f);
        for (int i = 0; i < k * n; ++i) B[i] = __half(Bf[i] = float((i * 5) % 11 - 5) * 0.5f);
        Device<__half> a(A), b(B);
        Device<TD> d(size_t(m * n));
        mma_half<m, n, k, TD><<<1, 32>>>(a.p, b.p, d.p);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const auto D = d.get();
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double ref = 0;
                for (int kk = 0; kk < k; ++kk) ref += double(Af[i * k + kk]) * Bf[j * k + kk];
                CHECK(float(D[size_t(i * n + j)]) == float(ref));  // small multiples of 1/8: exact
            }
    };
    using I16 = std::integral_constant<int, 16>;
    using I32 = std::integral_constant<int, 32>;
    using I8 = std::integral_constant<int, 8>;
    run(I16{}, I16{}, I16{}, float{});
    run(I16{}, I16{}, I16{}, __half{});
    run(I32{}, I8{}, I16{}, float{});
    run(I8{}, I32{}, I16{}, __half{});
    CHECK(tlemu::take_findings().empty());
}

TEST_CASE("wmma: lanes that do not all reach load_matrix_sync are a finding") {
    Device<float> a(std::vector<float>(16 * 8, 1.0f)), out(64);
    tlemu::take_findings();
    divergent_load<<<1, 32>>>(a.p, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto f = findings_of("wmma-divergence");
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == kDivergentLoad);
    CHECK(f[0].message.find("every lane of a warp must call wmma::load_matrix_sync together") != std::string::npos);
    CHECK(f[0].message.find("lanes 0-15 are at wmma::load_matrix_sync") != std::string::npos);

    early_return_load<<<1, 32>>>(a.p, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    f = findings_of("wmma-divergence");
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == kReturnedLoad);
    CHECK(f[0].message.find("lanes 16-31 returned") != std::string::npos);

    load_with<<<1, 16>>>(a.p, 8, out.p);  // a warp of 16 threads
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    f = findings_of("wmma-divergence");
    REQUIRE(f.size() == 1);
    CHECK(f[0].message.find("not a multiple of 32") != std::string::npos);
}

TEST_CASE("wmma: a pointer not 32-byte aligned, an ldm not a multiple of 16 bytes, and arguments that differ between lanes") {
    Device<float> a(std::vector<float>(64 * 8, 1.0f)), out(64);
    tlemu::take_findings();
    load_with<<<1, 32>>>(a.p + 4, 8, out.p);  // 16 bytes in
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    auto f = findings_of("wmma-misaligned");
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == kArgsLoad);
    CHECK(f[0].message.find("32-byte") != std::string::npos);
    load_with<<<1, 32>>>(a.p, 10, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    f = findings_of("wmma-misaligned");
    REQUIRE(f.size() == 1);
    CHECK(f[0].message.find("ldm = 10") != std::string::npos);
    load_with<<<1, 32>>>(a.p, 12, out.p);  // 48 bytes: fine
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(tlemu::take_findings().empty());
    nonuniform_load<<<1, 32>>>(a.p, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    f = findings_of("wmma-nonuniform");
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == kNonUniformLoad);
}

TEST_CASE("wmma: a complete tf32 matmul staged through shared memory, on odd shapes, with no finding") {
    struct Shape { int J, K, L; };
    for (Shape s : {Shape{17, 31, 13}, Shape{129, 1, 257}, Shape{1, 1, 1}, Shape{33, 65, 17}}) {
        CAPTURE(s.J);
        CAPTURE(s.K);
        CAPTURE(s.L);
        const auto M = random_floats(size_t(s.J) * s.K, 11), N = random_floats(size_t(s.K) * s.L, 12);
        Device<float> m(M), n(N), p(size_t(s.J) * s.L);
        launch_matmul(m.p, n.p, p.p, s.J, s.K, s.L);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        const auto P = p.get();
        int bad = 0;
        for (int i = 0; i < s.J; ++i)
            for (int j = 0; j < s.L; ++j) {
                double ref = 0, mag = 0;
                for (int k = 0; k < s.K; ++k) {
                    ref += double(M[size_t(i) * s.K + k]) * N[size_t(k) * s.L + j];
                    mag += std::fabs(double(M[size_t(i) * s.K + k]) * N[size_t(k) * s.L + j]);
                }
                // tf32 inputs (relative 2^-11 each) and float sums (2^-24 per term)
                if (!(std::fabs(P[size_t(i) * s.L + j] - ref) <= mag * (0x1p-10 + s.K * 0x1p-24) + 1e-7)) ++bad;
            }
        CHECK(bad == 0);
        const auto f = tlemu::take_findings();
        for (const auto& x : f) MESSAGE(std::string(x.kind + " line " + std::to_string(x.line) + ": " + x.message));
        CHECK(f.empty());
    }
}

// Lanes hand values to each other through shared memory: ordered by __syncwarp() within a warp
// (CUDA's memory model), not across warps (the race build, hooks_race.cpp).
__global__ void warp_handoff(float* out, bool sync, bool other_warp) {
    __shared__ float s[64];
    s[threadIdx.x] = float(threadIdx.x);
    if (sync) __syncwarp();
    const int from = other_warp ? (threadIdx.x + 32) % 64 : (threadIdx.x / 32) * 32 + (threadIdx.x + 1) % 32;
    out[threadIdx.x] = s[from];
}

TEST_CASE("race build: __syncwarp() orders a warp's shared accesses, and only that warp's") {
    if (build() != "emu-race") return;
    Device<float> out(64);
    tlemu::take_findings();
    warp_handoff<<<1, 64>>>(out.p, true, false);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(findings_of("race").empty());
    warp_handoff<<<1, 64>>>(out.p, false, false);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(!findings_of("race").empty());
    warp_handoff<<<1, 64>>>(out.p, true, true);  // warp 1 reads warp 0's values: __syncwarp is not enough
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(!findings_of("race").empty());
}

TEST_CASE("wmma: the race build finds a tile read by load_matrix_sync before the barrier that orders it") {
    if (build() != "emu-race") return;
    Device<float> a(random_floats(16 * 8, 5)), out(256);
    tlemu::take_findings();
    stage_then_load<<<1, 32>>>(a.p, out.p, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(findings_of("race").empty());
    stage_then_load<<<1, 32>>>(a.p, out.p, false);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto f = findings_of("race");
    REQUIRE(!f.empty());
    CHECK(f[0].line == kRacyLoad);
    CHECK(f[0].hint_code == "missing-barrier-before-use");
}

TEST_CASE("wmma: the asan build finds a load_matrix_sync that reads past the end of its matrix") {
    if (build() != "emu-asan") return;
    const std::string found = emu_test::fatal_finding([] {
        Device<float> a(std::vector<float>(16 * 8, 1.0f)), out(64);
        load_with<<<1, 32>>>(a.p, 16, out.p);  // ldm 16 on a 16 x 8 matrix: rows 8-15 lie past its end
        cudaDeviceSynchronize();
    });
    CHECK(found == "out-of-bounds-global:" + std::to_string(kArgsLoad));
}

TEST_CASE("wmma: the count build counts load_matrix_sync's loads") {
    if (build() != "emu-count") return;
    Device<float> a(random_floats(16 * 8, 5)), out(64);
    tlemu::TrafficCounts c;
    tlemu::take_counts(c);  // the setup's
    load_with<<<1, 32>>>(a.p, 8, out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(tlemu::take_counts(c));
    // 4 elements a lane: 4 warp-level loads of 32 floats (the 512 bytes of the 16 x 8 tile), then
    // the store of out.
    CHECK(c.global_loads == 4);
    CHECK(c.global_load_bytes == 16 * 8 * 4);
    CHECK(c.global_stores == 1);
}

// One warp, P (16 x 16) = M (16 x 32) N (32 x 16) in 4 phases of 8: each lane stages 4 values of each
// tile through registers, either stored before the phase's mma_sync (one buffer: the warp waits for
// its loads with nothing to compute) or, from the second phase on, loaded before the current
// phase's mma_sync and stored after it (prefetch).
__global__ void phased(const float* M, const float* N, float* P, bool prefetch, bool token = false) {
    __shared__ __align__(32) float As[16 * 8], Bs[8 * 16];
    const int lane = threadIdx.x;
    float a[4], b[4];
    auto load = [&](int ph) {
        for (int i = 0; i < 4; ++i) {
            const int e = lane + 32 * i;
            a[i] = M[(e / 8) * 32 + ph * 8 + e % 8];
            b[i] = N[(ph * 8 + e / 16) * 16 + e % 16];
        }
    };
    auto store = [&] {
        for (int i = 0; i < 4; ++i) As[lane + 32 * i] = a[i], Bs[lane + 32 * i] = b[i];
    };
    FragA fa;
    FragB fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc, acc2;  // two products a phase
    wmma::fill_fragment(acc, 0.0f);
    wmma::fill_fragment(acc2, 0.0f);
    if (prefetch) {
        load(0);
        store();
        __syncthreads();
    }
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> unused;
    for (int ph = 0; ph < 4; ++ph) {
        if (!prefetch) {
            load(ph);
            // An attack on the count: an mma_sync between the loads and their stores, on the previous
            // phase's fragments, to pass as a prefetching kernel.
            if (token && ph > 0) wmma::mma_sync(unused, fa, fb, acc);
            store();
            __syncthreads();
        } else if (ph < 3) {
            load(ph + 1);
        }
        wmma::load_matrix_sync(fa, As, 8);
        wmma::load_matrix_sync(fb, Bs, 16);
        wmma::mma_sync(acc, fa, fb, acc);
        wmma::mma_sync(acc2, fa, fb, acc2);
        __syncthreads();
        if (prefetch && ph < 3) {
            store();
            __syncthreads();
        }
    }
    wmma::store_matrix_sync(P, acc, 16, wmma::mem_row_major);
}

TEST_CASE("wmma: the count build finds the phases a warp waits for and the registers it holds") {
    if (build() != "emu-count") return;
    Device<float> m(random_floats(16 * 32, 7)), n(random_floats(32 * 16, 8)), p(16 * 16);
    tlemu::TrafficCounts c;
    tlemu::take_counts(c);  // the setup's
    phased<<<1, 32>>>(m.p, n.p, p.p, false);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(tlemu::take_counts(c));
    CHECK(c.staging_phases_per_block == 4);
    CHECK(c.exposed_phases_per_block == 4);
    CHECK(c.fragment_registers == 8 + 8 + 4 + 4);  // the accumulators' 8 each, a's 4, b's 4: nothing held
    phased<<<1, 32>>>(m.p, n.p, p.p, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(tlemu::take_counts(c));
    CHECK(c.staging_phases_per_block == 4);
    CHECK(c.exposed_phases_per_block == 1);  // the first tiles, before the loop
    CHECK(c.fragment_registers == 8 + 8 + 4 + 4 + 8);  // and the next tiles' 8 values, held across mma_sync
    // One token mma_sync between the loads and the stores, where the kernel's phases do two each:
    // less than half of a phase's products hides nothing.
    phased<<<1, 32>>>(m.p, n.p, p.p, false, true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(tlemu::take_counts(c));
    CHECK(c.staging_phases_per_block == 4);
    CHECK(c.exposed_phases_per_block == 4);
}
