// A 16x16-tile product written for the SASS parser's test (tests/python/test_sass.py), not the kit's
// solution: per step a tile of A and one of B are staged in shared memory and multiplied.
#define T 16
__global__ void TiledProduct(const float* A, const float* B, float* C, int n) {
  __shared__ float a[T][T];
  __shared__ float b[T][T];
  const int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
  float acc = 0.0f;
  for (int s = 0; s < n; s += T) {
    a[threadIdx.y][threadIdx.x] = A[r * n + s + threadIdx.x];
    b[threadIdx.y][threadIdx.x] = B[(s + threadIdx.y) * n + c];
    __syncthreads();
    for (int i = 0; i < T; ++i) acc = fmaf(a[threadIdx.y][i], b[i][threadIdx.x], acc);
    __syncthreads();
  }
  C[r * n + c] = acc;
}
