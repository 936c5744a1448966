// Configuring the library without the C++ Config: hetla_init_config("k=v;...")
// from C, and the environment (HETLA_NUM_THREADS, HETLA_DEVICES,
// HETLA_SCHEDULE, HETLA_DISTRIBUTION) for the default context of programs
// that call no init at all. Malformed values are rejected with a message
// naming the key or the variable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "hetla/hetla.h"
#include "hetla/hetla.hpp"
#include "context/context.hpp"

namespace hetla {
namespace {

/// Sets environment variables for the test's duration, then unsets them.
class Env {
 public:
  ~Env() {
    for (const auto& v : set_) unsetenv(v.c_str());
    finalize();
  }
  Env& set(const std::string& var, const std::string& value) {
    setenv(var.c_str(), value.c_str(), 1);
    set_.push_back(var);
    return *this;
  }

 private:
  std::vector<std::string> set_;
};

int devices_in_context() {
  detail::CallScope scope;
  return scope.rt().num_devices();
}
rt::Schedule schedule_of_context() {
  detail::CallScope scope;
  return scope.rt().schedule();
}

std::vector<double> spd(int n) {
  std::vector<double> A(static_cast<std::size_t>(n * n), 0.5);
  for (int i = 0; i < n; ++i) A[static_cast<std::size_t>(i * (n + 1))] = n;
  return A;
}

TEST(InitConfig, CStringReachesTheConfig) {
  ASSERT_EQ(hetla_init_config("devices=cpu,emu;schedule=static;threads=2"), 0) << hetla_last_error();
  EXPECT_EQ(num_threads(), 2);
  EXPECT_EQ(devices_in_context(), 2);  // the host and the emulated accelerator
  EXPECT_EQ(schedule_of_context(), rt::Schedule::Static);
  auto A = spd(200);
  EXPECT_EQ(hetla_dpotrf('L', 200, A.data(), 200), 0);

  ASSERT_EQ(hetla_init_config(" threads = 1 ; distribution=2d ; pin=0 "), 0) << hetla_last_error();
  EXPECT_EQ(num_threads(), 1);
  EXPECT_EQ(devices_in_context(), 1);
  EXPECT_EQ(schedule_of_context(), rt::Schedule::Static);  // a distribution alone selects static
  EXPECT_EQ(detail::default_distribution(), Distribution::TwoD);
  ASSERT_EQ(hetla_init_config(""), 0);  // every key optional
  EXPECT_EQ(schedule_of_context(), rt::Schedule::Dynamic);
  hetla_finalize();
}

TEST(InitConfig, MalformedStringsAreRejectedNamingTheKey) {
  ASSERT_EQ(hetla_init_config("threads=1"), 0);
  const struct {
    const char* text;
    const char* mentions;
  } cases[] = {{"schedule=sometimes", "schedule='sometimes'"},
               {"threads=many", "threads='many'"},
               {"threads=-1", "threads='-1'"},
               {"distribution=3d", "distribution='3d'"},
               {"pin=maybe", "pin='maybe'"},
               {"colour=blue", "unknown key 'colour'"},
               {"devices", "'devices' is not key=value"},
               {"devices=", "devices=''"},
               {"devices=cpu,nosuchdevice", "nosuchdevice"}};
  for (const auto& c : cases) {
    EXPECT_EQ(hetla_init_config(c.text), -1) << c.text;
    EXPECT_NE(std::string(hetla_last_error()).find(c.mentions), std::string::npos)
        << c.text << ": " << hetla_last_error();
    EXPECT_EQ(num_threads(), 1) << "a rejected configuration replaced the context: " << c.text;
  }
  EXPECT_EQ(hetla_init_config(nullptr), -1);
  hetla_finalize();
}

TEST(InitConfig, DefaultContextReadsTheEnvironment) {
  Env env;
  env.set("HETLA_NUM_THREADS", "1").set("HETLA_DEVICES", "cpu,emu").set("HETLA_SCHEDULE", "static");
  finalize();  // the next call starts the default context
  auto A = spd(150);
  EXPECT_EQ(hetla_dpotrf('L', 150, A.data(), 150), 0) << hetla_last_error();
  EXPECT_EQ(num_threads(), 1);
  EXPECT_EQ(devices_in_context(), 2);
  EXPECT_EQ(schedule_of_context(), rt::Schedule::Static);

  // An explicit init wins over the environment.
  Config c;
  c.num_threads = 2;
  init(c);
  EXPECT_EQ(num_threads(), 2);
  EXPECT_EQ(devices_in_context(), 1);

  env.set("HETLA_DISTRIBUTION", "weighted").set("HETLA_SCHEDULE", "dynamic");
  finalize();
  EXPECT_EQ(detail::config_from_environment().distribution, Distribution::Weighted);
  EXPECT_EQ(schedule_of_context(), rt::Schedule::Dynamic);  // given: kept
}

TEST(InitConfig, MalformedEnvironmentIsRejectedNamingTheVariable) {
  const struct {
    const char* var;
    const char* value;
  } cases[] = {{"HETLA_NUM_THREADS", "two"},    {"HETLA_NUM_THREADS", "100000"},
               {"HETLA_SCHEDULE", "eventually"}, {"HETLA_DISTRIBUTION", "1.5d"},
               {"HETLA_DEVICES", ""},            {"HETLA_DEVICES", "cpu,warpdrive"}};
  for (const auto& c : cases) {
    Env env;
    env.set(c.var, c.value);
    finalize();
    // n = 200: above dpotrf's crossover, so the call builds the context (a
    // smaller one runs the vendor inline and never reads the environment).
    auto A = spd(200);
    const int info = hetla_dpotrf('L', 200, A.data(), 200);
    EXPECT_NE(info, 0) << c.var << "=" << c.value;
    const std::string msg = hetla_last_error();
    EXPECT_NE(msg.find(c.var), std::string::npos) << msg;
    EXPECT_THROW(num_threads(), std::invalid_argument) << c.var << "=" << c.value;
  }
  finalize();
  EXPECT_GE(num_threads(), 1);  // unset again: the defaults
}

}  // namespace
}  // namespace hetla
