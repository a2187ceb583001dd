// nvcc's back end in the performance model's result (backend_facts.hpp).
#include "backend_facts.hpp"

#include <fstream>

#include "occupancy.hpp"
#include "tilelab/result_schema.hpp"

namespace tilelab {

nlohmann::json backend_of(const std::string& path, const nlohmann::json& counts, const ModelGpu& g) {
  namespace bf = schema::backend;
  nlohmann::json out;
  schema::Writer<schema::Backend> w(out);
  w.set(bf::read, false);
  if (path.empty()) {
    w.set(bf::why, "NVIDIA's compiler wheels were not found when this grading tree was configured");
    return out;
  }
  nlohmann::json doc;
  try {
    std::ifstream in(path);
    doc = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    w.set(bf::why, "no facts of nvcc's back end were written for this file");
    return out;
  }
  if (!doc.value("read", false)) {
    w.set(bf::why, doc.value("why", std::string("nvcc's back end was not read")));
    return out;
  }
  const std::string main = doc.value("main", std::string());
  const nlohmann::json& kernels = doc["kernels"];
  if (!kernels.is_object() || !kernels.contains(main)) {
    w.set(bf::why, "the facts name no kernel");
    return out;
  }
  const nlohmann::json& k = kernels[main];
  auto i = [&](const char* key) { return k.value(key, int64_t(0)); };
  w.set(bf::read, true)
      .set(bf::nvcc, doc.value("nvcc", std::string("nvcc")))
      .set(bf::kernel, k.value("name", main))
      .set(bf::kernels, int64_t(kernels.size()))
      .set(bf::registers_per_thread, i("registers"))
      .set(bf::spill_store_bytes, i("spill_store_bytes"))
      .set(bf::spill_load_bytes, i("spill_load_bytes"))
      .set(bf::local_bytes_per_thread, i("stack_frame_bytes"))
      .set(bf::static_shared_bytes, i("static_shared_bytes"))
      .set(bf::max_threads_per_block, i("max_threads_per_block"))
      .set(bf::hot_loop, k.value("hot_loop", nlohmann::json::object()));
  const double threads = counts.value("threads_per_block", 0.0);
  if (threads > 0) {
    // occupancy.hpp: the same function gives the model its blocks per SM (without the registers).
    const Occupancy o = occupancy(double(i("registers")), threads, counts.value("shared_bytes_per_block", 0.0), g);
    w.set(bf::blocks_per_sm, o.blocks_per_sm).set(bf::binding_limit, o.binding_limit).set(bf::limits, nlohmann::json(o.limits));
  }
  return out;
}

void attach_backend(nlohmann::json& model, const std::string& facts_path) {
  namespace pm = schema::perf_model;
  schema::Writer<schema::PerfModel> w(model);
  nlohmann::json b = backend_of(facts_path, model.value("counts", nlohmann::json::object()));
  w.set(pm::graded_by, b.value("read", false) ? "traffic+sass" : "traffic");
  w.set(pm::backend, std::move(b));
}

}  // namespace tilelab
