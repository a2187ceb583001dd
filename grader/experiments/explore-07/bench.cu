// Variant explorer for 07 (walkthrough 07's table): each variant's P checked against cuBLAS FP32
// (relative Frobenius error: TF32 kernels land near 3e-4, float32 ones near 1e-7), then the median
// of CUDA-event timings with L2 flushed, cuBLAS TF32 (tensor-op math) and FP32 timed in the same
// process, two interleaved rounds, the better round of each kept.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include VARIANT  // a file defining launch_matmul: ../../../solutions/07-tensor-cores/matmul.cu, wmma-from-global.cu ...
static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main() {
    int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {3000, 1999, 4001}};
    cublasHandle_t h32, htf; cublasCreate(&h32); cublasCreate(&htf);
    cublasSetMathMode(h32, CUBLAS_DEFAULT_MATH); cublasSetMathMode(htf, CUBLAS_TF32_TENSOR_OP_MATH);
    void* flush; size_t fb = 256u << 20; cudaMalloc(&flush, fb);
    for (auto& s : shapes) {
        int J = s[0], K = s[1], L = s[2];
        if (SQUARE_ONLY && (J % 128 || K % 128 || L % 128)) continue;
        std::vector<float> hM((size_t)J * K), hN((size_t)K * L);
        for (auto& x : hM) x = rand() / (float)RAND_MAX - 0.5f;
        for (auto& x : hN) x = rand() / (float)RAND_MAX - 0.5f;
        float *M, *N, *P, *R, *T;
        cudaMalloc(&M, hM.size() * 4); cudaMalloc(&N, hN.size() * 4);
        cudaMalloc(&P, (size_t)J * L * 4); cudaMalloc(&R, (size_t)J * L * 4); cudaMalloc(&T, (size_t)J * L * 4);
        cudaMemcpy(M, hM.data(), hM.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(N, hN.data(), hN.size() * 4, cudaMemcpyHostToDevice);
        const float one = 1, zero = 0;
        auto fp32 = [&] { cublasSgemm(h32, CUBLAS_OP_N, CUBLAS_OP_N, L, J, K, &one, N, L, M, K, &zero, R, L); };
        auto tf32 = [&] { cublasSgemm(htf, CUBLAS_OP_N, CUBLAS_OP_N, L, J, K, &one, N, L, M, K, &zero, T, L); };
        auto mine = [&] { launch_matmul(M, N, P, J, K, L); };
        fp32(); tf32(); mine();
        if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess) { printf("%s: launch error\n", NAME); return 1; }
        std::vector<float> hP((size_t)J * L), hR((size_t)J * L), hT((size_t)J * L);
        cudaMemcpy(hP.data(), P, hP.size() * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(hR.data(), R, hR.size() * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(hT.data(), T, hT.size() * 4, cudaMemcpyDeviceToHost);
        double d2 = 0, t2 = 0, r2 = 0;
        for (size_t i = 0; i < hP.size(); ++i) {
            d2 += (double(hP[i]) - hR[i]) * (double(hP[i]) - hR[i]);
            t2 += (double(hT[i]) - hR[i]) * (double(hT[i]) - hR[i]);
            r2 += double(hR[i]) * hR[i];
        }
        cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
        auto time = [&](auto f, int runs) { std::vector<float> t; for (int i = 0; i < runs; ++i) {
            cudaMemsetAsync(flush, i, fb); cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); } return median(t); };
        int runs = J >= 8192 ? 15 : 40;
        float ttf = 1e30f, t32 = 1e30f, tm = 1e30f;
        for (int round = 0; round < 2; ++round) {
            ttf = std::min(ttf, time(tf32, runs)); tm = std::min(tm, time(mine, runs)); t32 = std::min(t32, time(fp32, runs));
        }
        double fl = 2.0 * J * K * L;
        printf("%-14s %5dx%5dx%5d  mine %8.3f ms %7.0f GF/s | cuBLAS TF32 %7.0f GF/s ratio %.3f | cuBLAS FP32 %6.0f GF/s ratio %.2f | relerr %.1e (cuBLAS TF32 %.1e)\n",
               NAME, J, K, L, tm, fl / tm / 1e6, fl / ttf / 1e6, ttf / tm, fl / t32 / 1e6, t32 / tm,
               std::sqrt(d2 / r2), std::sqrt(t2 / r2));
        cudaFree(M); cudaFree(N); cudaFree(P); cudaFree(R); cudaFree(T);
    }
}
