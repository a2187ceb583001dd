// The verdict on a worker that did not answer: hung, too slow, crashed, exited, sandboxed, or
// garbled its channel.
#pragma once
#include <nlohmann/json.hpp>

#include "judge_result.hpp"  // ResultWriter
#include "worker_client.hpp"  // WorkerGone
#include "tilelab/dataset.hpp"  // Shape

namespace tilelab::judge {

// A worker that did not answer: hung, crashed, exited or garbled its channel.
int worker_gone(ResultWriter& r, const WorkerGone& g, double timeout, const Shape& s, int tile);

}  // namespace tilelab::judge
