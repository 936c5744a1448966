// The capability weights file and the split model: JSON however it is laid
// out, with a version, and errors that name the file and the field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tune/calibrate.hpp"
#include "tune/split_model.hpp"

using namespace hetla::tune;

namespace {

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& tag)
      : path((std::filesystem::temp_directory_path() / ("hetla-" + tag + "-" + std::to_string(::getpid()) + ".json"))
                 .string()) {}
  ~TempFile() { std::filesystem::remove(path); }
  void write(const std::string& text) const { std::ofstream(path, std::ios::trunc) << text; }
};

/// The message load() throws, or "" when it does not throw.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(WeightsFile, PrettyPrintedFileIsRead) {
  TempFile f("weights-pretty");
  f.write(R"({
    "version": 1,
    "rates": [
      {
        "kernel": "gemm",
        "device": "cpu:Some \"quoted\" CPU",
        "gflops": 36.5
      },
      { "device": "emu:speed=0.5", "kernel": "potrf", "gflops": 2e1 }
    ]
  }
)");
  const auto rates = load(f.path);
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_EQ(rates[0].device, "cpu:Some \"quoted\" CPU");
  EXPECT_EQ(rates[0].kernel, "gemm");
  EXPECT_DOUBLE_EQ(rates[0].gflops, 36.5);
  EXPECT_DOUBLE_EQ(rates[1].gflops, 20.0);
}

TEST(WeightsFile, SaveMergesAndRoundTrips) {
  TempFile f("weights-save");
  save({{"cpu:x", "gemm", 10}, {"emu:speed=0.5", "herk", 4}}, f.path);
  save({{"cpu:x", "gemm", 12}}, f.path);  // replaces cpu:x gemm, keeps the rest
  const auto rates = load(f.path);
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_DOUBLE_EQ(rates[0].gflops, 12);
  EXPECT_EQ(rates[1].device, "emu:speed=0.5");
  std::ifstream in(f.path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"version\": 1"), std::string::npos) << text;
}

TEST(WeightsFile, MalformedFieldIsNamed) {
  TempFile f("weights-bad");
  f.write(R"({"version": 1, "rates": [{"device": "a", "kernel": "gemm", "gflops": 1},
                                       {"device": "b", "kernel": "gemm", "gflops": -3}]})");
  const std::string msg = error_of([&] { load(f.path); });
  EXPECT_NE(msg.find("weights file " + f.path), std::string::npos) << msg;
  EXPECT_NE(msg.find("field \"rates[1].gflops\" must be a positive number"), std::string::npos) << msg;

  f.write(R"({"version": 1, "rates": [{"device": "a", "kernel": "gemv", "gflops": 1}]})");
  EXPECT_NE(error_of([&] { load(f.path); }).find("\"rates[0].kernel\""), std::string::npos);
  f.write(R"({"version": 1, "rates": [{"kernel": "gemm", "gflops": 1}]})");
  EXPECT_NE(error_of([&] { load(f.path); }).find("\"rates[0].device\" is missing"), std::string::npos);
  f.write(R"({"version": 1, "rates": {}})");
  EXPECT_NE(error_of([&] { load(f.path); }).find("\"rates\" must be an array"), std::string::npos);
  f.write(R"({"version": 1, "rates": [)");
  EXPECT_NE(error_of([&] { load(f.path); }).find("not valid JSON"), std::string::npos);
}

TEST(WeightsFile, VersionMissingOrTooNew) {
  TempFile f("weights-version");
  f.write(R"({"rates": [{"device": "a", "kernel": "gemm", "gflops": 1}]})");
  std::string msg = error_of([&] { load(f.path); });
  EXPECT_NE(msg.find(f.path), std::string::npos) << msg;
  EXPECT_NE(msg.find("field \"version\" is missing"), std::string::npos) << msg;
  f.write(R"({"version": 99, "rates": []})");
  msg = error_of([&] { load(f.path); });
  EXPECT_NE(msg.find("field \"version\" 99 is newer than this hetla reads"), std::string::npos) << msg;
  f.write(R"({"version": "1", "rates": []})");
  EXPECT_NE(error_of([&] { load(f.path); }).find("\"version\" must be a positive integer"), std::string::npos);
  std::filesystem::remove(f.path);
  EXPECT_TRUE(load(f.path).empty());  // no file: no rates, no error
}

TEST(SplitModelFile, MalformedFieldAndVersionAreNamed) {
  TempFile f("split-bad");
  f.write(R"({"version": 1, "gemm_split": [{"devices": "cpu", "n": 1000, "shares": [1, "x"]}]})");
  std::string msg = error_of([&] { SplitModel::load(f.path); });
  EXPECT_NE(msg.find("split model " + f.path), std::string::npos) << msg;
  EXPECT_NE(msg.find("\"gemm_split[0].shares[1]\""), std::string::npos) << msg;
  f.write(R"({"gemm_split": []})");
  EXPECT_NE(error_of([&] { SplitModel::load(f.path); }).find("\"version\" is missing"), std::string::npos);
  f.write("{\n  \"version\": 1,\n  \"gemm_split\": [\n    {\n      \"devices\": \"cpu\",\n      \"n\": 1000,\n"
          "      \"shares\": [1]\n    }\n  ]\n}\n");
  EXPECT_EQ(SplitModel::load(f.path).points().size(), 1u);
}
