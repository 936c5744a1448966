#include "devices/plugin.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace hetla::dev {
namespace {

struct Loaded {
  const void* api = nullptr;  // the entry table
  std::string path;    // the file that loaded
  std::string reason;  // why none did
};

std::mutex& plugin_mutex() {
  static std::mutex m;
  return m;
}

// A plugin is tried once per process: a missing one stays missing (dlopen of
// a file that is not there costs a directory walk each time).
std::map<std::string, Loaded>& loaded() {
  static std::map<std::string, Loaded> m;
  return m;
}

std::string own_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&plugin_dirs), &info) == 0 || !info.dli_fname) return {};
  std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

Loaded load(const std::string& kind) {
  Loaded out;
  const std::string file = "libhetla_" + kind + ".so";
  const std::string entry = "hetla_plugin_" + kind;
  std::string tried;
  for (const std::string& dir : plugin_dirs()) {
    const std::string path = dir + "/" + file;
    // RTLD_LOCAL: the GPU runtime's symbols stay out of the global namespace.
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* err = dlerror();
      const std::string why = err ? err : "dlopen failed";
      // A file that exists but does not load (its own libraries missing) is
      // the answer: say so rather than looking further.
      if (why.find("No such file") == std::string::npos) {
        out.path = path;
        out.reason = why;
        return out;
      }
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    using Entry = const void* (*)();
    auto fn = reinterpret_cast<Entry>(dlsym(h, entry.c_str()));
    const void* api = fn ? fn() : nullptr;
    out.path = path;
    if (!api) {
      out.reason = "no " + entry + "() in it";
    } else if (const int abi = *static_cast<const int*>(api); abi != PluginApi::kAbi) {
      out.reason = "plugin ABI " + std::to_string(abi) + ", this libhetla needs " +
                   std::to_string(PluginApi::kAbi) + " (a plugin of another hetla version?)";
    } else {
      out.api = api;
    }
    return out;
  }
  out.path = tried;
  out.reason = file + " not found (looked in " + (tried.empty() ? std::string("no directory") : tried) +
               "; set HETLA_PLUGIN_PATH)";
  return out;
}

const Loaded& get(const std::string& kind) {
  std::lock_guard<std::mutex> lock(plugin_mutex());
  auto it = loaded().find(kind);
  if (it == loaded().end()) it = loaded().emplace(kind, load(kind)).first;
  return it->second;
}

}  // namespace

const std::vector<std::string>& plugin_kinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> k;
#ifdef HETLA_PLUGIN_OPENCL
    k.push_back("opencl");
#endif
#ifdef HETLA_PLUGIN_CUDA
    k.push_back("cuda");
#endif
    return k;
  }();
  return kinds;
}

std::vector<std::string> plugin_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("HETLA_PLUGIN_PATH")) {
    std::stringstream ss(env);
    for (std::string d; std::getline(ss, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  if (std::string own = own_dir(); !own.empty()) dirs.push_back(own);
  return dirs;
}

const void* plugin_entry(const std::string& kind) {
  const Loaded& l = get(kind);
  if (!l.api) {
    if (l.path.empty() && l.reason.find("not found") == std::string::npos)
      throw std::invalid_argument("the " + kind + " plugin: " + l.reason);
    throw std::invalid_argument("the " + kind + " back end could not be loaded: " +
                                (l.reason.find("not found") != std::string::npos ? l.reason : l.path + ": " + l.reason));
  }
  return l.api;
}

const PluginApi& plugin(const std::string& kind) { return *static_cast<const PluginApi*>(plugin_entry(kind)); }

std::vector<PluginStatus> plugin_status() {
  std::vector<PluginStatus> out;
  for (const std::string& kind : plugin_kinds()) {
    const Loaded& l = get(kind);
    out.push_back({kind, l.api != nullptr, l.path, l.reason});
  }
  return out;
}

}  // namespace hetla::dev
