// Accelerator back ends as plugins: the OpenCL and CUDA devices live in their
// own shared objects (libhetla_opencl.so, libhetla_cuda.so), opened with
// dlopen the first time a device of that kind is asked for or probed. The core
// library then links no GPU runtime: it loads in a few milliseconds, runs on
// machines without CUDA or an OpenCL ICD, and one installed build serves
// both kinds of machine.
//
// Where a plugin is looked for, in order: each directory of HETLA_PLUGIN_PATH
// (colon separated), then the directory libhetla itself was loaded from (the
// build tree's src/, or P/lib after an install).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "devices/device.hpp"
#include "devices/spec.hpp"

namespace hetla::dev {

/// What a plugin exports, from `extern "C" const PluginApi* hetla_plugin_<kind>()`.
/// Both sides are built from this header by the same compiler; `abi` guards
/// against a plugin left over from another version.
struct PluginApi {
  static constexpr int kAbi = 1;
  int abi = kAbi;
  const char* kind;  // "opencl", "cuda"
  /// Opens the devices named by `which` ("0", "all", "0:mem=1G", ...); throws
  /// std::invalid_argument with a message for the user.
  std::vector<std::shared_ptr<Device>> (*make_devices)(const std::string& which);
  /// The devices it can see, for `hetla info` (empty when none).
  std::vector<DeviceInfo> (*probe)();
};

/// The entry table of plugin `kind`: what its `extern "C" const void*
/// hetla_plugin_<kind>()` returns, loaded on first use and never unloaded.
/// Every table starts with `int abi`; the caller checks it and casts. Throws
/// std::invalid_argument naming the file and the loader's reason.
const void* plugin_entry(const std::string& kind);

/// The back ends this build has plugins for ("opencl", "cuda"), loaded or not.
const std::vector<std::string>& plugin_kinds();

/// The plugin for `kind`, loaded on first use (never unloaded: its devices
/// and their code must outlive every runtime). Throws std::invalid_argument
/// naming the file and the loader's reason when it cannot be loaded.
const PluginApi& plugin(const std::string& kind);

/// One line of `hetla info`: a plugin, where it was found, whether it loaded.
struct PluginStatus {
  std::string kind;
  bool loaded = false;
  std::string path;    // the file that loaded, or the places tried
  std::string reason;  // why not ("" when loaded)
};
/// Tries to load every plugin of this build and reports each.
std::vector<PluginStatus> plugin_status();

/// The directories searched, in order (HETLA_PLUGIN_PATH, then libhetla's own).
std::vector<std::string> plugin_dirs();

}  // namespace hetla::dev
