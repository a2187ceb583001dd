// Adapts one implementation of the student contract to tilelab::Implementation.
// Compiled once per implementation with:
//   TILELAB_API_RECT       launch_matmul(M, N, P, J, K, L) instead of (M, N, P, Width)
//   TILELAB_HOST_FUNCTION  the stage also has matmul_host(M_h, N_h, P_h, Width)
//   TILELAB_IMPL_NS        namespace the implementation was compiled into (references)
//   TILELAB_IMPL_VAR       name of the Implementation object to define
//   TILELAB_IMPL_NAME      its display name
// A submission whose signatures differ fails to link here, naming the missing function.
#include "backend.hpp"

#ifdef TILELAB_IMPL_NS
namespace TILELAB_IMPL_NS {
#endif
#ifdef TILELAB_API_RECT
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L);
#else
void launch_matmul(const float* M, const float* N, float* P, int Width);
#endif
#ifdef TILELAB_HOST_FUNCTION
void matmul_host(const float* M_h, const float* N_h, float* P_h, int Width);
#endif
#ifdef TILELAB_IMPL_NS
}  // namespace TILELAB_IMPL_NS
#define TILELAB_Q(f) TILELAB_IMPL_NS::f
#else
#define TILELAB_Q(f) ::f
#endif

namespace {

void launch(const float* M, const float* N, float* P, int J, int K, int L) {
#ifdef TILELAB_API_RECT
  TILELAB_Q(launch_matmul)(M, N, P, J, K, L);
#else
  (void)J, (void)L;  // square stages: the runner guarantees J == K == L
  TILELAB_Q(launch_matmul)(M, N, P, K);
#endif
}

}  // namespace

namespace tilelab {
extern const Implementation TILELAB_IMPL_VAR;
const Implementation TILELAB_IMPL_VAR = {TILELAB_IMPL_NAME, launch,
#ifdef TILELAB_HOST_FUNCTION
                                         TILELAB_Q(matmul_host)
#else
                                         nullptr
#endif
};
}  // namespace tilelab
