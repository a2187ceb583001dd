// A phase loop around a k loop whose trip count (the tile width) is known only at run time: nvcc
// keeps the k loop rolled, so it is the hot loop, nested in the phase loop.
__global__ void RolledK(const float* M, const float* N, float* P, int Width, int tile) {
  extern __shared__ float s[];
  float* Mds = s;
  float* Nds = s + tile * tile;
  int tx = threadIdx.x, ty = threadIdx.y;
  int Row = blockIdx.y * tile + ty, Col = blockIdx.x * tile + tx;
  float Pvalue = 0;
  for (int ph = 0; ph < Width / tile; ++ph) {
    Mds[ty * tile + tx] = M[Row * Width + ph * tile + tx];
    Nds[ty * tile + tx] = N[(ph * tile + ty) * Width + Col];
    __syncthreads();
#pragma unroll 1
    for (int k = 0; k < tile; ++k) Pvalue += Mds[ty * tile + k] * Nds[k * tile + tx];
    __syncthreads();
  }
  P[Row * Width + Col] = Pvalue;
}
