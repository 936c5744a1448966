// A ScaLAPACK array descriptor (DESC: dtype, ctxt, m, n, mb, nb, rsrc, csrc,
// lld) and the one layout hetla's distributed matrices share with it.
#pragma once

namespace hetla::scalapack {

/// The process's place in a BLACS grid (Cblacs_gridinfo).
struct Process {
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
};

struct Desc {
  int dtype, ctxt, m, n, mb, nb, rsrc, csrc, lld;
  explicit Desc(const int* d)
      : dtype(d[0]), ctxt(d[1]), m(d[2]), n(d[3]), mb(d[4]), nb(d[5]), rsrc(d[6]), csrc(d[7]), lld(d[8]) {}

  /// Why hetla cannot run on the rows x cols submatrix at (i, j) (1-based)
  /// of this array, or nullptr. hetla's layout: dense block-cyclic (dtype
  /// 1), square blocks, first block on process (0, 0), the submatrix at
  /// (1, 1); anything ScaLAPACK would report as invalid (sizes, lld) is also
  /// left to it.
  const char* unsupported(int i, int j, int rows, int cols, const Process& p) const;
};

/// The checks a solve (p?potrs, p?posv, p?getrs, p?gesv) makes of A (N x N
/// at ia, ja) and B (N x nrhs at ib, jb): why hetla cannot run it, or nullptr.
const char* solve_unsupported(int N, int nrhs, const Desc& A, int ia, int ja, const Desc& B, int ib, int jb,
                              const Process& p);

}  // namespace hetla::scalapack
