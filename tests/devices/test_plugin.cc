// The plugin loader (devices/plugin.hpp): back ends this build has are found
// beside libhetla, HETLA_PLUGIN_PATH comes first, and a plugin that is
// missing or broken is an error naming the file and the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

#include "devices/plugin.hpp"

namespace {

using namespace hetla;
namespace fs = std::filesystem;

std::string message_of(const std::string& kind) {
  try {
    dev::plugin(kind);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(Plugin, BuiltBackendsAreFoundBesideTheLibrary) {
  const auto kinds = dev::plugin_kinds();
#ifdef HETLA_HAVE_OPENCL
  ASSERT_NE(std::find(kinds.begin(), kinds.end(), "opencl"), kinds.end());
  const auto status = dev::plugin_status();
  auto it = std::find_if(status.begin(), status.end(), [](const auto& s) { return s.kind == "opencl"; });
  ASSERT_NE(it, status.end());
  EXPECT_TRUE(it->loaded) << it->reason;
  EXPECT_TRUE(it->path.ends_with("/libhetla_opencl.so")) << it->path;
  EXPECT_STREQ(dev::plugin("opencl").kind, "opencl");
#else
  GTEST_SKIP() << "no OpenCL plugin in this build";
#endif
}

TEST(Plugin, EnvironmentPathComesFirst) {
  setenv("HETLA_PLUGIN_PATH", "/nonexistent/a:/nonexistent/b", 1);
  const auto dirs = dev::plugin_dirs();
  unsetenv("HETLA_PLUGIN_PATH");
  ASSERT_GE(dirs.size(), 3u);
  EXPECT_EQ(dirs[0], "/nonexistent/a");
  EXPECT_EQ(dirs[1], "/nonexistent/b");
}

TEST(Plugin, MissingPluginNamesTheFileAndWhereItLooked) {
  const std::string msg = message_of("nosuchbackend");
  EXPECT_NE(msg.find("libhetla_nosuchbackend.so not found"), std::string::npos) << msg;
  EXPECT_NE(msg.find("HETLA_PLUGIN_PATH"), std::string::npos) << msg;
}

TEST(Plugin, BrokenPluginNamesTheFileAndTheLoadersReason) {
  const fs::path dir = fs::temp_directory_path() / ("hetla_plugin_" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  std::ofstream(dir / "libhetla_broken.so") << "not an ELF file";
  setenv("HETLA_PLUGIN_PATH", dir.c_str(), 1);
  const std::string msg = message_of("broken");
  unsetenv("HETLA_PLUGIN_PATH");
  fs::remove_all(dir);
  EXPECT_NE(msg.find((dir / "libhetla_broken.so").string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("could not be loaded"), std::string::npos) << msg;
}

}  // namespace
