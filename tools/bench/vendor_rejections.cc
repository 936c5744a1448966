// The CLI's xerbla_ (a program may replace LAPACK's, and the vendor library's
// calls then resolve to it): the line the vendor prints, and a count, so
// that `bench soak` takes a vendor call with an invalid argument for the
// mismatch it is. The vendor returns from such a call without computing
// anything, and a residual check need not notice (gels 153 x 216 in complex
// at nb 8 passed its check while geqrf's last panel went unfactored).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "bench/common.hpp"

namespace hetla::cli {
namespace {
std::atomic<int64_t> g_rejections{0};
}
int64_t vendor_rejections() { return g_rejections.load(); }
}  // namespace hetla::cli

extern "C" void xerbla_(const char* name, const int* info, std::size_t len) {
  std::string routine(name, len);
  while (!routine.empty() && (routine.back() == ' ' || routine.back() == '\0')) routine.pop_back();
  std::fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", routine.c_str(), *info);
  hetla::cli::g_rejections.fetch_add(1);
}
