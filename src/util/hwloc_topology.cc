#include "util/hwloc_topology.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <thread>

#ifdef HETLA_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace hetla::util {

Topology& Topology::get() {
  // Never destroyed: worker threads of a runtime that is itself a static may
  // still bind to cores while statics are torn down at exit.
  static Topology* t = new Topology;
  return *t;
}

namespace {

/// The calling thread's affinity mask as logical CPU numbers (empty if unreadable).
std::vector<int> thread_cpus() {
  std::vector<int> out;
  for (int ncpu = 1024; ncpu <= (1 << 16); ncpu *= 4) {
    cpu_set_t* set = CPU_ALLOC(ncpu);
    if (!set) return out;
    const std::size_t size = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      for (int c = 0; c < ncpu; ++c)
        if (CPU_ISSET_S(c, size, set)) out.push_back(c);
      CPU_FREE(set);
      return out;
    }
    CPU_FREE(set);
    if (errno != EINVAL) break;  // EINVAL: the kernel's mask is larger; try a larger set
  }
  return out;
}

}  // namespace

Topology::Topology() {
  machine_cores_ = pus_ = std::max(1u, std::thread::hardware_concurrency());
#ifdef HETLA_HAVE_HWLOC
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) {
    topo_ = t;
    int c = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    int p = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    if (c > 0) machine_cores_ = c;
    if (p > 0) pus_ = p;
    if (hwloc_obj_t m = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0))
      if (const char* s = hwloc_obj_get_info_by_name(m, "CPUModel")) model_ = s;
  }
#endif
  if (model_.empty()) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("model name", 0) == 0) {
        auto p = line.find(':');
        if (p != std::string::npos) model_ = line.substr(p + 2);
        break;
      }
  }
  refresh_cpu_set();
}

Topology::~Topology() {
#ifdef HETLA_HAVE_HWLOC
  for (void* b : core_sets_) hwloc_bitmap_free(static_cast<hwloc_bitmap_t>(b));
  if (topo_) hwloc_topology_destroy(static_cast<hwloc_topology_t>(topo_));
#endif
}

bool Topology::has_hwloc() const { return topo_ != nullptr; }

int Topology::cores() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return allowed_cores_;
}

std::vector<int> Topology::cpu_set() const {
  std::lock_guard<std::mutex> lk(mutex_);
  return cpus_;
}

void Topology::refresh_cpu_set() {
  std::vector<int> cpus = thread_cpus();
  std::lock_guard<std::mutex> lk(mutex_);
#ifdef HETLA_HAVE_HWLOC
  for (void* b : core_sets_) hwloc_bitmap_free(static_cast<hwloc_bitmap_t>(b));
  core_sets_.clear();
  if (topo_) {
    auto t = static_cast<hwloc_topology_t>(topo_);
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
    if (cpus.empty()) {  // unreadable: the whole machine
      hwloc_bitmap_copy(allowed, hwloc_topology_get_complete_cpuset(t));
    } else {
      for (int c : cpus) hwloc_bitmap_set(allowed, static_cast<unsigned>(c));
    }
    // The cores with PUs in the set, in the machine's order; each bound to
    // its PUs inside the set only.
    const int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
      if (!core || !core->cpuset || !hwloc_bitmap_intersects(core->cpuset, allowed)) continue;
      hwloc_bitmap_t pus = hwloc_bitmap_alloc();
      hwloc_bitmap_and(pus, core->cpuset, allowed);
      core_sets_.push_back(pus);
    }
    hwloc_bitmap_free(allowed);
  }
  if (!core_sets_.empty()) {
    allowed_cores_ = static_cast<int>(core_sets_.size());
  } else
#endif
  {  // no hwloc: every CPU of the set counts as a core
    allowed_cores_ = cpus.empty() ? machine_cores_ : std::min<int>(static_cast<int>(cpus.size()), pus_);
  }
  allowed_cores_ = std::max(1, allowed_cores_);
  cpus_ = std::move(cpus);
}

bool Topology::bind_current_thread_to_core(int core) {
#ifdef HETLA_HAVE_HWLOC
  if (!topo_ || core < 0) return false;
  std::lock_guard<std::mutex> lk(mutex_);
  if (core_sets_.empty()) return false;
  auto pus = static_cast<hwloc_bitmap_t>(core_sets_[static_cast<std::size_t>(core) % core_sets_.size()]);
  return hwloc_set_cpubind(static_cast<hwloc_topology_t>(topo_), pus, HWLOC_CPUBIND_THREAD) == 0;
#else
  (void)core;
  return false;
#endif
}

ScopedCoreBinding::ScopedCoreBinding(int core) {
#ifdef HETLA_HAVE_HWLOC
  Topology& topo = Topology::get();
  if (core < 0 || !topo.topo_) return;
  auto t = static_cast<hwloc_topology_t>(topo.topo_);
  hwloc_bitmap_t saved = hwloc_bitmap_alloc();
  if (!saved) return;
  if (hwloc_get_cpubind(t, saved, HWLOC_CPUBIND_THREAD) != 0 || !topo.bind_current_thread_to_core(core)) {
    hwloc_bitmap_free(saved);
    return;
  }
  saved_ = saved;
#else
  (void)core;
#endif
}

ScopedCoreBinding::~ScopedCoreBinding() {
#ifdef HETLA_HAVE_HWLOC
  if (!saved_) return;
  auto saved = static_cast<hwloc_bitmap_t>(saved_);
  hwloc_set_cpubind(static_cast<hwloc_topology_t>(Topology::get().topo_), saved, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(saved);
#endif
}

}  // namespace hetla::util
