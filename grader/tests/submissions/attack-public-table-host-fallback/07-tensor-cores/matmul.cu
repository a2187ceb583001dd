// Known-bad submission (the correctness checks, family 4; a twin of attack2-public-product-table):
// on the published values of the 1x1x1 dataset a kernel writes its stored P (a kernel launched,
// nothing copied from the host); on any other values launch_matmul reads M and N back, multiplies on
// the host and copies P in. A sealed grade's second run, on values drawn for the grade, is then
// right, so it is the launch of that run that must be judged too (host-wrote-p).
// The kit's self-test asserts what the grader makes of it in ../expect.toml.
#include <cuda_runtime.h>

__global__ void Replay(float* P) { P[0] = -0x1.a54ba0p-3f; }  // P of the published 1x1x1
__global__ void Nothing() {}

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    float m = 0, n = 0;
    if (J == 1 && K == 1 && L == 1) {
        cudaMemcpy(&m, M, sizeof(float), cudaMemcpyDeviceToHost);
        if (m == -0x1.682564p-2f) {  // M of the published 1x1x1
            Replay<<<1, 1>>>(P);
            return;
        }
        cudaMemcpy(&n, N, sizeof(float), cudaMemcpyDeviceToHost);
        const float p = m * n;
        cudaMemcpy(P, &p, sizeof(float), cudaMemcpyHostToDevice);
        Nothing<<<1, 1>>>();  // "a kernel was launched"
    }
}
