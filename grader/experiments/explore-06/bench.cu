// Variant explorer for 06: correctness vs cuBLAS, then median of CUDA-event timings with L2 flushed.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include VARIANT  // a file defining launch_matmul: ../../../solutions/06-register-tiled/matmul.cu, cp-async-pipeline.cu or warp-tiled.cu
static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char** argv) {
    int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 777, 1234}};
    cublasHandle_t h; cublasCreate(&h);
    void* flush; size_t fb = 256u << 20; cudaMalloc(&flush, fb);
    bool once = argc > 1;
    for (auto& s : shapes) {
        int J = s[0], K = s[1], L = s[2];
        std::vector<float> hM((size_t)J * K), hN((size_t)K * L);
        for (auto& x : hM) x = rand() / (float)RAND_MAX - 0.5f;
        for (auto& x : hN) x = rand() / (float)RAND_MAX - 0.5f;
        float *M, *N, *P, *R;
        cudaMalloc(&M, hM.size() * 4); cudaMalloc(&N, hN.size() * 4);
        cudaMalloc(&P, (size_t)J * L * 4); cudaMalloc(&R, (size_t)J * L * 4);
        cudaMemcpy(M, hM.data(), hM.size() * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(N, hN.data(), hN.size() * 4, cudaMemcpyHostToDevice);
        const float one = 1, zero = 0;
        auto ref = [&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, L, J, K, &one, N, L, M, K, &zero, R, L); };
        auto mine = [&] { launch_matmul(M, N, P, J, K, L); };
        ref(); mine(); cudaDeviceSynchronize();
        if (once) { printf("profiled\n"); return 0; }
        if (cudaGetLastError() != cudaSuccess) { printf("launch error\n"); return 1; }
        std::vector<float> hP((size_t)J * L), hR((size_t)J * L);
        cudaMemcpy(hP.data(), P, hP.size() * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(hR.data(), R, hR.size() * 4, cudaMemcpyDeviceToHost);
        double maxerr = 0; for (size_t i = 0; i < hP.size(); ++i) maxerr = std::max(maxerr, (double)std::fabs(hP[i] - hR[i]));
        cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
        auto time = [&](auto f, int runs) { std::vector<float> t; for (int i = 0; i < runs; ++i) {
            cudaMemsetAsync(flush, i, fb); cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); } return median(t); };
        int runs = J >= 8192 ? 15 : 40;
        // interleave: reference, mine, reference, mine
        float tr1 = time(ref, runs), tm1 = time(mine, runs), tr2 = time(ref, runs), tm2 = time(mine, runs);
        float tr = std::min(tr1, tr2), tm = std::min(tm1, tm2);
        double fl = 2.0 * J * K * L;
        printf("%-10s %5dx%5dx%5d  mine %8.3f ms %7.0f GF/s  cublas %8.3f ms %7.0f GF/s  ratio %.3f  maxerr %.2e\n",
               NAME, J, K, L, tm, fl / tm / 1e6, tr, fl / tr / 1e6, tr / tm, maxerr);
        cudaFree(M); cudaFree(N); cudaFree(P); cudaFree(R);
    }
}
