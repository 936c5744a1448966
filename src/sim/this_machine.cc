#include "sim/this_machine.hpp"

#include <algorithm>
#include <chrono>
#include <complex>
#include <limits>
#include <stdexcept>
#include <vector>

#include "devices/host/host_device.hpp"
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
