// Known-bad submission (sealed judging, a product computed on the host): launch_matmul reads M and
// N back with cudaMemcpyAsync on a stream of its own, multiplies on the host, and writes the product
// into a scratch buffer one byte at a time with cudaMemsetAsync (no copy from the host at all); a
// copy kernel that also loads M and N moves it into P.
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>
#include <cstring>
#include <vector>

__global__ void CopyKernel(const float* M, const float* N, const float* S, float* P, int Width) {
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float touch = M[Row * Width + Col] * 0.0f + N[Row * Width + Col] * 0.0f;  // loads M and N
        P[Row * Width + Col] = S[Row * Width + Col] + touch;
    }
}

void launch_matmul(const float* M, const float* N, float* P, int Width) {
    size_t n = (size_t)Width * Width;
    cudaStream_t s;
    cudaStreamCreate(&s);
    std::vector<float> m(n), nn(n), p(n);
    cudaMemcpyAsync(m.data(), M, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaMemcpyAsync(nn.data(), N, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    for (int i = 0; i < Width; ++i)
        for (int j = 0; j < Width; ++j) {
            float acc = 0;
            for (int k = 0; k < Width; ++k) acc += m[i * Width + k] * nn[k * Width + j];
            p[i * Width + j] = acc;
        }
    unsigned char* S = nullptr;
    cudaMalloc((void**)&S, n * sizeof(float));
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(p.data());
    for (size_t b = 0; b < n * sizeof(float); ++b) cudaMemsetAsync(S + b, bytes[b], 1, s);
    dim3 block(16, 16), grid((Width + 15) / 16, (Width + 15) / 16);
    CopyKernel<<<grid, block, 0, s>>>(M, N, reinterpret_cast<const float*>(S), P, Width);
    cudaStreamSynchronize(s);
    cudaFree(S);
    cudaStreamDestroy(s);
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
    size_t size = (size_t)Width * Width * sizeof(float);
    float *M_d, *N_d, *P_d;
    cudaMalloc((void**)&M_d, size);
    cudaMalloc((void**)&N_d, size);
    cudaMalloc((void**)&P_d, size);
    cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice);
    cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice);
    launch_matmul(M_d, N_d, P_d, Width);
    cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
    cudaFree(M_d);
    cudaFree(N_d);
    cudaFree(P_d);
}
