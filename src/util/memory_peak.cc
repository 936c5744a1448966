#include "util/memory_peak.hpp"

#include <cstdio>
#include <cstring>

namespace hetla::util {

namespace {
// A "Name:   N kB" line of /proc/self/status, in bytes.
std::optional<int64_t> status_bytes(const char* name) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return std::nullopt;
  char line[256];
  std::optional<int64_t> bytes;
  const std::size_t len = std::strlen(name);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, name, len) == 0 && line[len] == ':') {
      long long kb = 0;
      if (std::sscanf(line + len + 1, "%lld", &kb) == 1) bytes = static_cast<int64_t>(kb) * 1024;
      break;
    }
  std::fclose(f);
  return bytes;
}
}  // namespace

void MemoryPeak::start() {
  start_rss_.reset();
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return;
  const bool reset = std::fputs("5", f) >= 0;
  if (std::fclose(f) != 0 || !reset) return;
  start_rss_ = status_bytes("VmRSS");
}

std::optional<int64_t> MemoryPeak::growth() const {
  if (!start_rss_) return std::nullopt;
  const auto hwm = status_bytes("VmHWM");
  if (!hwm) return std::nullopt;
  return *hwm > *start_rss_ ? *hwm - *start_rss_ : 0;
}

std::optional<int64_t> MemoryPeak::peak() { return status_bytes("VmHWM"); }

}  // namespace hetla::util
