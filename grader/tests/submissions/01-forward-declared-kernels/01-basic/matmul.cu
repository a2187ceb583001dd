// Stage 01 with its kernels declared first and defined after launch_matmul, one static, one in a namespace.
static __global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width);
namespace mm { __global__ void later(float* P, int n); }

void launch_matmul(const float* M, const float* N, float* P, int Width) {
  dim3 b(16, 16), g((Width + 15) / 16, (Width + 15) / 16);
  mm::later<<<(Width * Width + 255) / 256, 256, 0>>>(P, Width * Width);
  MatrixMulKernel<<<g, b, 0>>>(M, N, P, Width);
  ::mm::later<<<1, 1>>>(P, 0);
}

static __global__ void MatrixMulKernel(const float* M, const float* N, float* P, int Width) {
  const int Row = blockIdx.y * blockDim.y + threadIdx.y, Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= Width || Col >= Width) return;
  float s = 0;
  for (int k = 0; k < Width; ++k) s += M[Row * Width + k] * N[k * Width + Col];
  P[Row * Width + Col] += s;
}
namespace mm {
__global__ void later(float* P, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) P[i] = 0.0f;
}
}

void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width) {
  const size_t size = sizeof(float) * Width * Width;
  float *M_d, *N_d, *P_d;
  cudaMalloc(&M_d, size), cudaMalloc(&N_d, size), cudaMalloc(&P_d, size);
  cudaMemcpy(M_d, M_h, size, cudaMemcpyHostToDevice);
  cudaMemcpy(N_d, N_h, size, cudaMemcpyHostToDevice);
  launch_matmul(M_d, N_d, P_d, Width);
  cudaMemcpy(P_h, P_d, size, cudaMemcpyDeviceToHost);
  cudaFree(M_d), cudaFree(N_d), cudaFree(P_d);
}
