// Heterogeneous GEMM (seed 003): C = alpha op(A) op(B) + beta C with the
// columns of C split among the computing devices, each device one contiguous
// block sized by its weight: Options::weights when given, else the split
// `hetla tune --split` learned for this device set (interpolated in n), else
// each device's throughput measured on earlier large calls of this context
// (the time it took to finish its block), else the capability weights.
//  - Host cores on column-major data: the host block is cut into one slice
//    per host worker, each a single BLAS call over the full k (OpenBLAS packs
//    operands once per slice instead of once per tile: no loss from the split).
//  - Accelerators (and tile-storage matrices): the block is cut into tiles,
//    one task per (i, j, l) forced onto the device, so A is replicated tile by
//    tile and transfers of one tile column overlap the products of the last.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "hetla/blas3.hpp"
#include "memory/tile_block.hpp"
#include "context/context.hpp"
#include "tasks/blas3.hpp"
#include "tune/split_model.hpp"
#include "util/check_args.hpp"
#include "util/precision.hpp"

namespace hetla {

namespace detail {

namespace {
/// Device throughputs (flop/s of the whole device) measured on earlier gemm
/// calls of one runtime: the time each device took for its block, so the
/// next split equalises finish times under the conditions actually met
/// (transfers, contention, a mis-estimated rate). Guarded by the call mutex.
struct Learned {
  uint64_t runtime = 0;
  std::vector<double> capacity;  // by device id; 0 = not measured
};
Learned& learned() {
  static Learned l;
  return l;
}
}  // namespace

/// Per-device shares (indexed by device id, summing to 1).
/// `size`: the problem's n (cube root of m n k) for the tuned split model; 0 = none.
/// `fp64`: devices without double precision get nothing.
std::vector<double> split_shares(const rt::Runtime& rt, const std::string& spec, double size, bool fp64) {
  const int nd = rt.num_devices();
  std::vector<double> w(static_cast<std::size_t>(nd), 0.0);
  if (!spec.empty()) {
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.empty()) continue;
      const auto eq = item.find('=');
      if (eq == std::string::npos) throw std::invalid_argument("weights: expected name=value, got '" + item + "'");
      const std::string name = item.substr(0, eq);
      double v = 0;
      try {
        std::size_t used = 0;
        v = std::stod(item.substr(eq + 1), &used);
        if (used != item.size() - eq - 1) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        throw std::invalid_argument("weights: bad value in '" + item + "'");
      }
      if (!(v >= 0) || !std::isfinite(v))
        throw std::invalid_argument("weights: not a finite value >= 0 in '" + item + "'");
      int found = -1;
      for (int d = 0; d < nd; ++d)
        if (rt.device(d).name() == name) found = d;
      // "emu" names the only emulated device ("emu0") when there is one
      if (found < 0)
        for (int d = 0; d < nd; ++d)
          if (rt.device(d).name() == name + "0" && (d + 1 >= nd || rt.device(d + 1).name() != name + "1")) found = d;
      if (found < 0) throw std::invalid_argument("weights: no device '" + name + "' in this context");
      w[static_cast<std::size_t>(found)] += v;
    }
    if (std::accumulate(w.begin(), w.end(), 0.0) <= 0) throw std::invalid_argument("weights: all zero");
  } else if (auto tuned = size > 0 && nd > 1 ? tune::predict_split(rt, size) : std::nullopt) {
    w = *tuned;  // `hetla tune --split` measured this device set (seed 003 Table 2)
  } else {
    std::vector<int> workers(static_cast<std::size_t>(nd), 0);
    for (int k = 0; k < rt.num_workers(); ++k) ++workers[static_cast<std::size_t>(rt.device_of_worker(k))];
    const Learned& l = learned();
    const bool have = l.runtime == rt.id() && static_cast<int>(l.capacity.size()) == nd;
    for (int d = 0; d < nd; ++d) {
      if (d == 0 && nd > 1 && !rt.host_computes()) continue;
      const double measured = have ? l.capacity[static_cast<std::size_t>(d)] : 0.0;
      w[static_cast<std::size_t>(d)] =
          measured > 0 ? measured : rt.rate(d, dev::KernelId::Gemm) * std::max(1, workers[static_cast<std::size_t>(d)]);
    }
  }
  for (int d = 1; d < nd; ++d) {
    if (rt.device(d).can_run(dev::KernelId::Gemm, fp64)) continue;
    if (!spec.empty() && w[static_cast<std::size_t>(d)] > 0)
      throw std::invalid_argument("weights: device '" + rt.device(d).name() + "' cannot run this precision's GEMM");
    w[static_cast<std::size_t>(d)] = 0;
  }
  double total = std::accumulate(w.begin(), w.end(), 0.0);
  if (!(total > 0)) {  // nothing left (a host that does not compute, devices without fp64): the host does it
    w.assign(w.size(), 0.0);
    w[0] = total = 1;
  }
  for (double& x : w) x /= total;
  return w;
}

/// Column boundaries: device d computes columns [b[d], b[d+1]) of n, in
/// units of `unit` columns (the last unit may be partial).
std::vector<int64_t> split_bounds(const std::vector<double>& shares, int64_t n, int64_t unit) {
  const int64_t units = (n + unit - 1) / unit;
  std::vector<int64_t> b(shares.size() + 1, 0);
  double cum = 0;
  for (std::size_t d = 0; d < shares.size(); ++d) {
    cum += shares[d];
    b[d + 1] = std::min(n, static_cast<int64_t>(std::llround(cum * static_cast<double>(units))) * unit);
  }
  b.back() = n;
  return b;
}

/// Folds one call's per-device (flops, seconds from start to the device's
/// last task) into the learned throughputs. Calls too small to time are skipped.
void learn_split(const rt::Runtime& rt, const std::vector<double>& flops, const std::vector<double>& seconds) {
  const int nd = rt.num_devices();
  Learned& l = learned();
  if (l.runtime != rt.id() || static_cast<int>(l.capacity.size()) != nd)
    l = {rt.id(), std::vector<double>(static_cast<std::size_t>(nd), 0.0)};
  for (std::size_t d = 0; d < static_cast<std::size_t>(nd); ++d) {
    if (flops[d] < 2e8 || seconds[d] < 0.02) continue;  // overhead-dominated: no information
    const double c = flops[d] / seconds[d];
    l.capacity[d] = l.capacity[d] > 0 ? 0.5 * (l.capacity[d] + c) : c;
  }
}

}  // namespace detail

std::vector<DeviceShare> gemm_split(const Options& opts, double n, bool fp64) {
  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  const auto s = detail::split_shares(rt, opts.weights, n, fp64);
  std::vector<DeviceShare> out;
  for (int d = 0; d < rt.num_devices(); ++d) out.push_back({rt.device(d).name(), s[static_cast<std::size_t>(d)]});
  return out;
}

namespace {

void check_op(Op op, int arg, const std::string& name) {
  detail::require(op == Op::NoTrans || op == Op::Trans || op == Op::ConjTrans, arg, name,
                  "op must be NoTrans, Trans or ConjTrans");
}

template <typename T> std::optional<Tile<T>> whole_block(const Matrix<T>& M) {
  if (M.m() == 0 || M.n() == 0) return std::nullopt;
  return detail::as_block(M, 0, M.mt() - 1, 0, M.nt() - 1);
}

/// Host slices of columns [c0, c1) (or rows, when the block is taller than
/// wide): one BLAS call per host worker, equal work each. The tasks declare
/// no accesses: within this call nobody else touches these columns of C, A
/// and B are only read, and the host copy is valid (the previous call ended
/// with wait_all, which writes device data back).
template <typename T> void host_slices(rt::Runtime& rt, const tile::Dense<T>& g, int64_t c0, int64_t c1, int device,
                                       std::atomic<int64_t>* done = nullptr) {
  const int64_t ncols = c1 - c0;
  if (ncols <= 0) return;
  const double flops =
      2.0 * tile::flop_scale<T>() * static_cast<double>(g.m) * static_cast<double>(ncols) * static_cast<double>(g.k);
  // Below ~4 MFLOP per slice the task overhead and the packing dominate.
  const int64_t by_work = std::max<int64_t>(1, static_cast<int64_t>(flops / 4e6));
  const int64_t slices =
      std::min<int64_t>({static_cast<int64_t>(rt.num_host_workers()), by_work, std::max(g.m, ncols)});
  const bool by_rows = g.m > ncols;
  const int64_t len = by_rows ? g.m : ncols;
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t lo = len * s / slices, hi = len * (s + 1) / slices;
    if (hi <= lo) continue;
    tile::Dense<T> p = g;
    if (by_rows) {
      p.m = hi - lo;
      p.n = ncols;
      p.A = g.opa == Op::NoTrans ? g.A + lo : g.A + lo * g.lda;
      p.B = g.opb == Op::NoTrans ? g.B + c0 * g.ldb : g.B + c0;
      p.C = g.C + lo + c0 * g.ldc;
    } else {
      p.n = hi - lo;
      p.B = g.opb == Op::NoTrans ? g.B + (c0 + lo) * g.ldb : g.B + (c0 + lo);
      p.C = g.C + (c0 + lo) * g.ldc;
    }
    tile::gemm_slice(rt, p, device, done);
  }
}

/// Tile tasks for C columns [c0, c1) on `device` (tile column granularity of
/// the given matrices: c0, c1 multiples of nb or n).
template <typename T> void tile_block(rt::Runtime& rt, Op opa, Op opb, T alpha, const Matrix<T>& A, const Matrix<T>& B,
                                      T beta, const Matrix<T>& C, int64_t jt0, int64_t jt1, int device,
                                      std::atomic<int64_t>* done = nullptr) {
  const int64_t mt = C.mt(), kt = opa == Op::NoTrans ? A.nt() : A.mt();
  auto a = [&](int64_t i, int64_t l) { return opa == Op::NoTrans ? tile::ref(A, i, l) : tile::ref(A, l, i); };
  auto b = [&](int64_t l, int64_t j) { return opb == Op::NoTrans ? tile::ref(B, l, j) : tile::ref(B, j, l); };
  for (int64_t j = jt0; j < jt1; ++j)
    for (int64_t i = 0; i < mt; ++i)
      for (int64_t l = 0; l < kt; ++l)
        // earlier tile columns first on each device: transfers pipeline behind products
        tile::gemm_on(rt, device, opa, opb, alpha, a(i, l), b(l, j), l == 0 ? beta : T(1), tile::ref(C, i, j),
                      {static_cast<int>(jt1 - j)}, done);
}

}  // namespace

template <typename T>
void gemm(Op opa, Op opb, T alpha, const Matrix<T>& A, const Matrix<T>& B, T beta, Matrix<T>& C, const Options& opts) {
  const auto name = detail::routine_name<T>("gemm");
  check_op(opa, 1, name);
  check_op(opb, 2, name);
  const int64_t m = C.m(), n = C.n();
  const int64_t k = opa == Op::NoTrans ? A.n() : A.m();
  detail::require((opa == Op::NoTrans ? A.m() : A.n()) == m, 7, name, "op(A) must have C's rows");
  detail::require((opb == Op::NoTrans ? B.m() : B.n()) == k, 9, name, "op(B) rows must equal op(A) columns");
  detail::require((opb == Op::NoTrans ? B.n() : B.m()) == n, 9, name, "op(B) must have C's columns");
  detail::require_uniform(C, 12, name);
  detail::require(A.nb() == C.nb() && B.nb() == C.nb(), 9, name, "A, B and C must share the tile size");
  if (m == 0 || n == 0) return;
  if ((k == 0 || alpha == T(0)) && beta == T(1)) return;

  detail::CallScope scope;
  rt::Runtime& rt = scope.rt();
  const std::vector<double> shares = detail::split_shares(
      rt, opts.weights, std::cbrt(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k)),
      tile::fp64_flag<T>() != 0);
  if (k == 0 || alpha == T(0)) {  // BLAS: A and B are not referenced
    for (int64_t j = 0; j < C.nt(); ++j)
      for (int64_t i = 0; i < C.mt(); ++i) tile::scale(rt, beta, tile::ref(C, i, j), {});
    rt.wait_all();
    return;
  }
  // Per-device finish times, learned from when the split is not forced.
  const int nd = rt.num_devices();
  const bool learn = nd > 1 && opts.weights.empty();
  std::vector<std::atomic<int64_t>> done(static_cast<std::size_t>(nd));
  std::vector<double> dflops(static_cast<std::size_t>(nd), 0.0);
  auto done_of = [&](int d) { return learn ? &done[static_cast<std::size_t>(d)] : nullptr; };
  const int64_t t0 = tile::now_ns();
  auto finish = [&] {
    rt.wait_all();
    if (!learn) return;
    std::vector<double> secs(static_cast<std::size_t>(nd), 0.0);
    for (std::size_t d = 0; d < secs.size(); ++d) secs[d] = 1e-9 * static_cast<double>(done[d].load() - t0);
    detail::learn_split(rt, dflops, secs);
  };
  const double per_col = 2.0 * tile::flop_scale<T>() * static_cast<double>(m) * static_cast<double>(k);
  const auto a = whole_block(A), b = whole_block(B), c = whole_block(C);
  if (a && b && c) {
    // Column-major data: blocks of any width, host blocks as BLAS slices.
    // The slices and the per-call views declare no accesses on the caller's
    // handles, so tasks a composite routine still has pending on A, B or C
    // (inside its own CallScope) must finish first.
    rt.wait_all();
    const tile::Dense<T> g{opa, opb, m, n, k, alpha, a->data, a->ld, b->data, b->ld, beta, c->data, c->ld};
    const auto bounds = detail::split_bounds(shares, n, 1);
    const int64_t nb = C.nb();
    std::vector<Matrix<T>> views;  // their handles must outlive the tasks
    for (int d = 0; d < rt.num_devices(); ++d) {
      const int64_t c0 = bounds[static_cast<std::size_t>(d)], c1 = bounds[static_cast<std::size_t>(d) + 1];
      if (c1 <= c0) continue;
      dflops[static_cast<std::size_t>(d)] = per_col * static_cast<double>(c1 - c0);
      if (d == 0) {
        host_slices(rt, g, c0, c1, nd > 1 ? 0 : -1, done_of(0));
        continue;
      }
      auto Bd = opb == Op::NoTrans ? Matrix<T>::view(k, c1 - c0, b->data + c0 * b->ld, b->ld, nb)
                                   : Matrix<T>::view(c1 - c0, k, b->data + c0, b->ld, nb);
      auto Cd = Matrix<T>::view(m, c1 - c0, c->data + c0 * c->ld, c->ld, nb);
      // A is shared by every device, so each replicates its tiles once
      tile_block(rt, opa, opb, alpha, A, Bd, beta, Cd, 0, Cd.nt(), d, done_of(d));
      views.push_back(std::move(Bd));
      views.push_back(std::move(Cd));
    }
    finish();
    return;
  }
  // Tile storage spread over processes: SUMMA's rank-nb updates, one GEMM
  // per block of a process's C tiles and k panel (tasks/blas3.hpp).
  if (nd == 1 && tile::gemm_by_owner(rt, opa, opb, alpha, A, B, beta, C)) {
    finish();
    return;
  }
  // Tile storage: whole tile columns per device.
  const auto bounds = detail::split_bounds(shares, C.nt(), 1);
  for (int d = 0; d < nd; ++d) {
    const int64_t j0 = bounds[static_cast<std::size_t>(d)], j1 = bounds[static_cast<std::size_t>(d) + 1];
    if (j1 <= j0) continue;
    dflops[static_cast<std::size_t>(d)] =
        per_col * static_cast<double>(std::min(n, j1 * C.nb()) - std::min(n, j0 * C.nb()));
    tile_block(rt, opa, opb, alpha, A, B, beta, C, j0, j1, nd > 1 ? d : -1, done_of(d));
  }
  finish();
}

template <typename T> void gemm(Op opa, Op opb, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
                                const T* B, int64_t ldb, T beta, T* C, int64_t ldc, const Options& opts) {
  const auto name = detail::routine_name<T>("gemm");
  check_op(opa, 1, name);
  check_op(opb, 2, name);
  detail::require(m >= 0, 3, name, "m < 0");
  detail::require(n >= 0, 4, name, "n < 0");
  detail::require(k >= 0, 5, name, "k < 0");
  detail::check_ld(lda, opa == Op::NoTrans ? m : k, 8, name, "lda");
  detail::check_ld(ldb, opb == Op::NoTrans ? k : n, 10, name, "ldb");
  detail::check_ld(ldc, m, 13, name, "ldc");
  if (m == 0 || n == 0) return;
  const bool reads_ab = k > 0 && alpha != T(0);  // BLAS: A and B are referenced only then
  detail::require(A || !reads_ab, 7, name, "A is null");
  detail::require(B || !reads_ab, 9, name, "B is null");
  detail::require(C != nullptr, 12, name, "C is null");
  const int64_t nb = opts.nb > 0 ? opts.nb : default_tile_size<T>(std::max({m, n, k}));
  const int64_t ar = opa == Op::NoTrans ? m : k, ac = opa == Op::NoTrans ? k : m;
  const int64_t br = opb == Op::NoTrans ? k : n, bc = opb == Op::NoTrans ? n : k;
  // The operands are only read; the view API takes a mutable pointer. When
  // they are not referenced (BLAS allows null then) the views only scale C.
  T unused{};
  auto Am = Matrix<T>::view(ar, ac, A ? const_cast<T*>(A) : &unused, lda, nb);
  auto Bm = Matrix<T>::view(br, bc, B ? const_cast<T*>(B) : &unused, ldb, nb);
  auto Cm = Matrix<T>::view(m, n, C, ldc, nb);
  gemm(opa, opb, alpha, Am, Bm, beta, Cm, opts);
}

#define HETLA_INSTANTIATE(T)                                                                                        \
  template void gemm<T>(Op, Op, T, const Matrix<T>&, const Matrix<T>&, T, Matrix<T>&, const Options&);              \
  template void gemm<T>(Op, Op, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*, int64_t, \
                        const Options&);
HETLA_FOR_EACH_PRECISION(HETLA_INSTANTIATE)
#undef HETLA_INSTANTIATE

}  // namespace hetla
