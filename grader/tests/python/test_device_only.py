"""The device half of a kernel file (grader/tests/cuda12/device_only.py), which kit.cuda12 compiles
with CUDA 12's NVRTC: what it keeps, what it drops, and the template kernels it instantiates."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cuda12"))
import device_only  # noqa: E402

SOURCE = '''\ufeff#include <cuda_runtime.h>
#include <cstdio>
#include <mma.h>
#include <cstdint>
namespace cg = cooperative_groups;
#define TILE 16
static const int kTile = TILE;          // a constant device code may read
static const float* kHost = nullptr;    // host data
static const std::string kName = "x";
static int calls = 0;
struct Pair { float a, b; };
struct Buffer { float* p; ~Buffer() { cudaFree(p); } };
__constant__ float scale[4];
namespace course {
template <int B>
__global__ void __launch_bounds__(256) matmul(const float* M, float* P) { P[threadIdx.x] = M[0] * B; }
__device__ float twice(float x) { return 2 * x; }
int blocks_for(int n, int b) { return (n + b - 1) / b; }
}  // namespace course
void launch_matmul(const float* M, float* P, int n) {
    constexpr int kBlock = 16;
    course::matmul<kBlock><<<course::blocks_for(n, kBlock), 256>>>(M, P);
    course::matmul<32><<<1, 32>>>(M, P);   /* a brace in a comment: { */
    printf("}\\n");
}
'''


def test_the_device_half_keeps_device_code_and_constants_and_drops_host_code():
    s = device_only.split(SOURCE)
    kept = s.device
    for present in ("#include <mma.h>", "#include <cstdint>", "namespace cg = cooperative_groups;", "#define TILE 16",
                    "static const int kTile", "struct Pair", "__constant__ float scale", "__global__ void __launch_bounds__",
                    "__device__ float twice", "namespace course {"):
        assert present in kept, present
    for absent in ("cuda_runtime.h", "<cstdio>", "kHost", "kName", "calls", "Buffer", "blocks_for", "launch_matmul", "printf"):
        assert absent not in kept, absent
    assert kept.count("\n") == SOURCE.count("\n")   # NVRTC's line numbers are the file's
    assert not kept.startswith("\ufeff")


def test_template_kernels_are_instantiated_as_the_host_code_launches_them():
    s = device_only.split(SOURCE)
    assert s.kernel_templates == {"course::matmul"}
    assert device_only.instantiations(s) == ["&course::matmul<(16)>", "&course::matmul<32>"]


def test_a_file_without_host_code_is_unchanged():
    text = "__global__ void k(float* p) { p[0] = 1; }\n"
    assert device_only.split(text).device == text


def test_a_name_for_a_host_library_type_is_host_code():
    """`using DeviceArray = std::unique_ptr<float, CudaFree>;` at namespace scope (01-grid-stride-check-macro):
    NVRTC has no <memory>, so the device half drops it (CI's kit.cuda12, 2026-11-29: "namespace std has
    no member unique_ptr"); a name for a <cstdint> type stays."""
    text = ("#include <memory>\n#include <cstdint>\nusing DeviceArray = std::unique_ptr<float>;\n"
            "typedef std::vector<int> Ints;\nusing Index = std::int64_t;\ntypedef std::size_t Size;\n"
            "__global__ void k(float* p, Index i) { p[i] = 1.0f; }\n")
    dev = device_only.split(text).device
    assert "unique_ptr" not in dev and "vector" not in dev
    assert "using Index = std::int64_t;" in dev and "typedef std::size_t Size;" in dev and "__global__" in dev
