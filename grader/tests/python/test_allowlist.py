"""The allow-list (grader/allowlist.toml; docs/integrity.md, "The allow-list"): what the object
compiled from a student's matmul.cu may reference and define, and what its static initializers may
call, checked before anything runs -- one list for the GPU (the nvcc object) and the CPU emulator
(the objects of its plain, asan and race builds).

Sources are compiled here: through the emulator's path always (grader/emu's rewriter, then g++ with
tilelab_emu.h force-included and each build's flags as grader/cmake/TilelabEmu.cmake sets them), and
with nvcc where it is installed (those cases skip otherwise: the kit's CI has no nvcc). The files
under data/allowlist/ are the attacks and the real-code sample; every solution, starter and
known-good submission must pass. Every known-bad submission, in all three emulator builds and with
nvcc, runs with TILELAB_SLOW=1.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tilelab import ROOT
from tilelab.run import refusal
from tilelab.run import allowlist, artifacts, forbidden, includes, libexports, sass_facts, symbols
from tilelab.specs import spec
from tilelab.score.scoring import verdict_of
from tilelab.specs.compat import tomllib

GRADER = ROOT / "grader"
DATA = Path(__file__).resolve().parent / "data" / "allowlist"
EMU_INCLUDE = GRADER / "emu" / "include"
SUBMISSIONS = GRADER / "tests" / "submissions"
BUILD_KIND = {"plain": symbols.EMU, "asan": symbols.EMU_ASAN, "race": symbols.EMU_RACE}

# The flags of each emulator build, as grader/cmake/TilelabEmu.cmake gives them (read from it; these
# are the fallback should its wording change).
_EMU_FLAGS_FALLBACK = {
    "plain": ["-O2", "-g"],
    "asan": ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
    "race": ["-O1", "-fno-tree-sra", "-gdwarf-4", "-fno-var-tracking", "-fno-omit-frame-pointer",
             "-fsanitize=thread", "--param", "tsan-instrument-func-entry-exit=0", "-fdisable-rtl-loop2_unroll"],
}


def emu_flags() -> dict[str, list[str]]:
    text = (GRADER / "cmake" / "TilelabEmu.cmake").read_text()
    flags = {}
    for build, fallback in _EMU_FLAGS_FALLBACK.items():
        m = re.search(rf"^set\(_emu_flags_{build}\s+(.*?)\)\s*$", text, re.S | re.M)
        words = [w for item in shlex.split(m.group(1)) for w in item.removeprefix("SHELL:").split()] if m else []
        flags[build] = words if words and all(w.startswith("-") or w.startswith(("asan-", "tsan-")) for w in words) else fallback
    # Every build's indirect-branch check (g++'s flags; runtime/indirect_branch.cpp): the scan refuses
    # an object without it.
    m = re.search(r"^\s*set\(_emu_indirect\s+(-mindirect-branch=.*?)\)\s*$", text, re.M)
    assert m, "TilelabEmu.cmake no longer sets g++'s indirect-branch flags as this test reads them"
    for build in flags:
        flags[build] = flags[build] + m.group(1).split()
    return flags


def gxx_compilers() -> list[str]:
    """Every g++ on this machine (g++, g++-11 ... g++-14), one per real compiler."""
    found, seen = [], set()
    for name in ["g++", *(f"g++-{v}" for v in range(10, 16))]:
        path = shutil.which(name)
        if path and os.path.realpath(path) not in seen:
            seen.add(os.path.realpath(path))
            found.append(name)
    return found


def _rewriter(tmp: Path) -> Path:
    """The emulator's rewriter: one the kit built (CTest's TILELAB_BUILD_DIR, or a tree under
    build/) when it is newer than its sources, else built here."""
    emu = GRADER / "emu"
    sources = sorted(emu.glob("rewrite*.cpp")) + sorted(emu.glob("rewrite*.hpp"))  # the tool's, as TilelabEmu.cmake lists them
    newest = max(s.stat().st_mtime for s in sources)
    trees = [Path(os.environ["TILELAB_BUILD_DIR"])] if os.environ.get("TILELAB_BUILD_DIR") else []
    trees += sorted((ROOT / "build").glob("*/"))
    for t in trees:
        exe = t / "tilelab-emu-rewrite"
        if exe.is_file() and os.access(exe, os.X_OK) and exe.stat().st_mtime >= newest:
            return exe
    exe = tmp / "tilelab-emu-rewrite"
    subprocess.run(["g++", "-std=c++17", "-O1", "-o", str(exe), *(str(c) for c in sources if c.suffix == ".cpp")],
                   check=True)
    return exe


class Compiler:
    """Compiles a .cu text the way the grader does, once per (text, build, compiler)."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.flags = emu_flags()
        self.rewrite = _rewriter(tmp)
        self._done: dict[tuple, Path] = {}
        self.reused = 0   # objects of the kit's own build scanned instead of compiled (emu_of_kit)

    def _dir(self, text: str, tag: str) -> Path:
        d = self.tmp / f"{tag}-{hashlib.sha1(text.encode()).hexdigest()[:12]}"
        d.mkdir(exist_ok=True)
        return d

    def emu(self, text: str, build: str = "plain", cxx: str = "g++", extra: tuple[str, ...] = ()) -> Path:
        key = ("emu", text, build, cxx, extra)
        if key not in self._done:
            d = self._dir(text, "emu")
            src, out = d / "matmul.cu", d / "matmul.cpp"
            src.write_text(text)
            if not out.exists():
                r = subprocess.run([str(self.rewrite), str(src), str(out)], capture_output=True, text=True)
                assert r.returncode == 0, r.stdout + r.stderr
            # The folder is named as the kit's build names it, so object_kind sees the build.
            obj = d / f"emu_{build}_run_{cxx.replace('+', 'x')}{'_'.join(extra).replace('-', '_')}" / "matmul.cpp.o"
            obj.parent.mkdir(exist_ok=True)
            cmd = [cxx, "-c", "-include", str(EMU_INCLUDE / "tilelab_emu.h"), f"-I{EMU_INCLUDE}", *self.flags[build],
                   *extra, "-std=c++17", "-MD", "-MF", f"{obj}.d", f"-Wa,-aln={artifacts.listing(obj)}", "-save-temps=obj",
                   str(out), "-o", str(obj)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            assert r.returncode == 0, r.stderr[-3000:]
            self._done[key] = obj
        return self._done[key]

    def emu_of_kit(self, name: str, stage: str, text: str, build: str) -> Path:
        """As emu(), but the object the kit's own build compiled for kit.emu.<name> (CTest's
        TILELAB_BUILD_DIR) when it is that build of this very text: its rewritten source equal to
        this one's (but for the path its #line directives name), and the object newer than that
        source, every file its compile read (its depfile) and TilelabEmu.cmake (its flags) -- keyed
        by its inputs, as the build itself is. The grader's own object, with the kit's own flags; else compiled here
        (kit.pytest.slow.allowlist; docs/performance.md, "Test time")."""
        tree = os.environ.get("TILELAB_BUILD_DIR")
        base = f"run-kit-{name}-{stage}"
        if tree:
            src = Path(tree) / "generated" / "emu" / f"{base}.cpp"
            obj = (Path(tree) / "CMakeFiles" / f"emu_{build}_{re.sub(r'[^A-Za-z0-9_]', '_', base)}.dir"
                   / "generated" / "emu" / f"{base}.cpp.o")
            d = self._dir(text, "emu")
            ours = d / "matmul.cpp"
            if not ours.exists():
                (d / "matmul.cu").write_text(text)
                r = subprocess.run([str(self.rewrite), str(d / "matmul.cu"), str(ours)], capture_output=True, text=True)
                assert r.returncode == 0, r.stdout + r.stderr
            dep = obj.parent / f"{obj.name}.d"
            if obj.is_file() and src.is_file() and dep.is_file():
                # Every file its compile read (its depfile, as make and Ninja judge it), and the flags.
                inputs = [Path(tree) / p for p in includes.parse_depfile(dep.read_text(errors="replace"))]
                inputs += [src, GRADER / "cmake" / "TilelabEmu.cmake", GRADER / "cmake" / "TilelabConfine.cmake",
                           artifacts.listing(obj), artifacts.preprocessed(obj)]
                unpathed = [re.sub(r'^(#line \d+) ".*"$', r"\1", f.read_text(), flags=re.M) for f in (src, ours)]
                if (unpathed[0] == unpathed[1] and all(p.is_file() for p in inputs)
                        and obj.stat().st_mtime >= max(p.stat().st_mtime for p in inputs)):
                    self.reused += 1
                    return obj
        return self.emu(text, build)

    def gpu(self, text: str) -> Path:
        nvcc = shutil.which("nvcc")
        if not nvcc:
            pytest.skip("no nvcc here (the GPU half of the list is checked where CUDA is installed)")
        key = ("gpu", text)
        if key not in self._done:
            d = self._dir(text, "gpu")
            src, obj = d / "matmul.cu", d / "matmul.cu.o"
            src.write_text(text)
            # The kit's headers for students (<tilelab/mma_ptx.cuh>) on the path, as in the GPU build.
            r = subprocess.run([nvcc, "-c", "-O3", "-lineinfo", "-arch=sm_90", f"-I{ROOT / 'grader' / 'include'}",
                                "-MD", "-MF", f"{obj}.d", str(src),
                                f"-Xcompiler=-Xassembler,-aln={artifacts.listing(obj)}", "-Xcompiler=-save-temps=obj",
                                "-o", str(obj)],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr[-3000:]
            self._done[key] = obj
        return self._done[key]


@pytest.fixture(scope="session")
def cc(tmp_path_factory) -> Compiler:
    if not shutil.which("g++") or not shutil.which("nm") or not shutil.which("objdump"):
        pytest.skip("needs g++ and binutils")
    return Compiler(tmp_path_factory.mktemp("allowlist"))


def _scan(obj: Path, kind: str | None = None) -> list[forbidden.Finding]:
    return refusal.scan([obj], kind=kind)


def _names(found: list[forbidden.Finding]) -> list[str]:
    return [f.symbol for f in found]


def _src(path: Path) -> str:
    return path.read_text()


def _stage_sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).glob("*/matmul.cu"))


# ---- the list itself ----

def test_every_group_says_why_and_refusals_say_what_to_use_instead():
    pol = allowlist.policy()
    assert pol.groups
    for g in pol.groups:
        assert g.reason and "\n" not in g.reason, g.name
        assert g.kinds, g.name
        assert g.patterns or g.section in ("static-allow", "static-helper"), g.name
        if g.section == "refuse":
            assert g.advice, g.name
        if g.section == "reserved":
            assert g.what, g.name
    assert pol.default_advice


def test_an_exact_allowed_name_is_refused_by_no_glob_but_the_documented_one():
    """Refused groups are checked before allowed globs; an exact allowed entry comes first. The
    one exact entry a refused glob also covers is __libc_single_threaded (libstdc++'s headers read it;
    the rest of __libc_* stays refused), so a new overlap is a decision to document."""
    pol = allowlist.policy()
    overlap = set()
    for g in pol.of("allow"):
        for name in g.exact:
            for kind in g.kinds:
                if any(r.matches(name) for r in pol.of("refuse", kind)):
                    overlap.add(name)
    assert overlap == {"__libc_single_threaded"}
    assert allowlist.check_reference("__libc_single_threaded") is None
    assert allowlist.check_reference("__libc_start_main") is not None


@pytest.mark.parametrize("name, kinds", [
    ("cudaLaunchKernel", {"gpu"}), ("__cudaLaunchKernel", {"gpu"}), ("__cudaGetKernel", {"gpu"}),
    ("__cudaRegisterFatBinary", {"gpu"}), ("tlemu::syncthreads", {"emu", "emu-asan", "emu-race"}),
    ("threadIdx", {"emu", "emu-asan", "emu-race"}), ("__asan_report_load4", {"emu-asan"}),
    ("tlemu::loop_arrive", {"emu"}), ("tlemu::loops_offered", {"emu"}),  # threads as loops: the plain build's
    ("__ubsan_handle_add_overflow_abort", {"emu-asan"}), ("__tsan_read4", {"emu-race"}),
    ("cudaMalloc", set(symbols.KINDS)), ("printf", set(symbols.KINDS)), ("sqrtf", set(symbols.KINDS)),
    ("operator new[]", set(symbols.KINDS)), ("std::ios_base::Init::Init", set(symbols.KINDS)),
    ("cudaEventElapsedTime", set(symbols.KINDS)), ("exit", set(symbols.KINDS)),
    ("tlemu::take_findings", set()), ("tlemu::take_counts", set()), ("cudaLaunchKernelEx", set()),
    ("systemd_thing", set())])
def test_which_objects_may_reference_what(name, kinds):
    assert {k for k in symbols.KINDS if allowlist.check_reference(name, k) is None} == kinds


def test_definitions_of_what_others_own_and_the_weak_copies_of_library_headers():
    owned = libexports.owned_symbols(None, allowlist.policy())
    d = allowlist.check_definition
    S = symbols.Symbol
    # The student's own names, and COMDAT instantiations of the library's templates and inline functions.
    assert d(S("_Z13launch_matmulPKfS0_Pfi", "launch_matmul", "T"), owned=owned) is None
    assert d(S("_Z7my_cudav", "my_cuda", "T"), owned=owned) is None
    assert d(S("_ZNSt6vectorIfSaIfEE17_M_realloc_insertIJRKfEEEvN9__gnu_cxx17__normal_iteratorIPfS1_EEDpOT_",
               "std::vector<float, std::allocator<float> >::_M_realloc_insert<float const&>", "W"), owned=owned) is None
    if "_ZNKSt5ctypeIcE8do_widenEc" in owned:    # std::endl's: libstdc++ exports it weak too
        assert d(S("_ZNKSt5ctypeIcE8do_widenEc", "std::ctype<char>::do_widen", "W"), owned=owned) is None
    if owned.get("_ZNSo5flushEv", ("", False))[1]:   # libstdc++'s own compiled function: a weak copy replaces it
        assert d(S("_ZNSo5flushEv", "std::basic_ostream<char, std::char_traits<char> >::flush", "W"), owned=owned)
    assert d(S("_ZNSt6helperEv", "std::helper", "T"), owned=owned)           # strong in namespace std
    assert d(S("puts", "puts", "W"), owned=owned)                            # glibc exports it as a weak alias
    assert d(S("__asan_default_options", "__asan_default_options", "W"), owned=owned)
    # The emulator header's inline templates are the header's, on the emulator only.
    launch = S("_ZN5tlemu6launchIJEEEvv", "tlemu::launch<>", "W")
    assert d(launch, symbols.EMU, owned=owned) is None
    assert d(launch, symbols.GPU, owned=owned)
    assert d(S("_ZN5tlemu6launchIJEEEvv", "tlemu::launch<>", "T"), symbols.EMU, owned=owned)
    # cu* is the driver API's only as a C name.
    assert d(S("cuLaunchKernel", "cuLaunchKernel", "T"), owned=owned)
    assert d(S("_Z9cuMatMulPf", "cuMatMul", "T"), owned=owned) is None


def test_the_objects_kind_comes_from_the_build_folder(tmp_path):
    for folder, kind in [("emu_plain_run_submission_01_basic.dir", symbols.EMU),
                         ("emu_asan_run_submission_01_basic.dir", symbols.EMU_ASAN),
                         ("emu_race_run_submission_01_basic.dir", symbols.EMU_RACE)]:
        assert symbols.object_kind(tmp_path / "CMakeFiles" / folder / "generated" / "emu" / "x.cpp.o") == kind


def test_a_machine_without_binutils_refuses_rather_than_passes(cc, monkeypatch):
    obj = cc.emu(_src(DATA / "initializers_ok.cu"))
    real = shutil.which
    monkeypatch.setattr(symbols.shutil, "which", lambda n: None if n == "nm" else real(n))
    found = _scan(obj)
    assert found and found[0].kind == "unreadable" and "nm" in found[0].symbol


# ---- what must pass ----

@pytest.mark.parametrize("src", _stage_sources("solutions") + _stage_sources("starter"),
                         ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_every_solution_and_starter_passes_on_the_emulator(cc, src):
    assert _scan(cc.emu(_src(src))) == []


CEIL_HELPER = """
#include <cmath>
int ceil(int a, int b) { return (a + b - 1) / b; }          // ECE408's helper: _Z4ceilii
double up(double x) { return std::ceil(x); }                 // and libm's ceil, called beside it
__global__ void k(float* p) { p[0] = 1; }
void launch_matmul(const float* M, const float* N, float* P, int J, int K, int L) {
    k<<<ceil(J, 16), 1>>>(P); (void)up(1.5);
}
"""


def test_an_overload_of_a_runtime_name_replaces_nothing_and_passes(cc):
    """Issue #40: `int ceil(int, int)` mangles to _Z4ceilii, a symbol of its own: it replaces
    libm's ceil for nobody, so it is allowed; a C definition of ceil would take every call and is not."""
    assert _scan(cc.emu(CEIL_HELPER)) == []
    assert _scan(cc.gpu(CEIL_HELPER)) == []
    found = _scan(cc.emu(CEIL_HELPER.replace("int ceil(int a, int b)", 'extern "C" double ceil(double a)')
                          .replace("(a + b - 1) / b", "a").replace("ceil(J, 16)", "ceil(J)")))
    assert any(f.symbol == "ceil" and f.kind == "definition" for f in found)


@pytest.mark.parametrize("build", ["asan", "race"])
@pytest.mark.parametrize("src", [ROOT / "solutions" / "06-register-tiled" / "matmul.cu",
                                 SUBMISSIONS / "03-cuda-extras" / "03-boundary" / "matmul.cu"],
                         ids=lambda p: p.parent.parent.name + "/" + p.parent.name)
def test_the_instrumented_emulator_builds_pass(cc, src, build):
    if not src.exists():
        pytest.skip("needs the instructor's kit (solutions/ and the known-bad suite)")
    obj = cc.emu(_src(src), build)
    assert symbols.object_kind(obj) == BUILD_KIND[build]
    assert _scan(obj) == []


@pytest.mark.parametrize("name", ["tiled-ok", "03-cuda-extras", "side-stream", "01-known-good-idioms"])
def test_known_good_submissions_pass(cc, name):
    if not (SUBMISSIONS / name / "expect.toml").exists():
        pytest.skip("needs the instructor's kit (the known-bad suite)")
    doc = tomllib.loads((SUBMISSIONS / name / "expect.toml").read_text())
    assert _scan(cc.emu(_src(SUBMISSIONS / name / doc["stage"] / "matmul.cu"))) == []


@pytest.mark.parametrize("build", ["plain", "asan", "race"])
def test_real_student_code_passes(cc, build):
    """iostream, std::vector/string/map/shared_ptr, ostringstream, a lambda, a template kernel in a
    namespace, __constant__ and __device__ variables, __restrict__, #pragma unroll, __ldg, warp
    intrinsics, atomics, __half, CUDA events, a CUDA_CHECK that calls exit, helpers with external
    linkage."""
    assert _scan(cc.emu(_src(DATA / "real_code.cu"), build)) == []


# A TF32 tensor-core submission (nvcuda::wmma through <mma.h>: the emulator's tilelab_emu_wmma.h, its
# runtime's collective tlemu::wmma_sync), the complete kernel of the emulator's wmma tests.
WMMA_MATMUL = GRADER / "emu" / "tests" / "wmma_matmul.cu"


@pytest.mark.parametrize("build", ["plain", "asan", "race"])
def test_a_wmma_tensor_core_submission_passes_on_the_emulator(cc, build):
    assert _scan(cc.emu(_src(WMMA_MATMUL), build)) == []


def test_a_wmma_tensor_core_submission_passes_on_the_gpu(cc):
    assert _scan(cc.gpu(_src(WMMA_MATMUL))) == []


def test_real_student_code_passes_on_the_gpu(cc):
    assert _scan(cc.gpu(_src(DATA / "real_code.cu"))) == []


@pytest.mark.parametrize("src", _stage_sources("solutions"), ids=lambda p: p.parent.name)
def test_every_solution_passes_on_the_gpu(cc, src):
    assert _scan(cc.gpu(_src(src))) == []


def test_the_emulator_headers_inline_definitions_are_allowed(cc):
    """Every inline function and template the force-included headers (and the C++ headers they
    pull in) can leave in a student's object, emitted all at once (-O0 -fkeep-inline-functions):
    none is a definition the list refuses (so [emulator.define.header_inline] keeps up with them)."""
    text = ("#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <mma.h>\n"
            "void launch_matmul(const float*, const float*, float*, int) {}\n")
    obj = cc.emu(text, "plain", extra=("-O0", "-fkeep-inline-functions"))
    assert [f.message for f in _scan(obj) if f.kind == "definition"] == []


@pytest.mark.parametrize("build", ["plain", "asan", "race"])
def test_a_templated_launcher_in_a_namespace_passes(cc, build):
    """An honest idiom refused until 2026-11-29 (CI, the PTX wrappers' known-good): a kernel launched
    from a function template in a named namespace gives its lambda vague linkage, so the launch's
    instantiations of the header's start_thread and call_kernel are weak definitions in the
    student's object, which the list must take as the header's (not a name of the grader)."""
    text = ("namespace path {\n"
            "__global__ void K(const float* M, const float* N, float* P, int W) { P[threadIdx.x] = M[0] * N[0] * W; }\n"
            "template <bool Fast> void launch(const float* M, const float* N, float* P, int W) {\n"
            "  K<<<1, Fast ? 32 : 16>>>(M, N, P, W);\n}\n}\n"
            "void launch_matmul(const float* M, const float* N, float* P, int W) {\n"
            "  if (W % 4 == 0) path::launch<true>(M, N, P, W); else path::launch<false>(M, N, P, W);\n}\n")
    assert [f.message for f in _scan(cc.emu(text, build)) if f.kind == "definition"] == []


def test_a_header_instantiation_an_old_cplusplusfilt_cannot_demangle_is_judged_by_its_name(monkeypatch):
    """Debian 11's c++filt (binutils 2.35) gives back, undemangled, the weak call_kernel instantiation
    a launch from a function template leaves (its lambda takes a parameter pack: UlDpOT_E_), which
    was then judged a reserved name (_Z...): 07's reference refused on Debian 11 (CI's bullseye root,
    2026-11-29). The qualified name it begins with is read instead (seen failing: the reserved name)."""
    raw = ("_ZN5tlemu11call_kernelIZ12launch_tilesILb0EEvPKfS3_PfiiiEUlDpOT_E_"
           "St5tupleIJS3_S3_S4_iiiEEEEvRT_RT0_")
    monkeypatch.setattr(symbols, "_DEMANGLED", {})
    monkeypatch.setattr(symbols, "run_tool", lambda *cmd, stdin=None: stdin)   # c++filt that reads nothing
    key = symbols.demangle([raw])[raw]
    assert key == "tlemu::call_kernel<...>"
    for kind in symbols.EMU_KINDS:
        assert allowlist.check_definition(symbols.Symbol(raw, key, "W"), kind) is None
        assert allowlist.check_definition(symbols.Symbol(raw, key, "T"), kind) is not None   # weak only
    assert symbols.nested_prefix("_ZNSt6vectorIiSaIiEE9push_backEv") == "std::vector<...>"
    assert symbols.nested_prefix("_Z3fooi") == "foo" and symbols.nested_prefix("puts") == "puts"


# ---- static initializers (the static_init groups) ----

@pytest.mark.parametrize("build", ["plain", "asan", "race"])
@pytest.mark.parametrize("cxx", gxx_compilers())
def test_iostream_and_namespace_scope_shared_memory_pass_with_every_gxx(cc, cxx, build):
    """g++ 12 prints std::ios_base::Init::Init() with its parentheses, which the old scan's pattern
    lacked: every file including <iostream> was refused. Checked with each g++ here, each build."""
    assert _scan(cc.emu(_src(DATA / "initializers_ok.cu"), build, cxx)) == []


@pytest.mark.parametrize("build", ["plain", "asan", "race"])
@pytest.mark.parametrize("cxx", gxx_compilers())
def test_code_before_and_after_main_is_judged_like_any_other_code(cc, cxx, build):
    """Issue #40: a call before main, a static object's destructor run after it and an indirect call
    in an initializer were refused because they ran before the worker's sandbox; the worker is now
    confined from its first instruction (docs/integrity.md), so they pass the scan like the same
    code in launch_matmul would (puts is allowed)."""
    assert _scan(cc.emu(_src(DATA / "attack_initializers.cu"), build, cxx)) == []


def test_initializers_on_the_gpu(cc):
    assert _scan(cc.gpu(_src(DATA / "initializers_ok.cu"))) == []
    assert _scan(cc.gpu(_src(DATA / "attack_initializers.cu"))) == []
    # What the rules refuse anywhere is refused in an initializer too.
    found = _scan(cc.gpu(_src(DATA / "attack_initializers.cu").replace('puts("before main, in the grader")',
                                                                        'remove("x")')))
    assert any(f.symbol == "remove" for f in found)


# ---- what must be refused, each naming its symbol and what to use instead ----

# (name the finding starts with, a piece of its advice)
REFERENCES = [
    ("cudaLaunchKernelEx", "<<<grid, block>>>"), ("cudaLaunchCooperativeKernel", "<<<grid, block>>>"),
    ("cuLaunchKernel", "<<<grid, block>>>"), ("__real_cudaLaunchKernel", "<<<grid, block>>>"),
    ("cudaGraphCreate", "graphs"), ("cudaGraphLaunch", "graphs"), ("cudaGetDriverEntryPoint", "runtime API"),
    ("cublasSgemm_v2", "write the multiplication yourself"), ("cudnnCreate", "write the multiplication yourself"),
    ("cblas_sgemm", "write the multiplication yourself"), ("sgemm_", "write the multiplication yourself"),
    ("dlopen", "dlopen"), ("dlsym", "dlopen"), ("dl_iterate_phdr", "dlopen"), ("_r_debug", "dlopen"),
    ("_DYNAMIC", "dlopen"), ("__libc_start_main", "dlopen"), ("environ", "arguments"),
    ("tilelab::check_product", "not yours to call"), ("tilelab_ref_02_tiled::launch_matmul", "not yours to call"),
    ("tilelab_prev_01_basic::launch_matmul", "not yours to call"),
    ("tlemu::take_findings", "findings and counters"), ("tlemu::take_counts", "findings and counters"),
    ("tlemu::set_fatal_handler", "findings and counters"),
    ("tlemu::name_buffer", "findings and counters"), ("tlemu::start_recording", "findings and counters"),
    ("tlemu::stop_recording", "findings and counters"), ("tlemu::backend_name", "findings and counters"),
    ("mprotect", "allocate"), ("mmap", "allocate"), ("syscall", "raw system calls"), ("open", "stdout"),
    ("fopen", "stdout"), ("std::basic_ifstream", "stdout"), ("socket", "network"), ("fork", "this process"),
    ("execve", "this process"), ("kill", "return an error"), ("signal", "return an error"),
    ("sigaction", "return an error"), ("_setjmp", "return an error"), ("longjmp", "return an error"),
    ("pthread_create", "GPU's threads"), ("std::thread::_M_start_thread", "GPU's threads"),
    ("getenv", "arguments"), ("cudaIpcGetMemHandle", "cudaMalloc"), ("cudaHostRegister", "cudaMalloc"),
    ("cudaMallocManaged", "cudaMalloc"), ("cudaDeviceReset", "leave the device"),
    ("cudaSetDevice", "leave the device"), ("cudaDeviceSetLimit", "leave the device"),
]


@pytest.fixture(scope="session")
def reference_attacks(cc):
    return {"emu": _scan(cc.emu(_src(DATA / "attack_references.cu")))}


@pytest.mark.parametrize("name, advice", REFERENCES, ids=[r[0] for r in REFERENCES])
def test_each_forbidden_reference_is_refused_by_name_on_the_emulator(reference_attacks, name, advice):
    hits = [f for f in reference_attacks["emu"] if f.kind == "reference" and f.symbol.startswith(name)]
    assert hits, f"{name} not refused: {_names(reference_attacks['emu'])}"
    assert advice in hits[0].reason and hits[0].message.startswith(name)


def test_each_forbidden_reference_is_refused_by_name_on_the_gpu(cc):
    found = [f for f in _scan(cc.gpu(_src(DATA / "attack_references.cu"))) if f.kind == "reference"]
    for name, advice in REFERENCES:
        hits = [f for f in found if f.symbol.startswith(name)]
        assert hits and advice in hits[0].reason, (name, _names(found))


def test_the_gpu_launch_entry_points_are_not_the_emulators(reference_attacks):
    hit = [f for f in reference_attacks["emu"] if f.symbol == "cudaLaunchKernel"]
    assert hit and "<<<grid, block>>>" in hit[0].reason


@pytest.mark.parametrize("build, refused", [
    ("plain", {"__asan_load4", "__asan_load4_noabort", "__asan_report_load4", "__tsan_read4",
               "__asan_unpoison_memory_region", "__asan_poison_memory_region"}),
    ("asan", {"__asan_load4_noabort", "__asan_unpoison_memory_region", "__asan_poison_memory_region",
              "__tsan_read4"}),
    ("race", {"__asan_load4", "__asan_load4_noabort", "__asan_report_load4",
              "__asan_unpoison_memory_region", "__asan_poison_memory_region"})])
def test_sanitizer_callbacks_only_as_the_build_emits_them_and_never_their_interface(cc, build, refused):
    found = _scan(cc.emu(_src(DATA / "attack_sanitizers.cu"), build))
    assert {f.symbol for f in found if f.kind == "reference"} == refused
    if build == "asan":
        hit = next(f for f in found if f.symbol == "__asan_unpoison_memory_region")
        assert "instruments" in hit.reason


SYSCALL = """#include <cuda_runtime.h>
void launch_matmul(const float*, const float*, float* P, int) {
    long r;
    asm volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory");   // getpid, around libc
    P[0] = float(r);
}
"""


def test_a_system_call_instruction_is_refused(cc):
    """Twice: the machine code holds a syscall, and it came from the student's own assembly."""
    found = _scan(cc.emu(SYSCALL))
    assert [f.kind for f in found] == ["assembly", "syscall"] and found[1].symbol == "syscall instruction"
    assert found[0].symbol.startswith("syscall")


def test_a_system_call_instruction_is_refused_on_the_gpu(cc):
    found = _scan(cc.gpu(SYSCALL))
    assert [f.kind for f in found] == ["assembly", "syscall"] and found[1].symbol == "syscall instruction"


# Calls through pointers (docs/integrity.md, "Nothing the instrumentation cannot see"): every
# emulator build routes them through the runtime's check, so the object holds none of its own, and
# g++'s indirect_branch("keep") attribute, which would keep one, is refused.
INDIRECT_CALLS = """
#include <functional>
struct Shape { virtual ~Shape() = default; virtual int area() const = 0; };
struct Square : Shape { int w = 3; int area() const override { return w * w; } };
static int twice(int x) { return 2 * x; }
int pick(int k) { switch (k) { case 0: return 4; case 1: return 9; case 2: return 1; case 3: return 7;
                               case 4: return 2; case 5: return 8; case 6: return 5; default: return 0; } }
int through_pointers(const Shape& s, int (*f)(int), std::function<int(int)> g) { return f(s.area()) + g(pick(s.area())); }
int host() { Square q; return through_pointers(q, twice, [](int x) { return x + 1; }); }
"""
KEPT = ('__attribute__((noinline, indirect_branch("keep"))) int unchecked(int (*f)(int), int x) { return f(x); }\n'
        "static int one(int x) { return x; }\nint host() { return unchecked(one, 1); }\n")


@pytest.mark.parametrize("build", ["plain", "asan", "race"])
def test_calls_through_pointers_pass_and_a_branch_kept_from_the_check_is_refused(cc, build):
    assert _scan(cc.emu(INDIRECT_CALLS, build)) == []
    found = _scan(cc.emu(KEPT, build))
    assert [(f.kind, f.symbol) for f in found] == [("indirect", "indirect branch in unchecked")], found


# The student's own assembly outside device code, however written (listing.py; docs/integrity.md,
# "Nothing the instrumentation cannot see"): each is one `assembly` finding on every build.
OWN_ASSEMBLY = {
    "file-scope function": ('extern "C" float tl_load(const float*);\n'
                            'asm(".text\\n.globl tl_load\\ntl_load: movss (%rdi), %xmm0\\nret\\n");\n'
                            "float host(const float* p) { return tl_load(p); }\n", ".text"),
    ".init code": ('extern "C" __attribute__((used)) void tl_pre() {}\n'
                   'asm(".pushsection .init,\\"ax\\",@progbits\\n\\tcall tl_pre@PLT\\n\\t.popsection");\n',
                   ".pushsection .init"),
    "a naked function": ('extern "C" __attribute__((naked)) float tl_naked(const float*) {\n'
                         '  asm("movss (%rdi), %xmm0\\n\\tret");\n}\n', "movss (%rdi), %xmm0"),
    "asm in a host function": ("float host(const float* p) {\n  float v;\n"
                               '  __asm__ volatile("movss (%1), %0" : "=x"(v) : "r"(p));\n  return v;\n}\n', "movss"),
    "asm made by ## pasting": ("#define CAT(a, b) a##b\n"
                               'CAT(__as, m__)(".globl tl_pasted\\ntl_pasted: ret");\n', ".globl tl_pasted"),
    ".nolist": ('asm(".nolist");\n', "(an asm whose text is not listed)"),
}


def _findings(cc, text: str, kind: str, build: str = "") -> list[forbidden.Finding]:
    """The scan's findings of `kind` in text (after <cuda_runtime.h>) compiled as the grader does: on
    the emulator in `build`, else with nvcc."""
    text = "#include <cuda_runtime.h>\n" + text
    return [f for f in _scan(cc.emu(text, build) if build else cc.gpu(text)) if f.kind == kind]


# Strings the compiler copies into its assembly as they stand, with no #APP line for the listing to
# see (preprocessed.py; docs/integrity.md, "Nothing the instrumentation cannot see"): a function of
# the student's assembly in each, or code inside a compiled function (a reference's asm label), or
# machine code as a byte array in .text. Each was an object the scan passed before (2026-11-29):
# nm shows its function defined, the listing no #APP.
PAYLOAD = r'\n.globl tl_f\n.type tl_f,@function\ntl_f: movss (%rdi), %xmm0\nret\n'
VERBATIM_ROUTES = {
    "section attribute": (f'__attribute__((section(".text{PAYLOAD}.section .data.tl"), used)) static int tl_anchor = 1;\n',
                          "section attribute"),
    "[[gnu::section]] through a macro, ## and a raw string":
        ("#define SECTION(s) [[using gnu: CAT(sec, tion)(s), used]]\n#define CAT(a, b) a##b\n"
         'SECTION(R"(.text\n.globl tl_f\ntl_f: ret\n.section .data.tl)") static int tl_anchor = 1;\n',
         "section attribute"),
    "a byte array in .text, its name concatenated": ('__attribute__((__section__(".te" "xt"))) const unsigned char tl_code[] = '
                                                    '{0xf3, 0x0f, 0x10, 0x07, 0xc3};\n', "section attribute"),
    "asm label at a call": (f'extern "C" int tl_probe(const char*, ...) __asm__("printf{PAYLOAD}#");\n'
                            'void launch_matmul(const float*, const float*, float*, int) { tl_probe("%d", 1); }\n',
                            "asm label"),
    "weakref target": ('extern "C" int tl_real() { return 1; }\n'
                       f'static int tl_weak() __attribute__((weakref("tl_real{PAYLOAD}#")));\n'
                       "int host() { return tl_weak(); }\n", "weakref attribute"),
    "symver name": (f'extern "C" __attribute__((symver("tl_v@V1{PAYLOAD}#"))) int tl_v() {{ return 5; }}\n',
                    "symver attribute"),
    "#ident": ('#ident "x\\n.globl tl_f\\ntl_f: ret\\n#"\n', "#ident"),
    "a function in the emulator's section (code outside .text)":
        ('__attribute__((section("tlemu_device_vars"))) int tl_g(int x) { return x + 1; }\n',
         "section attribute tlemu_device_vars on a function"),
}


# Each refused however it is made, as the kind of finding its rule gives, on the emulator's plain and
# race builds and with nvcc ("").
REFUSED = {**{name: (*case, "assembly") for name, case in OWN_ASSEMBLY.items()},
           **{name: (*case, "verbatim") for name, case in VERBATIM_ROUTES.items()}}


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("build", ["plain", "race", ""])
def test_the_students_own_assembly_is_refused(cc, name, build):
    text, shown, kind = REFUSED[name]
    found = _findings(cc, text, kind, build)
    assert found and found[0].symbol.startswith(shown), found
    assert (forbidden.ASSEMBLY if kind == "assembly" else forbidden.VERBATIM) in forbidden.summary(found)
    # A string's finding names the student's line (a section's flags in the listing have none).
    assert kind == "assembly" or "matmul.cu:" in found[0].symbol or "on a function" in shown


# What a kernel file honestly holds compiles to no assembly of its own: the compiler's output only
# (the known-good submissions and every solution are scanned above too).
HONEST = """#include <cuda_runtime.h>
#include <algorithm>
#include <thread>
#include <vector>
#define TILE 16
template <int T> __device__ __forceinline__ float dot(const float* a, const float* b) {
    float s = 0;
#pragma unroll
    for (int i = 0; i < T; ++i) s += a[i] * b[i];
    return s;
}
__global__ void k(const float* M, float* P, int n) {
    auto idx = [&](int i) { return blockIdx.x * blockDim.x + i; };
    const int i = idx(threadIdx.x);
    if (i < n) P[i] = dot<TILE>(M, M) + __shfl_down_sync(0xffffffffu, P[i], 1);
}
void launch_matmul(const float* M, const float*, float* P, int n) {
    std::vector<int> sizes(4, n);
    std::thread t([&] { std::sort(sizes.begin(), sizes.end()); });
    t.join();
    k<<<(n + 255) / 256, 256>>>(M, P, n);
}
"""


@pytest.mark.parametrize("build", ["plain", "asan", "race"])
def test_honest_idioms_hold_no_assembly_on_the_emulator(cc, build):
    assert [f for f in _scan(cc.emu(HONEST, build)) if f.kind in ("assembly", "verbatim", "unreadable")] == []


def test_honest_idioms_hold_no_assembly_on_the_gpu(cc):
    assert [f for f in _scan(cc.gpu(HONEST)) if f.kind in ("assembly", "verbatim", "unreadable")] == []


def test_an_object_without_its_listing_is_refused(cc, tmp_path):
    obj = tmp_path / "matmul.cpp.o"
    obj.write_bytes(cc.emu(HONEST).read_bytes())
    assert [f.symbol for f in _scan(obj) if f.kind == "unreadable"] == ["assembly.lst is missing", "matmul.cpp.ii is missing"]


DEFINITIONS = [
    ("cudaEventElapsedTime", "a CUDA runtime name"), ("cudaLaunchKernel", "a CUDA runtime name"),
    ("cudaCheck", "a CUDA runtime name"), ("operator new", "global allocation function"),
    ("malloc", "libc"), ("puts", "libc"), ("cblas_sgemm", "openblas"),
    ("__asan_default_options", "sanitizer"), ("tilelab::check_product", "grader"),
    ("tlemu::take_findings", "grader"), ("std::helper_of_mine", "standard library"),
]


def _check_definitions(found: list[forbidden.Finding]):
    defs = {f.symbol: f for f in found if f.kind == "definition"}
    for name, what in DEFINITIONS:
        if name == "cblas_sgemm" and not any("openblas" in p.name for p in libexports.library_paths(
                allowlist.policy(), None)):
            continue   # OpenBLAS not installed here: nothing of the process owns the name
        assert name in defs, (name, sorted(defs))
        assert what in defs[name].reason and defs[name].reason.endswith("rename it or make it static"), defs[name]
        assert defs[name].message.startswith(f"defines {name}, ")
    assert "launch_matmul" not in defs and "MatrixMulKernel" not in defs


def test_each_forbidden_definition_is_refused_by_name_on_the_emulator(cc):
    _check_definitions(_scan(cc.emu(_src(DATA / "attack_definitions.cu"))))


def test_each_forbidden_definition_is_refused_by_name_on_the_gpu(cc):
    _check_definitions(_scan(cc.gpu(_src(DATA / "attack_definitions.cu"))))


# ---- the grade's message ----

def test_refusal_names_each_symbol_and_what_to_use_instead(cc, tmp_path):
    stage = next(s for s in spec.load_all(ROOT) if s.id == "01-basic")
    bad = cc.emu(_src(DATA / "attack_references.cu"))
    refused = refusal.refusal(tmp_path, stage, [bad])
    assert verdict_of(refused) == "forbidden"
    message = refused.why
    assert "__real_cudaLaunchKernel, cudaLaunchCooperativeKernel, cudaLaunchKernel, cudaLaunchKernelEx, " \
           "cuLaunchKernel: launch kernels with <<<grid, block>>>" in message
    assert "std::basic_filebuf<char, std::char_traits<char> >::{basic_filebuf, close, open, ~basic_filebuf}" in message
    assert "cublasSgemm_v2" in message and "write the multiplication yourself" in message
    defs = refusal.refusal(tmp_path, stage, [cc.emu(_src(DATA / "attack_definitions.cu"))])
    assert "defines cudaEventElapsedTime, a CUDA runtime name: rename it or make it static" in defs.why
    assert refusal.refusal(tmp_path, stage, [cc.emu(_src(DATA / "real_code.cu"))]) is None


def test_summary_groups_by_advice_and_caps_long_lists():
    f = forbidden.Finding
    found = [f(f"sym{i:02}", "do X", "o") for i in range(12)] + [f("malloc", "a name libc.so.6 defines: fix", "o",
                                                                     "definition")]
    text = forbidden.summary(found)
    assert text.startswith("sym00, sym01, sym02, sym03, sym04, sym05, sym06, sym07, sym08, sym09 and 2 more: do X; ")
    assert text.endswith("defines malloc, a name libc.so.6 defines: fix")
    assert not [g.name for g in allowlist.policy().groups if ";" in g.advice]   # "; " separates the groups


# ---- the documentation ----

def test_docs_integrity_holds_the_lists_table():
    """docs/integrity.md shows the list's groups between its allowlist markers, exactly as
    allowlist.render_markdown() renders them (regenerate: see the doc)."""
    doc = (ROOT / "docs" / "integrity.md").read_text()
    m = re.search(r"<!-- allowlist:begin -->\n(.*?)<!-- allowlist:end -->", doc, re.S)
    assert m, "docs/integrity.md lacks the <!-- allowlist:begin --> ... <!-- allowlist:end --> markers"
    assert m.group(1) == allowlist.render_markdown(), "regenerate the table with the one-liner docs/integrity.md gives"
    assert "## The allow-list" in doc


# ---- every submission of the known-bad suite (slow) ----

def _submissions() -> list[tuple[str, str, dict]]:
    sys.path.insert(0, str(SUBMISSIONS))
    import mutate  # noqa: E402
    out = []
    for expect in sorted(SUBMISSIONS.glob("*/expect.toml")):
        doc = tomllib.loads(expect.read_text())
        name, stage = expect.parent.name, doc.get("stage", "")
        if "mutant" in doc:
            text = mutate.apply(name, stage, doc["mutant"])
        elif (expect.parent / stage / "matmul.cu").is_file():
            text = (expect.parent / stage / "matmul.cu").read_text()
        else:
            continue
        out.append((name, text, doc))
    return out


def _expected(doc: dict) -> tuple[str, list[str]]:
    """The verdict the grade path gives (grade, else gpu) and the symbols its message must name."""
    for section in ("grade", "gpu"):
        case = doc.get(section)
        case = case[0] if isinstance(case, list) else case
        if case and "verdict" in case:
            return case["verdict"], case.get("forbidden", [])
    return "", []


@pytest.mark.slow
def test_every_submission_of_the_known_bad_suite(cc):
    """Each submission whose grade is not `forbidden` passes the scan (and with nvcc where it is
    installed); each `forbidden` one is refused naming what its expect.toml names. Every one in the
    plain build (the kit's own objects: kit.emu.*); the ones graded `pass` or `forbidden` in the
    ASan and race builds too -- what honest code and the attacks make there. A known-bad kernel's
    instrumented objects hold the same calls as an honest one's, and its kit.grade.* test already
    grades them; compiling ~280 of them here was CI's longest test after the Debian roots."""
    problems, uncompiled = [], []
    for name, text, doc in _submissions():
        verdict, names = _expected(doc)
        if verdict == "compile" or (verdict == "forbidden" and not names):
            continue   # refused before the scan (its own main, an include of the kit)
        objs = []
        try:
            for build in ("plain", "asan", "race") if verdict in ("pass", "forbidden") else ("plain",):
                objs.append(cc.emu_of_kit(name, doc.get("stage", ""), text, build))
            if shutil.which("nvcc"):
                objs.append(cc.gpu(text))
        except AssertionError as e:   # the suite's own checks say so (kit.emu.*, kit.grade.*); not the scan's matter
            uncompiled.append(f"{name}: {str(e).splitlines()[0][:200] if str(e) else 'compile failed'}")
        gpu = doc.get("gpu")
        gpu = gpu[0] if isinstance(gpu, list) else gpu or {}
        gpu_refuses = "forbidden" in (gpu.get("verdict") if isinstance(gpu.get("verdict"), list) else [gpu.get("verdict")])
        for obj in objs:
            found = forbidden.summary(_scan(obj))
            # nvcc's object where the GPU's verdict is `forbidden` and the emulator's is not: the
            # emulator has its own way of refusing what the allow-list refuses on a GPU (a managed
            # variable faults there: redteam2-managed-var).
            if found and verdict != "forbidden" and obj.parent.name.startswith("gpu") and gpu_refuses:
                continue
            if verdict != "forbidden" and found:
                problems.append(f"{name} ({obj.parent.name}): {found}")
            for sym in names if verdict == "forbidden" else []:
                if sym not in found:
                    problems.append(f"{name} ({obj.parent.name}): '{sym}' not named in {found!r}")
    print(f"{cc.reused} objects of the kit's own build scanned, the others compiled here")
    if uncompiled:
        warnings.warn("did not compile here, so not scanned: " + "; ".join(uncompiled))
    assert problems == []


@pytest.mark.parametrize("symbol", ["std::ios_base::Init::Init()", "std::ios_base_library_init()",
                                    # g++ 13 and 14 leave std::endl out of line in the ASan build (-O1)
                                    "std::basic_ostream<char, std::char_traits<char> >& std::endl<char, std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&)",
                                    "std::endl<char, std::char_traits<char> >"])
def test_iostream_initialisation_of_every_gxx_is_allowed(symbol):
    """<iostream> leaves a static std::ios_base::Init in objects of g++ 12 and earlier (Debian 12's
    compiler) and a reference to std::ios_base_library_init() in those of g++ 13 and later (the GPU
    machine's): both are iostream, on both backends. The second was refused on an H100 (2026-11-25)
    until the list named it."""
    assert allowlist.classify(symbol) is None


@pytest.mark.parametrize("symbol, written", [("__longjmp_chk", "longjmp"), ("__open_2", "open"), ("__read_chk", "read"),
                                             ("__printf_chk", "__printf_chk"), ("__cxa_atexit", "__cxa_atexit")])
def test_a_refusal_names_the_call_as_written_not_as_fortify_renamed_it(symbol, written):
    """Ubuntu's g++ fortifies by default: a student who called open() is told `open`, not `__open_2`."""
    assert forbidden.as_written(symbol) == written


def test_a_kernel_name_cfilt_gives_back_mangled_is_shown_by_its_qualified_name():
    # binutils 2.35 (Debian 11) gives a lambda with a parameter pack back mangled; the facts then
    # name the kernel as symbols.nested_prefix reads it, not as `_ZN...`.
    odd = "_ZN5tlemu11call_kernelIZ3fooUlDpOT_E_EEvv"
    names = sass_facts._demangled(["_Z6MatMulPKfS0_Pfiii", odd])
    assert names["_Z6MatMulPKfS0_Pfiii"].startswith("MatMul(")
    assert names[odd] == "tlemu::call_kernel<...>"

