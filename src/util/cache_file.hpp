// Where hetla keeps what it measured on this machine (tile sizes, capability
// weights, the model of this host): one directory, one rule.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

namespace hetla::util {

/// The file `name` of hetla's cache: the path in environment variable `env`
/// when set, else $XDG_CACHE_HOME/hetla/name, ~/.cache/hetla/name, or the
/// temporary directory's hetla/name.
inline std::string cache_file(const char* env, const char* name) {
  if (const char* p = std::getenv(env); p && *p) return p;
  std::filesystem::path base;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) base = x;
  else if (const char* h = std::getenv("HOME"); h && *h) base = std::filesystem::path(h) / ".cache";
  else base = std::filesystem::temp_directory_path();
  return (base / "hetla" / name).string();
}

}  // namespace hetla::util
