// Device failure and recovery (src/runtime/recovery.cc): an emulated device
// that fails a kernel, a copy or an allocation leaves the call, which still
// returns the answer a fault-free run gives and says which device failed,
// also when its memory is lost (host checkpoints: the host holds every tile's
// last committed version); when no device is left, the call is an error. Nothing hangs (every call runs under a watchdog).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks.hpp"
#include "common/watchdog.hpp"
#include "context/context.hpp"
#include "hetla/hetla.h"
#include "hetla/hetla.hpp"
#include "matgen.hpp"

namespace hetla {
namespace {

constexpr int64_t kN = 200, kNb = 40;

enum class Routine { Potrf, Getrf, Geqrf, Gemm, Posv };
const char* name(Routine r) {
  switch (r) {
    case Routine::Potrf: return "potrf";
    case Routine::Getrf: return "getrf";
    case Routine::Geqrf: return "geqrf";
    case Routine::Gemm: return "gemm";
    case Routine::Posv: return "posv";
  }
  return "?";
}

// Runs the routine on the current context; returns its output (factor,
// pivots, tau or product), which only depends on the arithmetic, not on
// where each tile task ran (every device here runs the host kernels).
std::vector<double> run(Routine r, Distribution dist) {
  Options o;
  o.nb = kNb;
  o.distribution = dist;
  std::vector<double> out;
  test::must_finish(name(r), [&] {
    switch (r) {
      case Routine::Potrf: {
        out = bench::random_hpd<double>(kN, kN, 1);
        EXPECT_EQ(potrf<double>(Uplo::Lower, kN, out.data(), kN, o), 0);
        break;
      }
      case Routine::Getrf: {
        out = bench::random_matrix<double>(kN, kN, kN, 2);
        std::vector<int64_t> ipiv(kN);
        EXPECT_EQ(getrf<double>(kN, kN, out.data(), kN, ipiv.data(), o), 0);
        for (int64_t p : ipiv) out.push_back(static_cast<double>(p));
        break;
      }
      case Routine::Geqrf: {
        out = bench::random_matrix<double>(kN, kN, kN, 3);
        std::vector<double> tau(kN);
        geqrf<double>(kN, kN, out.data(), kN, tau.data(), o);
        out.insert(out.end(), tau.begin(), tau.end());
        break;
      }
      case Routine::Gemm: {
        auto A = bench::random_matrix<double>(kN, kN, kN, 4), B = bench::random_matrix<double>(kN, kN, kN, 5);
        out = bench::random_matrix<double>(kN, kN, kN, 6);
        gemm<double>(Op::NoTrans, Op::NoTrans, kN, kN, kN, 1.0, A.data(), kN, B.data(), kN, 0.5, out.data(), kN, o);
        break;
      }
      case Routine::Posv: {
        auto A = bench::random_hpd<double>(kN, kN, 7);
        out = bench::random_matrix<double>(kN, 3, kN, 8);
        EXPECT_EQ(posv<double>(Uplo::Lower, kN, 3, A.data(), kN, out.data(), kN, o), 0);
        break;
      }
    }
  });
  return out;
}

// Largest difference relative to the largest entry: 0 up to rounding when
// the recovered call computed what the fault-free one did; a stale or lost
// tile shows as O(1).
double difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return 1e300;
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

struct Case {
  Routine routine;
  Schedule schedule;
  const char* fault;  // the failing device's extra keys
  bool must_fire;     // the fault happens for sure (small K)
};

class Recovery : public testing::TestWithParam<Case> {
 protected:
  void TearDown() override { finalize(); }
};

std::string describe(const testing::TestParamInfo<Case>& p) {
  std::string s = std::string(name(p.param.routine)) + (p.param.schedule == Schedule::Static ? "_static_" : "_dynamic_") +
                  p.param.fault;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s + "_" + std::to_string(p.index);
}

TEST_P(Recovery, FailingDeviceCostsTimeNotTheAnswer) {
  const Case c = GetParam();
  const Distribution dist = c.schedule == Schedule::Static ? Distribution::Weighted : Distribution::Default;
  Config cfg;
  cfg.schedule = c.schedule;
  cfg.devices = "cpu,emu,emu";
  init(cfg);
  const auto want = run(c.routine, dist);
  ASSERT_TRUE(last_recoveries().empty());

  cfg.devices = std::string("cpu,emu,emu:") + c.fault;
  init(cfg);
  const auto got = run(c.routine, dist);
  EXPECT_LT(difference(got, want), 1e-12) << c.fault;
  const auto rec = last_recoveries();
  if (c.must_fire) {
    if (c.schedule == Schedule::Dynamic && rec.empty()) {
      // Dynamic placement may give emu1 no task at all (seen under load for
      // getrf): then its first kernel never came. Static placement always does.
      detail::CallScope scope;
      EXPECT_EQ(scope.rt().stats().at(2).tasks, 0u) << c.fault << ": emu1 ran tasks and none failed";
    } else {
      ASSERT_EQ(rec.size(), 1u) << c.fault;
    }
  }
  for (const auto& r : rec) {
    EXPECT_EQ(r.device, "emu1");
    EXPECT_NE(r.error.find("injected"), std::string::npos) << r.error;
    if (c.must_fire) {
      EXPECT_GE(r.tasks_rerun, 1u);  // the task that saw the fault ran again
    }
  }
  const auto w = last_warnings();
  ASSERT_EQ(w.size(), rec.size());
  for (const auto& line : w) EXPECT_NE(line.find("emu1"), std::string::npos) << line;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (Routine r : {Routine::Potrf, Routine::Getrf, Routine::Geqrf, Routine::Gemm})
    for (Schedule s : {Schedule::Dynamic, Schedule::Static}) {
      out.push_back({r, s, "fail=kernel@1", true});
      out.push_back({r, s, "fail=kernel@4", false});
      out.push_back({r, s, "fail=random:0.1:seed=3", false});
    }
  for (Routine r : {Routine::Potrf, Routine::Getrf}) {
    out.push_back({r, Schedule::Dynamic, "fail=copy@1", true});
    out.push_back({r, Schedule::Dynamic, "fail=copy@6", false});
    out.push_back({r, Schedule::Static, "fail=alloc@1", true});
    out.push_back({r, Schedule::Static, "fail=alloc@5", false});
  }
  // Memory lost with the fault: recovered from the host checkpoints.
  for (Routine r : {Routine::Potrf, Routine::Getrf, Routine::Geqrf})
    for (Schedule s : {Schedule::Dynamic, Schedule::Static}) {
      out.push_back({r, s, "fail=lost@1", true});
      out.push_back({r, s, "fail=lost@6", false});
    }
  for (Routine r : {Routine::Geqrf, Routine::Gemm}) out.push_back({r, Schedule::Static, "fail=copy@5", false});
  out.push_back({Routine::Posv, Schedule::Dynamic, "fail=kernel@2", false});
  out.push_back({Routine::Posv, Schedule::Static, "fail=random:0.2:seed=9", false});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Faults, Recovery, testing::ValuesIn(cases()), describe);

// Every kernel of the device fails (fail=kernel): the device is gone at its
// first task and the host and the other device do everything.
TEST(RecoveryContext, DeviceThatFailsEveryKernelIsRemoved) {
  Config cfg;
  cfg.devices = "cpu,emu,emu:fail=kernel";
  init(cfg);
  const auto got = run(Routine::Potrf, Distribution::Default);
  cfg.devices = "cpu";
  init(cfg);
  EXPECT_LT(difference(got, run(Routine::Potrf, Distribution::Default)), 1e-12);
  finalize();
}

// A failed device stays out of the context's later calls until
// reset_devices(); the C API reports the warning of the last call.
TEST(RecoveryContext, FailedDeviceStaysOutUntilReset) {
  Config cfg;
  cfg.devices = "cpu,emu:fail=kernel@1";
  cfg.schedule = Schedule::Static;
  init(cfg);
  run(Routine::Potrf, Distribution::Weighted);
  ASSERT_EQ(last_recoveries().size(), 1u);
  EXPECT_NE(std::string(hetla_last_warning()).find("emu0"), std::string::npos) << hetla_last_warning();

  auto emu_tasks = [] {
    detail::CallScope scope;
    return scope.rt().stats()[1].tasks;
  };
  auto reset = [] {
    detail::CallScope scope;
    scope.rt().reset_stats();
  };
  reset();
  run(Routine::Potrf, Distribution::Weighted);
  EXPECT_TRUE(last_recoveries().empty());  // the device took no work: nothing failed
  EXPECT_STREQ(hetla_last_warning(), "");
  EXPECT_EQ(emu_tasks(), 0u);
  reset_devices();
  run(Routine::Potrf, Distribution::Weighted);  // its one fault has fired: it works now
  EXPECT_TRUE(last_recoveries().empty());
  EXPECT_GT(emu_tasks(), 0u);
  finalize();
}

// No device left (the host cores do not compute: no `cpu` in the list): an
// error, at once.
TEST(RecoveryContext, NoDeviceLeftIsAnError) {
  for (const char* devices : {"emu:fail=kernel@1", "emu:fail=kernel", "emu:fail=alloc@1"}) {
    Config cfg;
    cfg.devices = devices;
    init(cfg);
    try {
      run(Routine::Potrf, Distribution::Default);
      ADD_FAILURE() << devices << ": expected an error";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("no device left"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("injected"), std::string::npos) << e.what();
    }
  }
  finalize();
}

// A device whose memory is lost with the fault, after it computed tiles that
// only it held: before host checkpoints that was the error "recovery is
// impossible"; now every committed tile version is also on the host, so the
// call recovers and reports it.
TEST(RecoveryContext, LostMemoryIsRecovered) {
  for (Routine r : {Routine::Potrf, Routine::Getrf, Routine::Geqrf}) {
    Config cfg;
    cfg.devices = "cpu";
    init(cfg);
    const auto want = run(r, Distribution::Default);
    for (const char* fault : {"fail=lost@3", "fail=lost@8"}) {
      cfg.devices = std::string("cpu,emu:") + fault;
      cfg.schedule = Schedule::Static;  // the device owns tiles: it runs more than 8 kernels
      init(cfg);
      const auto got = run(r, Distribution::Weighted);
      EXPECT_LT(difference(got, want), 1e-12) << name(r) << " " << fault;
      const auto rec = last_recoveries();
      ASSERT_EQ(rec.size(), 1u) << name(r) << " " << fault;
      EXPECT_EQ(rec[0].device, "emu0");
      EXPECT_NE(rec[0].error.find("memory lost"), std::string::npos) << rec[0].error;
      EXPECT_GE(rec[0].tasks_rerun, 1u);
      EXPECT_EQ(rec[0].tiles_copied_back, 0u);  // nothing could be read back: all came from the checkpoints
    }
  }
  finalize();
}

}  // namespace
}  // namespace hetla
