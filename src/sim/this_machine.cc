#include "sim/this_machine.hpp"

#include <algorithm>
#include <chrono>
#include <complex>
#include <limits>
#include <stdexcept>
#include <vector>

#include "devices/host/host_device.hpp"
#include "kernels/host/lapack_lu.hpp"
#include "kernels/host/lapack_qr.hpp"
#include "devices/spec.hpp"
#include "util/hwloc_topology.hpp"

namespace hetla::sim {

namespace {

// Best of a few runs of f, in seconds.
template <typename F> double best_seconds(F&& f) {
  double best = std::numeric_limits<double>::max();
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// The host-only panels of LU and QR on one core: GFLOP/s over the panel's
// height h (rows x nb; the curve's abscissa is h, see SimExecutor), at
// h = nb, 2 nb, 4 nb, 8 nb; and laswp, GB/s of rows exchanged: nb swaps in a
// 4 nb x nb column, as a step of getrf applies them.
template <typename T> void measure_panels(dev::Kernels<T>& k, Rates& r, int64_t nb, int p, double scale) {
  const double w = static_cast<double>(nb);
  auto& lu = r.curves[kGetrfPanel][static_cast<std::size_t>(p)].points;
  auto& qr = r.curves[kGeqrfPanel][static_cast<std::size_t>(p)].points;
  for (int64_t h = nb; h <= 8 * nb; h *= 2) {
    std::vector<T> A0(static_cast<std::size_t>(h * nb));
    uint64_t x = 12345;
    for (auto& v : A0) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      v = T(static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5);
    }
    std::vector<T> A = A0, Tm(static_cast<std::size_t>(nb * nb));
    std::vector<lapack_int> piv(static_cast<std::size_t>(nb));
    const double hd = static_cast<double>(h);
    const double lu_s = best_seconds([&] {
      std::copy(A0.begin(), A0.end(), A.begin());
      blas::getrf(h, nb, A.data(), h, piv.data());
    });
    lu.push_back({hd, scale * (hd * w * w - w * w * w / 3) / lu_s / 1e9});
    const double qr_s = best_seconds([&] {
      std::copy(A0.begin(), A0.end(), A.begin());
      blas::geqrt_recursive(h, nb, A.data(), h, Tm.data(), nb);
    });
    qr.push_back({hd, scale * 2 * w * w * (hd - w / 3) / qr_s / 1e9});
  }
  const int64_t h = 4 * nb;
  std::vector<T> col(static_cast<std::size_t>(h * nb), T(1));
  std::vector<T*> tiles;
  std::vector<int64_t> mb(4, nb), ld(4, nb), rows;
  for (int t = 0; t < 4; ++t) tiles.push_back(col.data() + t * nb * nb);
  for (int64_t s = 0; s < nb; ++s) rows.insert(rows.end(), {s, (s * 7919 + nb) % h});
  const double sw = best_seconds([&] { k.laswp(nb, 4, tiles.data(), mb.data(), ld.data(), nb, rows.data()); });
  r.curves[static_cast<std::size_t>(dev::KernelId::Laswp)][static_cast<std::size_t>(p)].points = {
      {w, 4.0 * w * w * static_cast<double>(sizeof(T)) / sw / 1e9}};
}

// GFLOP/s of one core on nb x nb tiles, per kernel (the flop counts of the
// tile tasks in src/tasks/).
template <typename T> Rates measure_host(int64_t nb, int p) {
  dev::HostDevice host(1);
  dev::Kernels<T>& k = host;
  const std::size_t n2 = static_cast<std::size_t>(nb * nb);
  std::vector<T> A(n2), B(n2), C(n2), S(n2);
  for (int64_t j = 0; j < nb; ++j)
    for (int64_t i = 0; i < nb; ++i) {
      A[static_cast<std::size_t>(i + j * nb)] = T(1.0 / static_cast<double>(1 + i + j));
      S[static_cast<std::size_t>(i + j * nb)] = T(i == j ? 2.0 * static_cast<double>(nb) : 0.5 / static_cast<double>(1 + i + j));
    }
  B = A;
  const double scale = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ? 4 : 1;
  const double f3 = scale * static_cast<double>(nb) * static_cast<double>(nb) * static_cast<double>(nb);
  using R = real_t<T>;
  Rates r;
  auto set = [&](dev::KernelId id, double flops, double s) {
    r.curves[static_cast<std::size_t>(id)][static_cast<std::size_t>(p)].points = {{static_cast<double>(nb), flops / s / 1e9}};
  };
  set(dev::KernelId::Gemm, 2 * f3,
      best_seconds([&] { k.gemm(Op::NoTrans, Op::ConjTrans, nb, nb, nb, T(-1), A.data(), nb, B.data(), nb, T(1), C.data(), nb); }));
  set(dev::KernelId::Herk, f3,
      best_seconds([&] { k.herk(Uplo::Lower, Op::NoTrans, nb, nb, R(-1), A.data(), nb, R(1), C.data(), nb); }));
  set(dev::KernelId::Trsm, f3, best_seconds([&] {
        k.trsm(Side::Right, Uplo::Lower, Op::ConjTrans, Diag::NonUnit, nb, nb, T(1), S.data(), nb, C.data(), nb);
      }));
  set(dev::KernelId::Potrf, f3 / 3, best_seconds([&] {
        std::vector<T> W = S;
        k.potrf(Uplo::Lower, nb, W.data(), nb);
      }));
  set(dev::KernelId::Trmm, f3, best_seconds([&] {
        k.trmm(Side::Left, Uplo::Upper, Op::ConjTrans, Diag::NonUnit, nb, nb, T(1), S.data(), nb, C.data(), nb);
      }));
  measure_panels<T>(k, r, nb, p, scale);
  return r;
}

}  // namespace

MachineModel this_machine(const std::string& devices, char precision, int64_t nb, int cores) {
  const int p = precision_index(precision);
  dev::DeviceSet set = dev::parse_devices(devices);
  MachineModel m;
  m.name = "this";
  switch (precision) {
    case 's': m.host = measure_host<float>(nb, p); break;
    case 'd': m.host = measure_host<double>(nb, p); break;
    case 'c': m.host = measure_host<std::complex<float>>(nb, p); break;
    default: m.host = measure_host<std::complex<double>>(nb, p); break;
  }
  int accel_workers = 0;
  for (const auto& a : set.accelerators) accel_workers += a->num_workers();
  m.cores = cores > 0 ? cores : set.host_cores > 0 ? set.host_cores
                                                   : std::max(1, util::Topology::get().cores() - accel_workers);
  m.hubs.push_back({1e6, 0});
  for (const auto& a : set.accelerators) {
    if (a->kind() != dev::Kind::Emulated)
      throw std::invalid_argument("this_machine: only cpu and emu devices are modelled so far, not '" + a->name() + "'");
    DeviceModel d;
    d.name = a->name();
    d.memory_bytes = static_cast<double>(a->memory_capacity());
    d.herk_as_gemm = a->herk_as_gemm();
    d.link_gbs = a->bandwidth_hint() / 1e9;
    for (std::size_t k = 1; k < kKernels; ++k) {
      auto c = m.host.curves[k][static_cast<std::size_t>(p)];
      for (auto& pt : c.points) pt.second *= a->nominal_speed();
      d.rates.curves[k][static_cast<std::size_t>(p)] = c;
    }
    m.devices.push_back(std::move(d));
  }
  return m;
}

}  // namespace hetla::sim
