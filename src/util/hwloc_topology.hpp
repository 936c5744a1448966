// Machine topology (cores, binding) through hwloc when it was found at build
// time. Cores are those of the process's CPU set (its affinity mask: taskset,
// Slurm, mpirun --bind-to, cgroups cpusets), read from the calling thread
// when the topology is first used and again by refresh_cpu_set() (every new
// library context): worker i is pinned to the i-th core of that set, and
// only to its PUs inside the set.
#pragma once
#include <mutex>
#include <string>
#include <vector>

namespace hetla::util {

class Topology {
 public:
  static Topology& get();
  /// Cores in the process's CPU set (at least 1): the default worker count.
  int cores() const;
  /// Cores of the whole machine.
  int machine_cores() const { return machine_cores_; }
  int pus() const { return pus_; }
  std::string cpu_model() const { return model_; }
  /// Logical CPU numbers of the CPU set (as taskset -c lists them).
  std::vector<int> cpu_set() const;
  /// Reads the calling thread's affinity mask again (sched_getaffinity /
  /// hwloc_get_cpubind) and makes it the set the cores are taken from.
  void refresh_cpu_set();
  /// Binds the calling thread to the (core % cores())-th core of the CPU
  /// set, to its PUs inside the set; false if unsupported.
  bool bind_current_thread_to_core(int core);
  bool has_hwloc() const;

 private:
  friend class ScopedCoreBinding;
  Topology();
  ~Topology();
  void* topo_ = nullptr;
  int machine_cores_ = 1;
  int pus_ = 1;
  std::string model_;
  mutable std::mutex mutex_;                  // guards the CPU set below
  std::vector<int> cpus_;                     // logical CPUs in the set
  std::vector<void*> core_sets_;              // hwloc_bitmap_t per allowed core: its PUs in the set
  int allowed_cores_ = 1;
};

/// Binds the calling thread to the core-th core of the CPU set (the first
/// for 0) while it lives, then gives the thread back the binding it had: a
/// library call's caller is its worker 0 for the call's duration, but the
/// thread belongs to the user. core < 0, or no hwloc: does nothing.
class ScopedCoreBinding {
 public:
  explicit ScopedCoreBinding(int core);
  ~ScopedCoreBinding();
  ScopedCoreBinding(const ScopedCoreBinding&) = delete;
  ScopedCoreBinding& operator=(const ScopedCoreBinding&) = delete;

 private:
  void* saved_ = nullptr;  // the former binding (hwloc_bitmap_t); null: nothing to give back
};

}  // namespace hetla::util
