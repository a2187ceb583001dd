// The GPU, shared between the checks of every grade on one machine (docs/integrity.md, "The GPU
// between checks"): a readers-writer lock between processes, two flock(2)s on files at a known
// place (contract.toml [gpu_lock]). Every judge of a GPU check shares it from before its workers
// start until they are reaped, so no other check's kernels run on the GPU while a timing loop
// holds it alone; a timing loop holds it alone only from its warm-up to its last timed call.
//
// The gate (path + ".gate") gives a waiting timing loop the right of way: a sharer takes the gate
// only for a moment on its way in, a timing loop holds it while it waits for the checks already
// sharing to end, so no new check passes it. A judge gives up its share before it queues at the
// gate (a sharer never waits for the gate while sharing, so two timing loops cannot wait on each
// other); while it queues, the one holding the gate runs alone or waits for the others' checks.
//
// An flock belongs to an open file, so the kernel lets it go when the judge exits or is killed
// (and the judge's workers die with it: PR_SET_PDEATHSIG); a hung kernel holds it only until the
// check's timeout ends its judge. The files are opened close-on-exec and the judge closes every
// other descriptor before it starts a worker; a worker cannot open them (Landlock), so code under
// test can neither take nor give up a turn.
#pragma once
#include <string>

namespace tilelab::judge {

class GpuLock {
 public:
  // Opens (creates, readable by every user) path and path + ".gate"; throws std::system_error
  // when either cannot be opened.
  explicit GpuLock(const std::string& path);
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

  // Share the GPU (blocks while a timing loop holds it alone or waits for it).
  void share();
  // Have the GPU alone: gives up the share, queues at the gate, then waits until no other check
  // shares it. Returns the seconds it waited.
  double alone();
  // Back to sharing after alone(), letting the next in.
  void share_again();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int gpu_ = -1, gate_ = -1;
};

}  // namespace tilelab::judge
