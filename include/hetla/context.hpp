// Library-wide state: the runtime (worker threads) used by every call.
// A default context is created on first use; init()/finalize() give control.
#pragma once

namespace hetla {

struct Config {
  int num_threads = 0;     // workers incl. the calling thread; 0 = one per core
  bool pin_threads = true; // bind worker threads to cores (hwloc)
};

/// (Re)creates the library context; waits for and replaces any existing one.
void init(const Config& cfg = {});
/// Joins the worker threads; a later call creates a fresh default context.
void finalize();
/// Number of workers the current context runs with (creates it if needed).
int num_threads();

}  // namespace hetla
