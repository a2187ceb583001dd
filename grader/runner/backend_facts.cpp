// nvcc's back end in the performance model's result (backend_facts.hpp).
#include "backend_facts.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "occupancy.hpp"
#include "tilelab/result_schema.hpp"

namespace tilelab {

namespace {

// The facts document at `path` and the name of its main kernel (`main` empty and `why` set where
// there is none).
struct Facts {
  nlohmann::json doc;
  std::string main, why;
  const nlohmann::json& kernel() const { return doc.at("kernels").at(main); }
};

Facts read_facts(const std::string& path) {
  Facts f;
  if (path.empty()) {
    f.why = "NVIDIA's compiler wheels were not found when this grading tree was configured";
    return f;
  }
  try {
    std::ifstream in(path);
    f.doc = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    f.why = "no facts of nvcc's back end were written for this file";
    return f;
  }
  if (!f.doc.is_object() || !f.doc.value("read", false)) {
    f.why = f.doc.is_object() ? f.doc.value("why", std::string("nvcc's back end was not read")) : "the facts are not a document";
    return f;
  }
  const std::string main = f.doc.value("main", std::string());
  const auto kernels = f.doc.find("kernels");
  if (main.empty() || kernels == f.doc.end() || !kernels->is_object() || !kernels->contains(main) ||
      !(*kernels)[main].is_object()) {
    f.why = "the facts name no kernel";
    return f;
  }
  f.main = main;
  return f;
}

double number(const nlohmann::json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_number() ? o[key].get<double>() : 0.0;
}

}  // namespace

KernelResources resources_of(const std::string& path) {
  KernelResources r;
  const Facts f = read_facts(path);
  if (f.main.empty()) {
    r.why = f.why;
    return r;
  }
  const nlohmann::json& k = f.kernel();
  r.known = true;
  r.registers = number(k, "registers");
  const nlohmann::json loop = k.value("hot_loop", nlohmann::json::object());
  const double products = number(loop, "products");
  if (products > 0) {
    r.local_insts_per_product = (number(loop, "ldl") + number(loop, "stl")) / products;
    // A warp's local access of b bits a lane is 32 b / 8 bytes: b / 32 wavefronts of 128 bytes.
    double wavefronts = 0;
    for (const char* by_width : {"ldl_by_width", "stl_by_width"})
      if (loop.contains(by_width) && loop[by_width].is_object())
        for (const auto& [bits, n] : loop[by_width].items())
          if (n.is_number()) wavefronts += n.get<double>() * std::max(1.0, std::atof(bits.c_str()) / 32);
    r.local_wavefronts_per_product = wavefronts / products;
  }
  return r;
}

nlohmann::json backend_of(const std::string& path, const nlohmann::json& counts, const ModelGpu& g) {
  namespace bf = schema::backend;
  nlohmann::json out;
  schema::Writer<schema::Backend> w(out);
  w.set(bf::read, false);
  const Facts f = read_facts(path);
  if (f.main.empty()) {
    w.set(bf::why, f.why);
    return out;
  }
  const nlohmann::json& doc = f.doc;
  const nlohmann::json& kernels = doc.at("kernels");
  const std::string& main = f.main;
  const nlohmann::json& k = f.kernel();
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
    // occupancy.hpp: the same function, with the same registers, gives the model its blocks per SM.
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
