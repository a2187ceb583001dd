"""vector_builtins.py: x86 vector intrinsics, whose loads and stores no build's instrumentation sees,
refused from the preprocessed unit (the honest files: test_allowlist.py scans every solution, starter
and known-good submission with the same scan). Before 2026-11-29 no rule read them: the compiled cases
below passed the scan (seen failing: no `builtin` finding, the summary without the reason)."""

from __future__ import annotations

import pytest

from test_allowlist import _findings, cc  # noqa: F401 (cc: the session's compiler fixture)
from tilelab.run import forbidden, vector_builtins

STUDENT = '# 1 "/sub/01-basic/matmul.cu"\n'


@pytest.mark.parametrize("body, names", [
    ("__m128i v = (__m128i) __builtin_ia32_lddqu((char const*) p);", ["__builtin_ia32_lddqu"]),
    ("x = __builtin_ia32_gathersiv8sf(a, b, c, d, 4); y = __builtin_ia32_gathersiv8sf(a, b, c, d, 4);",
     ["__builtin_ia32_gathersiv8sf"]),
    ("float v = __builtin_nontemporal_load(p); __builtin_nontemporal_store(v, q);",
     ["__builtin_nontemporal_load", "__builtin_nontemporal_store"]),
    # a raw string whose `"` would end a plain string early hides nothing after it
    ('const char* s = R"(")"; __builtin_ia32_maskmovdqu(a, b, c); f("");', ["__builtin_ia32_maskmovdqu"]),
])
def test_a_vector_builtin_is_found_in_the_code(body, names):
    found = vector_builtins.vector_builtins(STUDENT + body)
    assert found == [(n, "/sub/01-basic/matmul.cu") for n in names]
    assert vector_builtins.shown(found).startswith(names[0])   # the student's own, by name


@pytest.mark.parametrize("body", [
    'printf("__builtin_ia32_lddqu is refused\\n");',
    "/* __builtin_ia32_lddqu */ int x = 1;",
    '# 3 "/usr/lib/gcc/x86_64-linux-gnu/12/include/__builtin_ia32_lddqu.h"\nint x;',
    "int my__builtin_ia32_lddqu = 0; int __builtin_ia32 = 1;",
])
def test_a_name_outside_the_code_is_no_finding(body):
    assert vector_builtins.vector_builtins(STUDENT + body) == []


# The intrinsics g++ compiles to the instruction itself, no __tsan hook (red team 3, 2026-11-29,
# attack3-atomic-host-product), under a target attribute where the baseline x86-64 lacks them.
INTRINSICS = """#include <immintrin.h>
__attribute__((target("sse3"))) void tl_copy(const void* src, void* dst) {
    _mm_storeu_si128((__m128i*)dst, _mm_lddqu_si128((const __m128i*)src));
}
__attribute__((target("avx2"))) float tl_gather(const float* p) {
    return _mm256_cvtss_f32(_mm256_i32gather_ps(p, _mm256_set1_epi32(3), 4));
}
"""


@pytest.mark.parametrize("build", ["plain", "race", ""])
def test_intrinsics_are_refused_on_both_backends(cc, build):  # noqa: F811
    found = _findings(cc, INTRINSICS, "builtin", build)
    # named by the header to stop including (the student's code calls _mm_*, defined there)
    assert len(found) == 1 and "__builtin_ia32_* of" in found[0].symbol and "intrin.h>" in found[0].symbol, found
    assert forbidden.VECTOR_BUILTINS in forbidden.summary(found)


def test_honest_headers_name_no_builtin(cc):  # noqa: F811
    """<random> includes <pmmintrin.h> only under __SSE3__, which the builds do not define (no -march)."""
    text = "#include <random>\n#include <algorithm>\n#include <cmath>\n#include <thread>\n#include <vector>\n" \
           "float tl_draw() { std::mt19937 g(1); return std::uniform_real_distribution<float>(0, 1)(g); }\n"
    for build in ("plain", "race", ""):
        assert _findings(cc, text, "builtin", build) == []
