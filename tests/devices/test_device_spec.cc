// dev::parse_device_list, the one parser of device lists (CLI --devices,
// HETLA_DEVICES, hetla_init_config "devices="): syntax checked, nothing opened.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "devices/spec.hpp"

using hetla::dev::parse_device_list;

namespace {
std::string error_of(const std::string& spec) {
  try {
    parse_device_list(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(DeviceSpec, ItemsAreParsedWithoutOpening) {
  const auto items = parse_device_list(" cpu:3 , emu:speed=0.5:mem=64M:herk=gemm,opencl,cuda:all");
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].kind, "cpu");
  EXPECT_EQ(items[0].cores, 3);
  EXPECT_EQ(items[1].text, "emu:speed=0.5:mem=64M:herk=gemm");
  EXPECT_DOUBLE_EQ(items[1].emu.speed, 0.5);
  EXPECT_EQ(items[1].emu.memory, 64u << 20);
  EXPECT_TRUE(items[1].emu.herk_as_gemm);
  EXPECT_EQ(items[2].which, "0");  // opencl: the first device
  EXPECT_EQ(items[3].which, "all");  // cuda need not be built: nothing is opened
}

TEST(DeviceSpec, BadListsNameTheProblem) {
  EXPECT_EQ(error_of("").rfind("empty device list", 0), 0u);
  EXPECT_EQ(error_of("  ").rfind("empty device list", 0), 0u);
  EXPECT_EQ(error_of("cpu,,emu").rfind("empty item in 'cpu,,emu'", 0), 0u);
  EXPECT_EQ(error_of("cpu,").rfind("empty item", 0), 0u);
  EXPECT_NE(error_of("cpu,cpu").find("'cpu' given twice"), std::string::npos);
  EXPECT_NE(error_of("cpu:0").find("cores must be a positive integer"), std::string::npos);
  EXPECT_NE(error_of("emu:speed=2").find("speed must be in (0, 1]"), std::string::npos);
  EXPECT_NE(error_of("emu:warp=9").find("unknown key 'warp'"), std::string::npos);
  EXPECT_NE(error_of("emu:mem=lots").find("'lots' is not a number"), std::string::npos);
  EXPECT_NE(error_of("gpu").find("unknown device 'gpu'"), std::string::npos);
}

// Fault injection keys (docs/reliability.md): parsed into the fault plan;
// a malformed one names the forms it accepts.
TEST(DeviceSpec, FaultInjectionKeys) {
  auto emu = [](const char* spec) { return parse_device_list(spec).at(0).emu; };
  EXPECT_EQ(emu("emu:fail=kernel@200").faults.kernel_at, 200u);
  EXPECT_EQ(emu("emu:speed=0.5:fail=copy@3").faults.copy_at, 3u);
  EXPECT_EQ(emu("emu:fail=alloc@1").faults.alloc_at, 1u);
  EXPECT_EQ(emu("emu:fail=lost@7").faults.lost_at, 7u);
  const auto r = emu("emu:fail=random:0.25:seed=9");
  EXPECT_EQ(r.faults.probability, 0.25);
  EXPECT_EQ(r.faults.seed, 9u);
  EXPECT_TRUE(emu("emu:fail=kernel").fail_kernels);
  EXPECT_TRUE(emu("emu:fail=alloc").fail_allocation);
  for (const char* bad : {"emu:fail=kernel@0", "emu:fail=kernel@", "emu:fail=copy@x", "emu:fail=copy@1.5",
                          "emu:fail=random", "emu:fail=random:2", "emu:fail=random:seed=1", "emu:fail=disk@1",
                          "emu:fail=", "emu:seed=-1", "emu:seed=x"}) {
    try {
      parse_device_list(bad);
      ADD_FAILURE() << bad << ": accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("device 'emu:"), std::string::npos) << bad << ": " << e.what();
    }
  }
}

// opencl/cuda: fail= and seed= are parsed here (devices/fault.hpp), the rest
// goes to the backend as before.
TEST(DeviceSpec, FaultKeysOnRealDevices) {
  const auto items = parse_device_list("opencl:0:mem=1M:fail=random:0.5:seed=4,cuda:fail=copy@3,opencl:all");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].which, "0:mem=1M");
  EXPECT_EQ(items[0].faults.probability, 0.5);
  EXPECT_EQ(items[0].faults.seed, 4u);
  EXPECT_EQ(items[1].which, "0");
  EXPECT_EQ(items[1].faults.copy_at, 3u);
  EXPECT_EQ(items[2].which, "all");
  EXPECT_FALSE(items[2].faults.any());
  EXPECT_THROW(parse_device_list("opencl:fail=kernel"), std::invalid_argument);  // every kernel: emu only
  EXPECT_THROW(parse_device_list("cuda:0:fail=alloc@0"), std::invalid_argument);
  EXPECT_THROW(parse_device_list("cuda:0:mem=1G"), std::invalid_argument);
}
