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
  Topology();
  ~Topology();
  void* topo_ = nullptr;
  int cores_ = 1;
  int pus_ = 1;
  std::string model_;
};

}  // namespace hetla::util
