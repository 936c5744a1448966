#include "util/hwloc_topology.hpp"

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

Topology::Topology() {
  cores_ = pus_ = std::max(1u, std::thread::hardware_concurrency());
#ifdef HETLA_HAVE_HWLOC
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) {
    topo_ = t;
    int c = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    int p = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    if (c > 0) cores_ = c;
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
}

Topology::~Topology() {
#ifdef HETLA_HAVE_HWLOC
  if (topo_) hwloc_topology_destroy(static_cast<hwloc_topology_t>(topo_));
#endif
}

bool Topology::has_hwloc() const { return topo_ != nullptr; }

bool Topology::bind_current_thread_to_core(int core) {
#ifdef HETLA_HAVE_HWLOC
  if (!topo_) return false;
  auto t = static_cast<hwloc_topology_t>(topo_);
  hwloc_obj_t obj = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, core % cores_);
  if (!obj) return false;
  return hwloc_set_cpubind(t, obj->cpuset, HWLOC_CPUBIND_THREAD) == 0;
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
