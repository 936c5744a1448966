// ScaLAPACK and BLACS (libscalapack-openmpi), the baseline of the distributed
// `hetla bench --grid`: their Fortran/C entry points, declared here (the
// Debian package ships no header), overloaded by precision. BLACS' default
// system context is MPI_COMM_WORLD, the communicator of hetla's grid, so no
// MPI type appears (src/mpi is the only includer of <mpi.h>).
#pragma once
#include <complex>

extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridexit(int context);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
void pspotrf_(const char* uplo, const int* n, float* a, const int* ia, const int* ja, const int* desca, int* info);
void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* info);
void pcpotrf_(const char* uplo, const int* n, std::complex<float>* a, const int* ia, const int* ja, const int* desca,
              int* info);
void pzpotrf_(const char* uplo, const int* n, std::complex<double>* a, const int* ia, const int* ja,
              const int* desca, int* info);
#define HETLA_PGETRF(name, T) \
  void name(const int* m, const int* n, T* a, const int* ia, const int* ja, const int* desca, int* ipiv, int* info);
HETLA_PGETRF(psgetrf_, float)
HETLA_PGETRF(pdgetrf_, double)
HETLA_PGETRF(pcgetrf_, std::complex<float>)
HETLA_PGETRF(pzgetrf_, std::complex<double>)
#undef HETLA_PGETRF
// lwork = -1: the optimal size in work[0] (a query; nothing is computed).
#define HETLA_PGEQRF(name, T)                                                                                    \
  void name(const int* m, const int* n, T* a, const int* ia, const int* ja, const int* desca, T* tau, T* work, \
            const int* lwork, int* info);
HETLA_PGEQRF(psgeqrf_, float)
HETLA_PGEQRF(pdgeqrf_, double)
HETLA_PGEQRF(pcgeqrf_, std::complex<float>)
HETLA_PGEQRF(pzgeqrf_, std::complex<double>)
#undef HETLA_PGEQRF
#define HETLA_PGEMM(name, T)                                                                                        \
  void name(const char* transa, const char* transb, const int* m, const int* n, const int* k, const T* alpha,        \
            const T* a, const int* ia, const int* ja, const int* desca, const T* b, const int* ib, const int* jb, \
            const int* descb, const T* beta, T* c, const int* ic, const int* jc, const int* descc);
HETLA_PGEMM(psgemm_, float)
HETLA_PGEMM(pdgemm_, double)
HETLA_PGEMM(pcgemm_, std::complex<float>)
HETLA_PGEMM(pzgemm_, std::complex<double>)
#undef HETLA_PGEMM
}

namespace hetla::cli::scalapack {

inline void potrf(const char* u, const int* n, float* a, const int* desc, int* info) {
  const int one = 1;
  pspotrf_(u, n, a, &one, &one, desc, info);
}
inline void potrf(const char* u, const int* n, double* a, const int* desc, int* info) {
  const int one = 1;
  pdpotrf_(u, n, a, &one, &one, desc, info);
}
inline void potrf(const char* u, const int* n, std::complex<float>* a, const int* desc, int* info) {
  const int one = 1;
  pcpotrf_(u, n, a, &one, &one, desc, info);
}
inline void potrf(const char* u, const int* n, std::complex<double>* a, const int* desc, int* info) {
  const int one = 1;
  pzpotrf_(u, n, a, &one, &one, desc, info);
}

/// ipiv: LOCr(m) + nb entries (ScaLAPACK's local pivots).
template <typename T> void getrf(int m, int n, T* a, const int* desc, int* ipiv, int* info) {
  const int one = 1;
  if constexpr (std::is_same_v<T, float>) psgetrf_(&m, &n, a, &one, &one, desc, ipiv, info);
  else if constexpr (std::is_same_v<T, double>) pdgetrf_(&m, &n, a, &one, &one, desc, ipiv, info);
  else if constexpr (std::is_same_v<T, std::complex<float>>) pcgetrf_(&m, &n, a, &one, &one, desc, ipiv, info);
  else pzgetrf_(&m, &n, a, &one, &one, desc, ipiv, info);
}

/// tau: LOCc(n) entries; work / lwork as ScaLAPACK's (lwork = -1: a query).
template <typename T> void geqrf(int m, int n, T* a, const int* desc, T* tau, T* work, int lwork, int* info) {
  const int one = 1;
  if constexpr (std::is_same_v<T, float>) psgeqrf_(&m, &n, a, &one, &one, desc, tau, work, &lwork, info);
  else if constexpr (std::is_same_v<T, double>) pdgeqrf_(&m, &n, a, &one, &one, desc, tau, work, &lwork, info);
  else if constexpr (std::is_same_v<T, std::complex<float>>) pcgeqrf_(&m, &n, a, &one, &one, desc, tau, work, &lwork, info);
  else pzgeqrf_(&m, &n, a, &one, &one, desc, tau, work, &lwork, info);
}

template <typename T>
void gemm(const char* ta, const char* tb, int m, int n, int k, T alpha, const T* a, const int* da, const T* b,
          const int* db, T beta, T* c, const int* dc) {
  const int one = 1;
  if constexpr (std::is_same_v<T, float>) psgemm_(ta, tb, &m, &n, &k, &alpha, a, &one, &one, da, b, &one, &one, db, &beta, c, &one, &one, dc);
  else if constexpr (std::is_same_v<T, double>) pdgemm_(ta, tb, &m, &n, &k, &alpha, a, &one, &one, da, b, &one, &one, db, &beta, c, &one, &one, dc);
  else if constexpr (std::is_same_v<T, std::complex<float>>) pcgemm_(ta, tb, &m, &n, &k, &alpha, a, &one, &one, da, b, &one, &one, db, &beta, c, &one, &one, dc);
  else pzgemm_(ta, tb, &m, &n, &k, &alpha, a, &one, &one, da, b, &one, &one, db, &beta, c, &one, &one, dc);
}

}  // namespace hetla::cli::scalapack
