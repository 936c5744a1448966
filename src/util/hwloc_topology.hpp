// Machine topology (cores, binding) through hwloc when it was found at build time.
#pragma once
#include <string>

namespace hetla::util {

class Topology {
 public:
  static Topology& get();
  int cores() const { return cores_; }
  int pus() const { return pus_; }
  std::string cpu_model() const { return model_; }
  /// Binds the calling thread to core `core % cores()`; false if unsupported.
  bool bind_current_thread_to_core(int core);
  bool has_hwloc() const;

 private:
  friend class ScopedCoreBinding;
  Topology();
  ~Topology();
  void* topo_ = nullptr;
  int cores_ = 1;
  int pus_ = 1;
  std::string model_;
};

/// Binds the calling thread to core `core % cores()` while it lives, then
/// gives the thread back the binding it had: a library call's caller is its
/// worker 0 for the call's duration, but the thread belongs to the user.
/// core < 0, or no hwloc: does nothing.
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
