#include "lapack/vendor.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace hetla::lapack {
namespace {
bool same_object(void* a, void* b) {
  Dl_info ia{}, ib{};
  return dladdr(a, &ia) && dladdr(b, &ib) && ia.dli_fbase == ib.dli_fbase;
}
}  // namespace

void* vendor_symbol(const std::string& name) {
  void* self = reinterpret_cast<void*>(&vendor_symbol);
  void* f = dlsym(RTLD_NEXT, name.c_str());
  if (!f) {  // the vendor precedes us (linked before -lhetla_lapack): its definition is found first
    f = dlsym(RTLD_DEFAULT, name.c_str());
    if (f && same_object(f, self)) f = nullptr;
  }
  if (!f) {
    // also built into libhetla_scalapack, whose vendor is ScaLAPACK
    std::fprintf(stderr, "hetla: no vendor library after hetla's defines %s (link LAPACK/BLAS after "
                 "-lhetla_lapack, ScaLAPACK after -lhetla_scalapack)\n", name.c_str());
    std::abort();
  }
  return f;
}

}  // namespace hetla::lapack
