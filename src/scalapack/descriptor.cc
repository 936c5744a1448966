#include "scalapack/descriptor.hpp"

#include <algorithm>

#include "scalapack/blacs.hpp"

namespace hetla::scalapack {

const char* Desc::unsupported(int i, int j, int rows, int cols, const Process& p) const {
  if (dtype != 1) return "descriptor type is not 1 (dense block-cyclic)";
  if (mb != nb || nb < 1) return "blocks are not square (mb != nb)";
  if (rsrc != 0 || csrc != 0) return "first block not on process (0, 0) (rsrc, csrc)";
  if (i != 1 || j != 1) return "submatrix offset (ia, ja != 1)";
  if (rows > m || cols > n || m < 0 || n < 0) return "sizes beyond the array";
  const int zero = 0;
  if (lld < std::max(1, numroc_(&m, &mb, &p.myrow, &zero, &p.nprow))) return "lld below the local rows";
  return nullptr;
}

const char* solve_unsupported(int N, int nrhs, const Desc& A, int ia, int ja, const Desc& B, int ib, int jb,
                              const Process& p) {
  if (N < 0 || nrhs < 0) return "invalid argument";
  if (N == 0 || nrhs == 0) return "empty";
  if (B.ctxt != A.ctxt) return "A and B in different contexts";
  if (const char* why = A.unsupported(ia, ja, N, N, p)) return why;
  if (const char* why = B.unsupported(ib, jb, N, nrhs, p)) return why;
  if (B.nb != A.nb) return "B's blocks differ from A's";
  return nullptr;
}

}  // namespace hetla::scalapack
