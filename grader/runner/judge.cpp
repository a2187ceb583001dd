// The judge: one check of one implementation on one dataset (docs/grading.md), built once per kit.
// It loads the dataset, computes the references, starts the worker that runs the code under test
// (worker.cpp, a program of its own: worker_client.hpp) and hands it M and N; it checks every P the
// worker gives back against the float64 reference with the rule of docs/grading.md, times the
// implementation against the reference worker's, and alone writes the JSON result. Nothing the
// worker says is believed where it could earn a point: P is checked here, timings are checked
// against the judge's own clock and the launch counts (docs/integrity.md). Its exit code is one of
// grader/contract.toml.
#include <signal.h>
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <numeric>
#include <optional>
#include <random>
#include <system_error>

#include "backend.hpp"  // DeviceError
#include "gpu_lock.hpp"
#include "judge_checks.hpp"
#include "judge_result.hpp"
#include "judge_session.hpp"
#include "judge_worker_gone.hpp"
#include "tilelab/dataset.hpp"
#include "tilelab/random.hpp"  // mix: the drawn shape
#include "tilelab/diagnose.hpp"
#include "tilelab/audit.hpp"
#include "tilelab/contract.hpp"
#include "tilelab/result.hpp"
#include "tilelab/spec.hpp"
#include "tilelab/tolerance.hpp"

namespace tilelab::judge {
namespace {

// The shape the emulator's performance check (the perf-model check, --draw-shape) runs, counts and
// models: drawn for each grade near the stage's [performance.model] shape `model`, from the grading
// seed and the digest of the worker's file (as the sampled blocks are), so a kernel cannot single it
// out -- it is never the model's own size in any dimension, and a file cannot know its own digest.
// Each size follows the stage's [hidden] rule, one size for a square stage: where sizes are any
// number (but never a multiple of avoid_multiple_of, so tiles cross the edges), from [7/8, 1) of the
// model's size -- below it, so that a tile as wide as the model's sizes allow (06's 128) still
// covers at least 7/8 of its edge tiles, and the reference, whose tiles fit the model's shape, is
// not made slower than a kernel of smaller tiles; where sizes are multiples of multiple_of (02: 32,
// whose tiles never cross an edge), from the multiples in [5/8, 9/8] of it (256: 160, 192, 224, 288). The model's figures stay
// comparable: every implementation (the reference too) is counted on the same drawn shape, the
// thresholds are ratios to the reference, and the figures are per multiply-add of that shape.
Shape drawn_shape(const StageSpec& spec, const Shape& model, uint64_t seed) {
  const int64_t m = spec.hidden ? std::max<int64_t>(1, spec.hidden->multiple_of) : 1;
  const int64_t avoid = spec.hidden ? spec.hidden->avoid_multiple_of : 0;
  uint64_t state = mix(seed);
  auto draw = [&](int64_t size) {
    const int64_t lo = m > 1 ? std::max<int64_t>(1, (size * 5 / 8 + m - 1) / m) : std::max<int64_t>(1, size * 7 / 8);
    const int64_t hi = m > 1 ? std::max(lo, size * 9 / 8 / m) : std::max(lo, size - 1);
    int64_t v = size;
    for (int tries = 0; tries < 1000; ++tries) {  // a range with no allowed size keeps the model's
      state = mix(state);
      const int64_t c = m * (lo + int64_t(state % uint64_t(hi - lo + 1)));
      if (c != size && (avoid == 0 || c % avoid != 0)) return c;
    }
    return v;
  };
  if (spec.api == "square") {
    const int64_t w = draw(model.J);
    return {w, w, w};
  }
  const int64_t J = draw(model.J), K = draw(model.K), L = draw(model.L);
  return {J, K, L};
}

int run(int argc, char** argv, ResultWriter& r) {
  ::signal(SIGPIPE, SIG_IGN);  // a worker that is gone is an answer, not the judge's end
  CLI::App app{"tilelab judge: checks (and times) one implementation of one stage on one dataset"};
  std::string worker_path, reference_path, spec_path, dataset_dir, check = "correct", json_path;
  int hidden_index = -1;
  uint64_t seed = 0;
  double timeout = 0;
  app.add_option("--worker", worker_path, "the worker that runs the implementation (runners/run-<impl>-<stage>-<backend>)")
      ->required();
  app.add_option("--reference-worker", reference_path,
                 "the reference worker of a timed check (default: ref-<stage>-<backend> beside this judge)");
  app.add_option("--spec", spec_path, "the stage's resolved spec, <build>/generated/stages/<stage>.json")->required();
  auto* ds_opt = app.add_option("--dataset", dataset_dir, "dataset folder (M.npy N.npy P.npy meta.json)");
  auto* hid_opt = app.add_option("--hidden", hidden_index, "index of a hidden dataset, made in memory");
  std::vector<int64_t> shape;
  auto* shape_opt = app.add_option("--shape", shape, "J K L: a normal dataset of this shape, made in memory (bench)")
                        ->expected(3);
  shape_opt->excludes(ds_opt)->excludes(hid_opt);
  auto* seed_opt = app.add_option("--seed", seed,
                                  "grading seed: --hidden's datasets; with --dataset, a sealed grade's values drawn for "
                                  "it (graded_spec; none: a student's own check); data seed for --shape");
  ds_opt->excludes(hid_opt);
  app.add_option("--check", check, "correct or perf")->check(CLI::IsMember({"correct", "perf"}));
  app.add_option("--json", json_path, "where to write the JSON result");
  app.add_option("--timeout", timeout, "seconds before the run is ended as a timeout (0: none)");
  LaunchOptions launch;
  app.add_flag("--sealed", launch.sealed,
               "a grading seed is set: refuse to run the code under test where it cannot be confined (no Landlock)");
  app.add_flag("--tool-attached", launch.tool_attached,
               "the worker runs under compute-sanitizer: allow its injected library's socket and /tmp files");
  bool draw_shape = false;
  app.add_flag("--draw-shape", draw_shape,
               "with --shape: the emulator's performance check, on a shape drawn near J K L from --seed and the "
               "worker's digest (drawn_shape); the check is still named by J K L")
      ->needs(shape_opt);
  std::vector<std::string> backend_facts;
  app.add_option("--backend-facts", backend_facts,
                 "NAME=FILE: the emulator's performance check: nvcc's back end on implementation NAME's file (the "
                 "facts tilelab.run.sass_facts wrote at build time), shown in its model; repeatable");
  bool every_block = false;
  app.add_flag("--count-every-block", every_block,
               "the emulator's count build counts every block, not a sample: exact counts (predict-then-measure)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    if (rc == 0) return 0;
    // The grader's own command line is bad (e.g. a --seed that is not a number): a bad_input result
    // is still written where --json says, so the check is reported as a grading error and never
    // as a check that died without a result (the student's crash).
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--json" && i + 1 < argc) g_result_path = argv[i + 1];
      else if (a.rfind("--json=", 0) == 0) g_result_path = a.substr(7);
    }
    base_result(r, "?", "?", "?");
    return finish(r, kBadInput, std::string("the grader's command line for this check is bad: ") + e.what());
  }
  g_result_path = json_path;
  set_launch_options(launch);
  if (dataset_dir.empty() && hidden_index < 0 && shape.empty()) {
    base_result(r, "?", "?", check);
    return finish(r, kBadInput, "the grader's command line for this check is bad: give --dataset DIR, "
                                "--hidden INDEX --seed S, or --shape J K L");
  }

  std::string stage_id = "?";
  std::string dataset_name = hidden_index >= 0 ? "hidden" + std::to_string(hidden_index)
                             : !shape.empty()  ? "shape"
                                               : std::filesystem::path(dataset_dir).filename().string();
  base_result(r, stage_id, dataset_name, check);
  StageSpec spec;
  Dataset d;
  try {
    spec = load_stage_spec(spec_path);
    g_host_function = spec.host_function;
    r.set(rf::stage, stage_id = spec.id);
    if (hidden_index >= 0) {
      d = make_dataset(spec.hidden_dataset(seed, hidden_index));
    } else if (!shape.empty()) {
      DatasetSpec ds;
      ds.stage = spec.id;
      ds.shape = {shape[0], shape[1], shape[2]};
      if (draw_shape && ds.shape.J > 0 && ds.shape.K > 0 && ds.shape.L > 0) {
        r.at(rf::model_shape).set(schema::shape::J, ds.shape.J).set(schema::shape::K, ds.shape.K).set(schema::shape::L, ds.shape.L);
        ds.shape = drawn_shape(spec, ds.shape, file_digest(worker_path) ^ mix(seed ^ 0x5348415045ull));
      }
      ds.name = ds.shape.str();
      ds.seed = seed ? seed : 1;
      if (ds.shape.J < 1 || ds.shape.K < 1 || ds.shape.L < 1) throw BadInput("--shape: sizes must be >= 1");
      d = make_dataset(ds);
    } else {
      d = read_dataset(dataset_dir);
    }
    r.set(rf::dataset, d.spec.name);
    g_laps(r, "dataset");
    if (spec.api == "square" && !d.spec.shape.square())
      throw BadInput("stage " + spec.id + " takes square matrices; dataset is " + d.spec.shape.str());
  } catch (const BadInput& e) {
    return finish(r, kBadInput, e.what());
  }
  const Shape& s = d.spec.shape;
  r.at(rf::shape).set(schema::shape::J, s.J).set(schema::shape::K, s.K).set(schema::shape::L, s.L);
  // The backend from the runner's own name (run-<impl>-<stage>-<backend>), not from its greeting.
  const std::string worker_file = std::filesystem::path(worker_path).filename().string();
  const size_t at = worker_file.rfind("-" + spec.id + "-");
  const std::string backend = at == std::string::npos ? "" : worker_file.substr(at + spec.id.size() + 2);
  const bool emulated = backend.rfind("emu", 0) == 0;  // the emulator runs everywhere, on the CPU
  // Every worker but the emulator's may run on the GPU: the machine's GPU lock is shared from before
  // they start until they are reaped (declared before the Session, so it outlives the workers), and
  // held alone around the timing loop (Session::time).
  std::optional<GpuLock> gpu_lock;
  if (!emulated) {
    try {
      gpu_lock.emplace(kGpuLockPath);
      gpu_lock->share();
    } catch (const std::system_error& e) {
      return finish(r, kError, std::string("runner error: cannot share the GPU: ") + e.what());
    }
    g_laps(r, "gpu_share");
  }
  try {
    Session w(worker_path, timeout);
    std::map<std::string, std::string> facts;
    for (const std::string& nf : backend_facts)
      if (const size_t eq = nf.find('='); eq != std::string::npos) facts[nf.substr(0, eq)] = nf.substr(eq + 1);
    w.set_backend_facts(std::move(facts));
    if (gpu_lock) w.set_gpu_lock(&*gpu_lock);
    // Greeted first: a backend that cannot run here (no GPU) says so before the references are
    // computed (at 4096^3 they take the CPU about a minute, which a skip does not need).
    const nlohmann::json hello = w.hello();
    g_laps(r, "worker_start");
    r.set(rf::confinement, w.confinement());
    if (!Session::confined(r.get(rf::confinement))) return finish(r, kError, "runner error: the worker is not confined (" + r.get(rf::confinement).dump() + ")");
    r.set(rf::impl, w.impl());
    r.set(rf::backend, w.backend());
    const std::string unavailable = hello.value("unavailable", std::string());
    if (!unavailable.empty()) {
      // The worker runs the code under test, which may say "no GPU here" to be skipped (a skipped
      // check's points are left out). Believed only when the grader's own worker of the same backend
      // (the stage's reference worker, trusted code) cannot run here either.
      const auto ref = std::filesystem::read_symlink("/proc/self/exe").parent_path() / ("ref-" + spec.id + "-gpu");
      if (!emulated && (!std::filesystem::exists(ref) ||
                        !Worker(ref.string(), std::chrono::steady_clock::now() + std::chrono::seconds(120))
                             .call({{"op", "hello"}})
                             .head.value("unavailable", std::string("?"))
                             .empty()))
        return finish(r, kSkipped, unavailable);
      set_hint(r, hints::kCrash);
      return finish(r, kError, "your program said it cannot run here (\"" + unavailable.substr(0, 200) +
                                   "\"), but the grader's own program runs on this machine: the code under test may not "
                                   "decide whether it is checked");
    }
    r.set(rf::device, hello.value("device", nlohmann::json::object()));

    // Everything the verdict is judged against is made here, in the judge's own process.
    // A performance dataset's references were made with it, once (has_perf_references); a dataset
    // without them (a hidden one, --shape, an older datasets folder) has them computed here.
    const std::vector<double>& absMN = abs_product(d);
    // A public dataset's M, N and P are published: in a sealed grade (a grading seed given) its
    // checks also run the code on values of the same shape drawn for the grade (graded_spec), whose
    // product no file written before it can hold (docs/integrity.md, "Public values are not the
    // product"). Without a seed (a student's own check) the fresh inputs are the published ones.
    const bool graded = !dataset_dir.empty() && seed_opt->count() > 0;
    Dataset fresh;  // its absMN stays empty where there is no timed check and no graded values
    if (check == "perf") {  // the timed code must still compute: fresh inputs of the same shape
      g_laps(r, "references");
      const bool stored = !graded && !dataset_dir.empty() && has_perf_references(dataset_dir);
      fresh = stored   ? read_dataset(std::filesystem::path(dataset_dir) / "fresh")
              : graded ? make_dataset(graded_spec(d.spec, seed))
                       : make_dataset(fresh_spec(d.spec));
      g_laps(r, "fresh_dataset");
      abs_product(fresh);
    } else if (graded) {
      fresh = make_dataset(graded_spec(d.spec, seed));
      abs_product(fresh);
      g_laps(r, "graded_dataset");
    }
    if (check == "perf")
      // Beside the judge, not beside the worker: a grading tree that takes the kit prebuilt
      // (TILELAB_KIT) has its workers in its own runners/ and the judge and the references in the
      // kit's, which no submission's process can write.
      w.set_reference(!reference_path.empty() ? reference_path
                      : (std::filesystem::read_symlink("/proc/self/exe").parent_path() /
                         ("ref-" + spec.id + "-" + w.backend())).string());
    w.set_precision(spec.precision);
    g_laps(r, check == "perf" ? "fresh_references" : "references");
    w.start_clock(seed, every_block);
    return run_checks(w, r, spec, d, absMN, fresh, fresh.absMN, check);
  } catch (const WorkerGone& g) {
    return worker_gone(r, g, timeout, s, spec.tile);
  } catch (const BadInput& e) {
    return finish(r, kBadInput, e.what());
  } catch (const std::exception& e) {
    return finish(r, kError, std::string("runner error: ") + e.what());
  }
}
}  // namespace
}  // namespace tilelab::judge

// The result is written here, after run() has returned and its workers are killed and reaped, so
// nothing a worker left running can write after it.
int main(int argc, char** argv) {
  // No process of the same user (a worker of this or another grade) may read the judge's memory,
  // its environment or its open files through /proc or ptrace.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  nlohmann::json doc;
  tilelab::judge::ResultWriter r(doc);
  const int rc = tilelab::judge::run(argc, argv, r);
  if (!tilelab::judge::g_result_path.empty() && doc.contains("verdict")) tilelab::write_result(tilelab::judge::g_result_path, doc);
  return rc;
}
