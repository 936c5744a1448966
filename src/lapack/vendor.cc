#include "lapack/vendor.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

extern "C" void xerbla_(const char* srname, const int* info, std::size_t srname_len);

namespace hetla::lapack {
namespace {
bool same_object(void* a, void* b) {
  Dl_info ia{}, ib{};
  return dladdr(a, &ia) && dladdr(b, &ib) && ia.dli_fbase == ib.dli_fbase;
}

/// The definition of `name` that is not ours, or null.
void* other_symbol(const std::string& name) {
  void* self = reinterpret_cast<void*>(&vendor_symbol);
  void* f = dlsym(RTLD_NEXT, name.c_str());
  if (!f) {  // the vendor precedes us (linked before -lhetla_lapack): its definition is found first
    f = dlsym(RTLD_DEFAULT, name.c_str());
    if (f && same_object(f, self)) f = nullptr;
  }
  return f;
}

/// Whether ilaver_ (three INTEGER outputs: LAPACK's version) writes 64-bit
/// integers: an LP64 one writes 32-bit halves and leaves the -1 high halves.
[[maybe_unused]] bool writes_64bit_integers(void* ilaver) {  // unused in sanitized builds (open_ilp64)
  int64_t v[3] = {-1, -1, -1};
  reinterpret_cast<void (*)(int64_t*, int64_t*, int64_t*)>(ilaver)(&v[0], &v[1], &v[2]);
  return v[0] >= 3 && v[0] < 100 && v[1] >= 0 && v[1] < 100 && v[2] >= 0 && v[2] < 100;
}

struct Vendor64 {
  void* lib = nullptr;         // opened privately: its names take 64-bit integers
  bool process_names = false;  // the process defines the _64_ names
  std::string description = "LP64 vendor (32-bit sizes; larger ones on hetla's path)";
};

/// Opens `path` privately and checks that it is an ILP64 LAPACK; null, with
/// a message when `loud`, otherwise.
void* open_ilp64(const char* path, bool loud) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizers' runtimes refuse RTLD_DEEPBIND, which the plain-named
  // ILP64 library needs; sanitized builds narrow onto the LP64 vendor.
  if (loud) std::fprintf(stderr, "hetla_lapack: not opening %s in a sanitized build\n", path);
  return nullptr;
#else
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!lib) {
    if (loud) std::fprintf(stderr, "hetla_lapack: cannot open HETLA_LAPACK_VENDOR64 %s: %s\n", path, dlerror());
    return nullptr;
  }
  void* ilaver = dlsym(lib, "ilaver_64_");
  if (!ilaver) ilaver = dlsym(lib, "ilaver_");
  if (!ilaver || !writes_64bit_integers(ilaver)) {
    std::fprintf(stderr, "hetla_lapack: %s is not an ILP64 LAPACK (its ilaver_ %s); not used for the _64 names\n", path,
                 ilaver ? "writes 32-bit integers" : "is missing");
    dlclose(lib);
    return nullptr;
  }
  return lib;
#endif
}

Vendor64 find_vendor64() {
  Vendor64 v;
  if (const char* env = std::getenv("HETLA_LAPACK_VENDOR64")) {
    if (*env && std::string(env) != "none" && (v.lib = open_ilp64(env, true)))
      v.description = std::string(env) + " (ILP64)";
    return v;
  }
  if (other_symbol("dpotrf_64_") && other_symbol("dgemm_64_")) {
    v.process_names = true;
    v.description = "the process's _64_ names (ILP64)";
    return v;
  }
  if ((v.lib = open_ilp64("libopenblas64.so.0", false))) v.description = "libopenblas64.so.0 (ILP64)";
  return v;
}
const Vendor64& vendor64() {
  static const Vendor64 v = find_vendor64();
  return v;
}
}  // namespace

void* vendor_symbol(const std::string& name) {
  void* f = other_symbol(name);
  if (!f) {
    // also built into libhetla_scalapack, whose vendor is ScaLAPACK
    std::fprintf(stderr, "hetla: no vendor library after hetla's defines %s (link LAPACK/BLAS after "
                 "-lhetla_lapack, ScaLAPACK after -lhetla_scalapack)\n", name.c_str());
    std::abort();
  }
  return f;
}

void* vendor64_symbol(const std::string& base) {
  const Vendor64& v = vendor64();
  if (v.process_names) return other_symbol(base + "_64_");
  if (!v.lib) return nullptr;
  void* f = dlsym(v.lib, (base + "_64_").c_str());
  return f ? f : dlsym(v.lib, (base + "_").c_str());
}

const char* vendor64_description() noexcept { return vendor64().description.c_str(); }

void xerbla64(const char* name, int64_t pos, std::size_t len) {
  using Xerbla64 = void(const char*, const int64_t*, std::size_t);
  static Xerbla64* const ilp64 = [] {
    void* f = dlsym(RTLD_DEFAULT, "xerbla_64_");
    if (!f && vendor64().lib) f = dlsym(vendor64().lib, "xerbla_");
    return reinterpret_cast<Xerbla64*>(f);
  }();
  if (ilp64) return ilp64(name, &pos, len);
  const int p = static_cast<int>(pos);
  xerbla_(name, &p, len);
}

}  // namespace hetla::lapack

extern "C" __attribute__((visibility("default"))) const char* hetla_lapack_vendor64(void) {
  return hetla::lapack::vendor64_description();
}
