// The plugin loader (devices/plugin.hpp): back ends this build has are found
// beside libhetla, HETLA_PLUGIN_PATH comes first, and a plugin that is
// missing or broken is an error naming the file and the reason: when its
// device is requested, in plugin_status (hetla info), for a file that is not
// an ELF object, a plugin whose own library is missing, one built for another
// ABI and a library without the entry point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "devices/plugin.hpp"
#include "devices/spec.hpp"

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

/// A fresh directory, removed at the end of the test.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("hetla_plugin_" + std::to_string(std::random_device{}()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// The loader searching only the given directories, its state forgotten
/// before and after (plugins already mapped stay mapped).
class PluginDirs : public testing::Test {
 protected:
  void TearDown() override { dev::detail::reset_plugins_for_testing(); }
  void search_only(const fs::path& dir) { dev::detail::set_plugin_dirs_for_testing({dir.string()}); }
};

TEST_F(PluginDirs, RequestingADeviceWhosePluginIsMissingNamesThePlugin) {
  const auto kinds = dev::plugin_kinds();
  if (kinds.empty()) GTEST_SKIP() << "no plugin in this build";
  const std::string kind = kinds.front();  // opencl when built
  TempDir empty;
  search_only(empty.path);
  try {
    dev::parse_devices("cpu," + kind);
    ADD_FAILURE() << "requesting " << kind << " without its plugin did not throw";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("libhetla_" + kind + ".so not found"), std::string::npos) << msg;
    EXPECT_NE(msg.find(empty.path.string()), std::string::npos) << msg;
  }
  // Probing shows none of its devices; the status says why.
  for (const auto& d : dev::probe_devices()) EXPECT_NE(d.kind, kind);
  const auto status = dev::plugin_status();
  auto it = std::find_if(status.begin(), status.end(), [&](const auto& s) { return s.kind == kind; });
  ASSERT_NE(it, status.end());
  EXPECT_FALSE(it->loaded);
  EXPECT_NE(it->reason.find("libhetla_" + kind + ".so not found"), std::string::npos) << it->reason;
}

TEST_F(PluginDirs, APluginWhoseOwnLibraryIsMissingNamesTheFileAndTheLibrary) {
  TempDir dir;
  // As the OpenCL plugin: a file that is there but does not load must be the
  // error (not "not found", not skipped for the build tree's good plugin).
  const fs::path plugin = dir.path / "libhetla_opencl.so";
  fs::create_symlink(HETLA_TEST_NEEDS_DEP_PLUGIN, plugin);
  dev::detail::set_plugin_dirs_for_testing({dir.path.string(), dev::plugin_dirs().back()});
  const std::string msg = message_of("opencl");
  EXPECT_NE(msg.find(plugin.string() + ": "), std::string::npos) << msg;
  EXPECT_NE(msg.find("libhetla_test_missing_dep.so"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("not found ("), std::string::npos) << msg;
}

TEST_F(PluginDirs, APluginBuiltForAnotherAbiIsRefused) {
  TempDir dir;
  fs::create_symlink(HETLA_TEST_STALE_PLUGIN, dir.path / "libhetla_stale.so");
  search_only(dir.path);
  const std::string msg = message_of("stale");
  EXPECT_NE(msg.find("plugin ABI " + std::to_string(dev::PluginApi::kAbi + 1) + ", this libhetla needs " +
                     std::to_string(dev::PluginApi::kAbi)),
            std::string::npos)
      << msg;
}

TEST_F(PluginDirs, ALibraryWithoutTheEntryPointIsRefused) {
  TempDir dir;
  fs::create_symlink(HETLA_TEST_STALE_PLUGIN, dir.path / "libhetla_other.so");  // has hetla_plugin_stale only
  search_only(dir.path);
  const std::string msg = message_of("other");
  EXPECT_NE(msg.find("no hetla_plugin_other() in it"), std::string::npos) << msg;
}

}  // namespace
