"""Configure-time code generation, run by CMake: turns the specs into what C++ and CMake include.

    python3 -m tilelab.specs.codegen OUT_DIR

writes, from grader/contract.toml and every assignments/<stage>/stage.toml (read and validated by
tilelab.specs.spec, their only reader):
    OUT_DIR/include/tilelab/contract.hpp   exit codes, schema names, hint codes (C++)
    OUT_DIR/include/tilelab/findings.hpp   the emulator's finding codes and advice variants (C++)
    OUT_DIR/include/tilelab/result_schema.hpp  the result object's fields (grader/result_schema.toml)
    OUT_DIR/tilelab_stages.cmake           what CMake registers per stage and dataset
    OUT_DIR/stages/<stage>.json            the resolved spec the runner and datagen read (--spec;
                                           spec.resolved_path: OUT_DIR is <build>/generated)
Nothing is restated by hand: the files are regenerated whenever a spec changes
(CMAKE_CONFIGURE_DEPENDS), and rewritten only when their text changes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import ROOT
from . import resultschema, spec
from .contract import (CODES, CUDA_ERROR_HINTS, FINDING_ADVICE, FINDING_ADVICE_DEFAULT, FINDING_CODES, FINDING_ORDER,
                       FINDING_VARIANTS, GPU_LOCK, HINT_CODES, SCHEMAS, ExitCode)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


def _c_string(text: str) -> str:
    return json.dumps(text)  # JSON's escapes (\" \\ \uXXXX) are valid in a C++ string literal


def contract_header() -> str:
    lines = [
        "// Generated from grader/contract.toml by tilelab.specs.codegen. Do not edit.",
        "#pragma once",
        "#include <string>",
        "#include <string_view>",
        "",
        "// Exit codes as text, for string literals built at compile time (sanitizer options).",
    ]
    lines += [f'#define TILELAB_EXIT_{name.upper()}_TEXT "{e["code"]}"' for name, e in CODES.items()]
    lines += ["", "namespace tilelab {", "", "enum ExitCode : int {"]
    lines += [f"  k{_camel(name)} = {e['code']},  // {e['meaning']}" for name, e in CODES.items()]
    lines += ["};", "inline constexpr ExitCode kExitCodes[] = {"
              + ", ".join(f"k{_camel(n)}" for n in CODES) + "};", "",
              "// A verdict is its exit code's name; anything undefined (a signal) is a crash.",
              "inline const char* verdict_name(int code) {", "  switch (code) {"]
    lines += [f'    case {e["code"]}: return "{name}";' for name, e in CODES.items()]
    lines += ["  }", '  return "crash";', "}", ""]
    lines += [f"inline constexpr const char* k{_camel(name)}Schema = {_c_string(v)};" for name, v in SCHEMAS.items()]
    lines += ["", "// The GPU's lock between processes (gpu_lock.hpp); its gate is the same path + \".gate\".",
              f"inline constexpr const char* kGpuLockPath = {_c_string(GPU_LOCK)};"]
    lines += ["", "// Every hint code (contract.toml [hints]), as the one way C++ names one: a code used that is not",
              "// declared there does not compile. Hint: a code whose text is fixed; HintCode: one whose text is",
              "// composed where it is emitted.",
              "struct HintCode {", "  const char* code;", "};",
              "struct Hint {", "  const char* code;", "  const char* text;",
              "  constexpr operator HintCode() const { return {code}; }  // its code, for a text composed anew", "};",
              "namespace hints {"]
    lines += [f"inline constexpr Hint k{_camel(code)}{{{_c_string(code)}, {_c_string(h.text)}}};" if h.text else
              f"inline constexpr HintCode k{_camel(code)}{{{_c_string(code)}}};" for code, h in HINT_CODES.items()]
    lines += ["}  // namespace hints", "",
              "// cuda-error's hint by the CUDA error a message names ({error, text}), in the order to try them.",
              "inline constexpr Hint kCudaErrorHints[] = {"]
    lines += [f"  {{{_c_string(error)}, {_c_string(text)}}}," for error, text in CUDA_ERROR_HINTS]
    lines += ["};", "",
              "// The emulator's findings (contract.toml [findings]): the order to fix them in, and the",
              "// advice for each hint code (`<code>.warning`, `<code>.misaligned`: a variant's own text).",
              "inline constexpr const char* kFindingOrder[] = {" + ", ".join(_c_string(c) for c in FINDING_ORDER) + "};",
              "inline constexpr Hint kFindingAdvice[] = {"]
    lines += [f"  {{{_c_string(code)}, {_c_string(text)}}}," for code, text in FINDING_ADVICE.items()]
    lines += ["};", f"inline constexpr const char* kFindingAdviceDefault = {_c_string(FINDING_ADVICE_DEFAULT)};",
              "",
              "// What to do about a finding: the advice for `<code>.<variant>` where the variant has its own",
              "// text, else the code's, else the default.",
              "inline const char* finding_advice(std::string_view code, std::string_view variant = {}) {",
              "  const std::string refined = std::string(code) + \".\" + std::string(variant);",
              "  for (std::string_view key : {variant.empty() ? std::string_view() : std::string_view(refined), code})",
              "    for (const Hint& a : kFindingAdvice)",
              "      if (!key.empty() && key == a.code) return a.text;",
              "  return kFindingAdviceDefault;",
              "}", "", "}  // namespace tilelab", ""]
    return "\n".join(lines)


def findings_header() -> str:
    """The emulator's names for what it finds (contract.toml [findings]), as the one way its runtime
    names a finding's kind, hint code or variant: one that is not declared there does not compile,
    and test_hint_codes.py checks that no code is written as a string literal instead. A header of
    its own, so that declaring a finding rebuilds the emulator's runtime only."""
    lines = ["// Generated from grader/contract.toml [findings] by tilelab.specs.codegen. Do not edit.",
             "#pragma once", "", "namespace tilelab {", "",
             "// Every finding kind and hint code: those [findings] orders, advises or gives another's text.",
             "namespace findings {"]
    lines += [f"inline constexpr const char k{_camel(code)}[] = {_c_string(code)};" for code in sorted(FINDING_CODES)]
    lines += ["}  // namespace findings", "",
              "// The variants that refine a finding's advice ([findings.advice] `<code>.<variant>`).",
              "namespace finding_variants {"]
    lines += [f"inline constexpr const char k{_camel(v)}[] = {_c_string(v)};" for v in sorted(FINDING_VARIANTS)]
    lines += ["}  // namespace finding_variants", "", "}  // namespace tilelab", ""]
    return "\n".join(lines)


def _cost_size(d: spec.Dataset) -> int:
    """The side of the cube with as many multiply-adds as J x K x L (rounded up)."""
    return d.cost_size


# A check's timeout scales with its dataset: a floor for starting the runner (and a GPU context),
# plus the dataset's multiply-adds at a rate far below what any correct kernel reaches on that
# build -- so a 32x32 product still running after seconds has hung -- capped by the stage's
# [timeouts] correct. Rates in multiply-adds per second: about a fifth of what a naive kernel
# reached on a 2-core machine under a load of 10 (emulator: plain 2.2e7, ASan 1.7e6, race 1e6),
# far below any GPU's; docs/grading.md, "Timeouts".
CHECK_FLOOR_S = {"correct": 10, "emu": 8, "emu-asan": 10, "emu-race": 10}
CHECK_RATE = {"correct": 1e8, "emu": 4e6, "emu-asan": 4e5, "emu-race": 2e5}


def check_timeout(stage: spec.Stage, d: spec.Dataset, kind: str) -> int:
    """Seconds the runner gets for one correctness check (kind: correct, emu, emu-asan, emu-race)."""
    cap = stage.timeouts["correct"]
    return int(min(cap, -(-(CHECK_FLOOR_S[kind] + d.J * d.K * d.L / CHECK_RATE[kind]) // 1)))


# What an emulator check costs, in seconds, for the order CTest starts a stage's checks in (COST: the
# costliest first). The timeouts above are capped, so they cannot tell the largest check from the
# next ones (w1024 on the plain build, w512-int under ASan and w256 in the race build all got 60
# s), and the one that takes longest could start fourth and stretch a grade by seconds. A start-up
# plus the dataset's multiply-adds at the rate the 16 x 16 tiled kernel reached on each build on the
# 2-core development machine (2026-11-26); the performance model's check (emu-count) runs the
# kernel four times and the two references once each, on the model's shape.
CHECK_COST_RATE = {"emu": 3.5e8, "emu-asan": 1.3e8, "emu-race": 4.4e7, "emu-count": 1.5e7}


def check_cost(J: int, K: int, L: int, kind: str) -> float:
    """Estimated seconds of one emulator check (kind: emu, emu-asan, emu-race, emu-count)."""
    return round(0.02 + J * K * L / CHECK_COST_RATE[kind], 2)


def _cmake_list(items) -> str:
    return '"' + ";".join(str(i) for i in items) + '"'


def stages_cmake(stages: list[spec.Stage], build: Path) -> str:
    out = ["# Generated from assignments/*/stage.toml by tilelab.specs.codegen. Do not edit."]
    out.append(f"set(TILELAB_STAGES {_cmake_list(s.id for s in stages)})")
    out.append(f"set(TILELAB_TRACE_STAGES {_cmake_list(s.id for s in stages if s.trace)})")  # [trace]
    out.append(f"set(TILELAB_SKIP_CODE {int(ExitCode.SKIPPED)})")
    out.append(f"set(TILELAB_SPEC_FILES {_cmake_list(s.path for s in stages)})")  # the stage.toml files
    for s in stages:
        p = f"TILELAB_{s.id}"
        out.append(f"set({p}_API {s.api})")
        out.append(f"set({p}_SPEC \"{spec.resolved_path(build, s.id)}\")")  # the resolved spec
        out.append(f"set({p}_HOST {'ON' if s.host_function else 'OFF'})")
        out.append(f"set({p}_PREVIOUS \"{s.previous}\")")
        out.append(f"set({p}_DATASETS {_cmake_list(d.name for d in s.correctness_datasets)})")
        out.append(f"set({p}_PERF_DATASET {s.performance.dataset})")
        m = s.performance.model
        out.append(f"set({p}_MODEL_SHAPE {_cmake_list(m.shape) if m else ''})")
        out.append(f"set({p}_MODEL_COST {check_cost(*m.shape, 'emu-count') if m else ''})")
        out.append(f"set({p}_HIDDEN_COUNT {s.hidden.count if s.hidden else 0})")
        out.append(f"set({p}_TIMEOUT_CORRECT {s.timeouts['correct']})")
        out.append(f"set({p}_TIMEOUT_PERF {s.timeouts['perf']})")
        for tool in spec.SANITIZER_TOOLS:  # [sanitizer]: the datasets of each compute-sanitizer check
            out.append(f"set({p}_SANITIZER_{tool} {_cmake_list(s.sanitizer.datasets_for(tool))})")
        for d in s.datasets:
            out.append(f"set({p}_{d.name}_TAGS {_cmake_list(d.tags)})")
            # The work's cube root: what an emulated or sanitized run costs (1x2048x1 is tiny).
            out.append(f"set({p}_{d.name}_SIZE {_cost_size(d)})")
            for kind in CHECK_RATE:
                out.append(f"set({p}_{d.name}_TIMEOUT_{kind} {check_timeout(s, d, kind)})")
            for kind in ("emu", "emu-asan", "emu-race"):
                out.append(f"set({p}_{d.name}_COST_{kind} {check_cost(d.J, d.K, d.L, kind)})")
    return "\n".join(out) + "\n"


def sanitizer_markdown(stages: list[spec.Stage]) -> str:
    """The table of docs/grading.md, "The safety checks' datasets": each stage's [sanitizer]
    datasets, per tool, with their shapes (a pytest checks that the doc shows exactly this)."""
    def shown(s: spec.Stage, names: tuple[str, ...]) -> str:
        out = []
        for n in names:
            d = s.dataset(n)
            shape = f"{d.J}x{d.K}x{d.L}"
            out.append(f"`{n}`" + ("" if n.startswith(shape) else f" ({shape})"))
        return ", ".join(out)
    lines = ["| stage | tile | memcheck, synccheck, initcheck | racecheck |", "|---|---|---|---|"]
    for s in stages:
        tile = f"{s.tile}" + (f"; widths multiples of {s.width_multiple}" if s.width_multiple > 1 else "")
        lines.append(f"| {s.id} | {tile} | {shown(s, s.sanitizer.datasets)} | {shown(s, s.sanitizer.racecheck)} |")
    return "\n".join(lines) + "\n"


def _write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 -m tilelab.specs.codegen OUT_DIR", file=sys.stderr)
        return ExitCode.BAD_INPUT
    out = Path(argv[0]).resolve()
    if out.name != "generated":  # spec.resolved_path finds the specs at <build>/generated
        print(f"usage: OUT_DIR must be <build>/generated, got {out}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        stages = spec.load_all(ROOT)
    except spec.SpecError as e:
        print(f"tilelab: {e}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    _write_if_changed(out / "include" / "tilelab" / "contract.hpp", contract_header())
    _write_if_changed(out / "include" / "tilelab" / "findings.hpp", findings_header())
    _write_if_changed(out / "include" / "tilelab" / "result_schema.hpp", resultschema.cpp_header())
    for s in stages:
        _write_if_changed(spec.resolved_path(out.parent, s.id), json.dumps(spec.resolved(s), indent=2) + "\n")
    _write_if_changed(out / "tilelab_stages.cmake", stages_cmake(stages, out.parent))
    return ExitCode.PASS


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
