#include "tune/calibrate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

#include "devices/emulated/emulated_device.hpp"
#include "tune/json_file.hpp"
#include "util/blas_threads.hpp"
#include "util/hwloc_topology.hpp"
#include "util/cache_file.hpp"

namespace hetla::tune {

namespace {
using dev::KernelId;
constexpr int kWeightsVersion = 1;  // bump on an incompatible change of the weights file
constexpr KernelId kCalibrated[] = {KernelId::Gemm, KernelId::Herk, KernelId::Trsm, KernelId::Potrf, KernelId::Trmm};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double kernel_flops(KernelId k, double nb) {
  switch (k) {
    case KernelId::Gemm: return 2 * nb * nb * nb;
    case KernelId::Herk: return nb * nb * nb;
    case KernelId::Trsm: return nb * nb * nb;
    case KernelId::Potrf: return nb * nb * nb / 3;
    case KernelId::Trmm: return nb * nb * nb;
    default: return 0;
  }
}

KernelId kernel_from_name(const std::string& s) {
  for (KernelId k : kCalibrated)
    if (s == dev::kernel_name(k)) return k;
  return KernelId::None;
}
}  // namespace

std::string device_key(const dev::Device& d) {
  if (d.is_host()) return "cpu:" + util::Topology::get().cpu_model();
  if (auto* e = dynamic_cast<const dev::EmulatedDevice*>(&d)) {
    std::ostringstream o;
    o << "emu:speed=" << e->config().speed;
    return o.str();
  }
  // The hardware's model name, not the index name ("opencl0"): the index
  // changes when devices are enumerated differently, the hardware does not.
  return std::string(dev::kind_name(d.kind())) + ":" + d.model();
}

std::vector<Rate> calibrate(rt::Runtime& rt, int64_t nb, int reps, const CalibrateProgress& progress) {
  // Rates are per worker, and tasks run the host BLAS single-threaded; a
  // multi-threaded BLAS would also hide an emulated device's stretch (it
  // scales the worker thread's CPU time, not its BLAS threads').
  util::BlasThreadsGuard blas(1);
  const std::size_t tile = static_cast<std::size_t>(nb * nb);
  // Operands: A, B general; S a well-conditioned SPD tile per potrf run.
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> A(tile), B(tile), C(tile), L(tile, 0.0);
  for (auto& x : A) x = u(g);
  for (auto& x : B) x = u(g);
  for (int64_t i = 0; i < nb; ++i) L[static_cast<std::size_t>(i + i * nb)] = 2.0 + u(g);  // well-conditioned triangle
  for (int64_t j = 0; j < nb; ++j)
    for (int64_t i = j + 1; i < nb; ++i) L[static_cast<std::size_t>(i + j * nb)] = 0.1 * u(g) / static_cast<double>(nb);
  std::vector<std::vector<double>> S(static_cast<std::size_t>(reps), std::vector<double>(tile));
  rt::Handle hA, hB, hC, hL;
  hA.set_host(A.data(), nb, nb, nb, sizeof(double));
  hB.set_host(B.data(), nb, nb, nb, sizeof(double));
  hC.set_host(C.data(), nb, nb, nb, sizeof(double));
  hL.set_host(L.data(), nb, nb, nb, sizeof(double));
  std::vector<std::unique_ptr<rt::Handle>> hS;

  std::vector<Rate> out;
  int count = 0, index = 0;
  for (int d = 0; d < rt.num_devices(); ++d)
    for (KernelId k : kCalibrated) count += rt.device(d).can_run(k, /*fp64=*/true);
  for (int d = 0; d < rt.num_devices(); ++d) {
    dev::Device& dv = rt.device(d);
    for (KernelId k : kCalibrated) {
      if (!dv.can_run(k, /*fp64=*/true)) continue;  // measured in double precision
      if (progress) progress(dv.name() + " " + dev::kernel_name(k), index++, count);
      std::vector<double> seconds;
      rt::Handle order;  // serialises the runs: one kernel at a time on the machine
      for (int r = 0; r <= reps; ++r) {  // run 0 warms up (and moves the data)
        auto body = [&, k, r](rt::TaskContext& c) {
          auto& kt = c.kernels<double>();
          auto t0 = std::chrono::steady_clock::now();
          switch (k) {
            case KernelId::Gemm:
              kt.gemm(Op::NoTrans, Op::Trans, nb, nb, nb, -1.0, c.ptr<double>(0), c.ld(0), c.ptr<double>(1), c.ld(1), 1.0,
                      c.ptr<double>(2), c.ld(2));
              break;
            case KernelId::Herk:
              kt.herk(Uplo::Lower, Op::NoTrans, nb, nb, -1.0, c.ptr<double>(0), c.ld(0), 1.0, c.ptr<double>(2), c.ld(2));
              break;
            case KernelId::Trsm:
              kt.trsm(Side::Right, Uplo::Lower, Op::Trans, Diag::NonUnit, nb, nb, 1.0, c.ptr<double>(1), c.ld(1),
                      c.ptr<double>(2), c.ld(2));
              break;
            case KernelId::Potrf:
              kt.potrf(Uplo::Lower, nb, c.ptr<double>(2), c.ld(2));
              break;
            case KernelId::Trmm:
              kt.trmm(Side::Left, Uplo::Lower, Op::NoTrans, Diag::NonUnit, nb, nb, 1.0, c.ptr<double>(1), c.ld(1),
                      c.ptr<double>(2), c.ld(2));
              break;
            default: break;
          }
          if (r > 0) seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        };
        rt::Handle* target = &hC;
        if (k == KernelId::Potrf) {  // a fresh SPD tile per run
          auto& s = S[static_cast<std::size_t>(r % reps)];
          for (int64_t j = 0; j < nb; ++j)
            for (int64_t i = 0; i < nb; ++i) s[static_cast<std::size_t>(i + j * nb)] = i == j ? nb + 1.0 : 0.5;
          hS.push_back(std::make_unique<rt::Handle>());
          hS.back()->set_host(s.data(), nb, nb, nb, sizeof(double));
          target = hS.back().get();
        }
        rt::Handle* second = k == KernelId::Trsm || k == KernelId::Trmm ? &hL : &hB;
        rt.insert(body, {rt::R(&hA), rt::R(second), rt::RW(target), rt::RW(&order)},
                  {0, "calibrate", rt::kNoFlags, k, kernel_flops(k, static_cast<double>(nb)), d});
        if (k == KernelId::Potrf) rt.wait_all();  // the tile is rewritten for the next run
      }
      rt.wait_all();
      double t = median(seconds);
      if (t > 0) {
        double rate = kernel_flops(k, static_cast<double>(nb)) / t;
        rt.set_rate(d, k, rate);
        out.push_back({device_key(dv), dev::kernel_name(k), rate * 1e-9});
      }
    }
  }
  return out;
}

std::string weights_path() { return util::cache_file("HETLA_WEIGHTS", "weights.json"); }

// {"version": 1, "rates": [{"device": "...", "kernel": "gemm", "gflops": 36.8}, ...]}
std::vector<Rate> load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  return parse_weights(in, path);
}

std::vector<Rate> parse_weights(std::istream& in, const std::string& path) {
  const nlohmann::json doc = read_json_file(in, path, "weights file");
  check_version(doc, path, "weights file", kWeightsVersion);
  const FieldError bad{"weights file " + path};
  const nlohmann::json& rates = member(doc, "rates", bad);
  if (!rates.is_array()) throw bad("rates", "must be an array");
  std::vector<Rate> out;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    const std::string at = indexed("rates", i);
    const nlohmann::json& r = rates[i];
    if (!r.is_object()) throw bad(at, "must be an object");
    Rate rate;
    rate.device = string_field(r, at + ".device", "device", bad);
    rate.kernel = string_field(r, at + ".kernel", "kernel", bad);
    if (kernel_from_name(rate.kernel) == KernelId::None)
      throw bad(at + ".kernel", "'" + rate.kernel + "' is not one of gemm, herk, trsm, potrf, trmm");
    rate.gflops = positive_field(r, at + ".gflops", "gflops", bad);
    out.push_back(std::move(rate));
  }
  return out;
}

void save(const std::vector<Rate>& rates, const std::string& path) {
  std::map<std::pair<std::string, std::string>, double> merged;
  try {
    for (const Rate& r : load(path)) merged[{r.device, r.kernel}] = r.gflops;
  } catch (const std::exception&) {  // a broken or older file is replaced
  }
  for (const Rate& r : rates) merged[{r.device, r.kernel}] = r.gflops;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [key, g] : merged) list.push_back({{"device", key.first}, {"kernel", key.second}, {"gflops", g}});
  write_json_file(path, {{"version", kWeightsVersion}, {"rates", std::move(list)}});
}

int apply(rt::Runtime& rt, const std::vector<Rate>& rates) {
  int n = 0;
  for (int d = 0; d < rt.num_devices(); ++d) {
    const std::string key = device_key(rt.device(d));
    for (const Rate& r : rates)
      if (r.device == key) {
        rt.set_rate(d, kernel_from_name(r.kernel), r.gflops * 1e9);
        ++n;
      }
  }
  return n;
}

}  // namespace hetla::tune
