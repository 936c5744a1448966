// The test executables' xerbla_: the vendor BLAS / LAPACK report an invalid
// argument through it, print a line and return without computing anything.
// A hetla kernel that passes the vendor an invalid argument is a wrong
// answer waiting to happen (a gathered panel's lda below its rows left
// geqrf's last panel unfactored, seen only as "On entry to ZGEQR2 parameter
// number 4 had an illegal value" in a soak's output), so here it fails the
// test that made the call. Linked into every executable of
// hetla_add_test_dir (an object, so that the executable defines the symbol
// and the vendor library's calls resolve to it, as LAPACK lets a program
// replace xerbla_); tests/lapack/ keep their own.
#include "common/vendor_xerbla.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <string>

namespace {
std::atomic<int> g_expecting{0}, g_reports{0}, g_last_position{0};
}

namespace hetla::test {
ExpectedVendorRejections::ExpectedVendorRejections() : start_(g_reports.load()) { ++g_expecting; }
ExpectedVendorRejections::~ExpectedVendorRejections() { --g_expecting; }
int ExpectedVendorRejections::count() const { return g_reports.load() - start_; }
int ExpectedVendorRejections::last_position() const { return g_last_position.load(); }
}  // namespace hetla::test

extern "C" void xerbla_(const char* name, const int* info, std::size_t len) {
  std::string routine(name, len);
  while (!routine.empty() && (routine.back() == ' ' || routine.back() == '\0')) routine.pop_back();
  std::fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", routine.c_str(), *info);
  g_last_position = *info;
  ++g_reports;
  if (g_expecting.load() == 0)
    ADD_FAILURE() << "the vendor's " << routine << " rejected its argument " << *info
                  << ": hetla passed an invalid argument to the vendor library";
}
