// The worker: the only process that runs code under test (docs/integrity.md). The judge
// (judge.cpp) starts it -- fork, then exec of this program with --serve and the channel on fds 3
// and 4 (wire.hpp) -- and it answers the judge's requests through the backend, one at a time. It
// holds M and N as the judge sends them and nothing else: no dataset, no reference product, no
// judge code and no result file. A worker of the code under test links that code alone
// (TILELAB_UNDER_TEST); the reference worker links the stage's reference solution, the previous
// stage's, and the library (cuBLAS) the judge times them against.
#include <cstdio>
#include <cstring>

#include "backend.hpp"
#include "sandbox.hpp"
#include "tilelab/contract.hpp"
#include "wire.hpp"

namespace tilelab {
#ifdef TILELAB_UNDER_TEST
extern const Implementation tilelab_impl_under_test;
#endif
#ifdef TILELAB_HAS_REFERENCE
extern const Implementation tilelab_impl_reference;
#endif
#ifdef TILELAB_HAS_PREVIOUS
extern const Implementation tilelab_impl_previous;
#endif

namespace {

std::vector<const Implementation*> hosted() {
  std::vector<const Implementation*> v;
#ifdef TILELAB_UNDER_TEST
  v.push_back(&tilelab_impl_under_test);
#endif
#ifdef TILELAB_HAS_REFERENCE
  v.push_back(&tilelab_impl_reference);
#endif
#ifdef TILELAB_HAS_PREVIOUS
  v.push_back(&tilelab_impl_previous);
#endif
  return v;
}

const Implementation& find(const nlohmann::json& head) {
  const std::string name = head.value("impl", "");
  for (const Implementation* i : hosted())
    if (name == i->name) return *i;
  throw std::runtime_error("this worker has no implementation '" + name + "'");
}

Shape shape_of(const nlohmann::json& h) { return {h.at("J").get<int64_t>(), h.at("K").get<int64_t>(), h.at("L").get<int64_t>()}; }

Matrix matrix(std::vector<float>& data, int64_t rows, int64_t cols) {
  if (data.size() != size_t(rows * cols)) throw std::runtime_error("a matrix of the wrong size");
  Matrix m;
  m.rows = rows, m.cols = cols;
  m.data = std::move(data);
  return m;
}

bool reply(const nlohmann::json& head, const std::vector<const std::vector<float>*>& mats = {}) {
  return wire::send(wire::kWorkerOut, head, mats);
}

nlohmann::json outcome_head(const RunOutcome& o) {
  nlohmann::json h = {{"inputs_unchanged", o.inputs_unchanged}, {"launch", o.launch}};
  if (!o.host_timing.is_null()) h["host_timing"] = o.host_timing;
  return h;
}

// One request; false when the judge asked to stop.
void handle(Backend& backend, wire::Message& m) {
  const std::string op = m.head.value("op", "");
  if (op == "hello") {
    nlohmann::json h = {{"backend", backend.name()}, {"meaningful", backend.timings_meaningful()},
                        {"impls", nlohmann::json::array()}};
    for (const Implementation* i : hosted()) h["impls"].push_back(i->name);
#ifdef TILELAB_WITH_LIBRARY
    h["library"] = true;
#endif
    const std::string why = backend.unavailable();
    h["unavailable"] = why;
    if (why.empty()) h["device"] = backend.device();
    reply(h);
    return;
  }
  if (op == "sample_seed") {
    backend.set_sample_seed(m.head.at("seed").get<uint64_t>(), m.head.value("every_block", false));
    reply({});
    return;
  }
  if (op == "library_precision") {  // the stage's: cuBLAS FP32, or TF32 on tensor cores (07)
    backend.set_library_precision(m.head.at("precision").get<std::string>());
    reply({});
    return;
  }
  if (op == "findings") {
    reply({{"findings", backend.findings()}});
    return;
  }
  if (op == "time_once") {
    int64_t launches = -1;
    const double ms = backend.time_once(m.head.value("impl", "").empty() ? nullptr : &find(m.head), launches);
    reply({{"ms", ms}, {"launches", launches}});
    return;
  }
  if (op == "time_inputs") {
    backend.time_inputs(m.head.at("seed").get<uint64_t>());
    reply({});
    return;
  }
  if (op == "time_result") {
    const Matrix P = backend.time_result();
    reply({}, {&P.data});
    return;
  }
  if (op == "launch_config") {  // no matrices: the backend makes the timed shape's inputs itself
    reply({{"launch", backend.launch_config(find(m.head), shape_of(m.head), m.head.value("launch", 1),
                                            m.head.value("seed", uint64_t(1)))}});
    return;
  }
  if (op == "counts") {
    reply({{"counts", backend.counts(find(m.head))}});
    return;
  }
  const Shape s = shape_of(m.head);
  if (m.mats.size() != 2) throw std::runtime_error("M and N expected");
  const Matrix M = matrix(m.mats[0], s.J, s.K), N = matrix(m.mats[1], s.K, s.L);
  if (op == "run") {
    const RunOutcome o = backend.run(find(m.head), M, N, s, m.head.value("zero_P", false));
    reply(outcome_head(o), {&o.P.data});
  } else if (op == "host") {
    const RunOutcome o = backend.run_host(find(m.head), M, N, s);
    reply(outcome_head(o), {&o.P.data});
  } else if (op == "library") {
    const RunOutcome o = backend.run_library(M, N, s);
    if (o.P.data.empty()) reply({});
    else reply({}, {&o.P.data});
  } else if (op == "time_prepare") {
    backend.time_prepare(M, N, s);
    reply({});
  } else {
    throw std::runtime_error("unknown request '" + op + "'");
  }
}

int serve() {
  auto backend = make_backend();
  backend->on_fatal_findings = [](const nlohmann::json& found) { reply({{"fatal_findings", found}}); };
  // Before the first request, and so before any code under test is called (its static
  // initializers, which run earlier, are checked by the allow-list).
  try {
    backend->before_sandbox();
    enter_sandbox();
  } catch (const std::exception& e) {  // the machine's fault, never the submission's: say so
    wire::Message m;
    if (wire::receive(wire::kWorkerIn, m, wire::Deadline::max(), 0) == wire::Read::kOk)
      reply({{"error", std::string("runner error: ") + e.what()}});
    return kError;
  }
  const auto never = wire::Deadline::max();
  for (;;) {
    wire::Message m;
    if (wire::receive(wire::kWorkerIn, m, never, size_t(1) << 34) != wire::Read::kOk) return 0;  // the judge is done
    try {
      handle(*backend, m);
    } catch (const DeviceError& e) {
      reply({{"device_error", e.what()}});
    } catch (const std::exception& e) {
      reply({{"error", std::string("runner error: ") + e.what()}});
    }
  }
}

}  // namespace
}  // namespace tilelab

int main(int argc, char** argv) {
  if (argc != 2 || std::strcmp(argv[1], "--serve") != 0) {
    std::fprintf(stderr,
                 "%s is a tilelab worker: the judge starts it. Run a check with\n"
                 "  tilelab-judge --worker %s --spec SPEC --dataset DIR [--check correct|perf] [--json FILE]\n",
                 argv[0], argv[0]);
    return tilelab::kBadInput;
  }
  return tilelab::serve();
}
