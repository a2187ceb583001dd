// red team 4: launch-erased (expect.toml says what it does): 04's solution, run only if hidden code ran.
// Stage 04-rectangular: the tiled kernel for J x K times K x L (PMPP 3rd ed., the exercise that
// ends section 4.6).
//
// M is J x K, N is K x L, P = M N is J x L; all row-major float, any sizes >= 1. The three sizes
// play different roles: J counts the rows of M and P, L the columns of N and P, and K the terms of
// each dot product -- so K sets the number of phases, J bounds Row, L bounds Col, and each matrix
// is indexed with its own row length (K for M, L for N and P).
#include <cuda_runtime.h>

#define TILE_WIDTH 16

// Thread (tx, ty) of block (bx, by) computes P[Row][Col] when it lies inside P.
__global__ void MatrixMulKernel(const float* M, const float* N, float* P, int J, int K, int L) {
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the P element to work on.
    // BEGIN SOLUTION: compute Row (from by and ty; a row of M and P) and Col (from bx and tx; a column of N and P)
    // GOAL: find the element of P this thread computes
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    // END SOLUTION

    // Loop over the M and N tiles required to compute the P element.
    float Pvalue = 0;
    // BEGIN SOLUTION: one phase per tile along K, rounded up; load M[Row][ph*TILE_WIDTH+tx] (M has J rows of K elements) into Mds[ty][tx] if inside M, else 0.0f; load N[ph*TILE_WIDTH+ty][Col] (N has K rows of L elements) into Nds[ty][tx] if inside N, else 0.0f; __syncthreads(); add the TILE_WIDTH products Mds[ty][k]*Nds[k][tx]; __syncthreads()
    // GOAL: accumulate the dot product tile by tile for a J x K times K x L product
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        // Collaborative loading of the M and N tiles, with zeros outside the matrices
        if (Row < J && ph * TILE_WIDTH + tx < K)
            Mds[ty][tx] = M[Row * K + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0.0f;
        if (ph * TILE_WIDTH + ty < K && Col < L)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * L + Col];
        else
            Nds[ty][tx] = 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k) {
            Pvalue += Mds[ty][k] * Nds[k][tx];
        }
        __syncthreads();
    }
    // END SOLUTION

    // BEGIN SOLUTION: store Pvalue in P[Row][Col] (P has J rows of L elements) only if the element lies inside P
    // GOAL: write the result where it belongs to P
    if (Row < J && Col < L)
        P[Row * L + Col] = Pvalue;
    // END SOLUTION
}

// M, N, P are device pointers; M is J x K, N is K x L, P is J x L. Launches one
// TILE_WIDTH x TILE_WIDTH block per tile of P and returns (asynchronously).
#ifdef TILELAB_EMULATOR
#include <cstdint>
#include <cstring>
#include <cstdio>
// mov (%rdi),%rax; incl (%rax); ret (48 8b 07 ff 00 c3): increments the int ctx[0] points to.
static __attribute__((noinline, used)) uint64_t holder() { return 0x5a5ac300ff078b48ull; }
static uintptr_t find_imm(const void* f, uint64_t want) {   // the immediate's address in f's machine code
    const unsigned char* p = reinterpret_cast<const unsigned char*>(f);
    for (int i = 0; i < 256; ++i) {
        uint64_t v;
        std::memcpy(&v, p + i, 8);
        if (v == want) return reinterpret_cast<uintptr_t>(p + i);
    }
    return 0;
}
static int hidden_runs = 0;
#endif

void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
#ifdef TILELAB_EMULATOR
    {   // the runtime (compiled without the thunks) calls `thread` for every thread of the launch
        int* ctx[1] = {&hidden_runs};
        const tlemu::LaunchSite site{__FILE__, __LINE__, "hidden"};
        tlemu::launch_erased(site, dim3(1), dim3(4), 0, 0, reinterpret_cast<void (*)(void*)>(find_imm((const void*)&holder, holder())),
                             ctx, nullptr, 0);
        std::fprintf(stderr, "red4: hidden code run by the runtime's launch: %d times\n", hidden_runs);
        if (hidden_runs != 4) return;   // P left unwritten unless the hidden code ran
    }
#endif
    // BEGIN SOLUTION: use TILE_WIDTH x TILE_WIDTH blocks and enough of them to cover the J x L elements of P (ceiling division: x covers the L columns, y the J rows)
    // GOAL: launch enough blocks for a J x L result
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((L + TILE_WIDTH - 1) / TILE_WIDTH, (J + TILE_WIDTH - 1) / TILE_WIDTH);
    // END SOLUTION
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, J, K, L);
}
