#include "tune/split_model.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "runtime/runtime.hpp"
#include "tune/calibrate.hpp"
#include "tune/json_file.hpp"

namespace hetla::tune {

namespace {

constexpr int kSplitVersion = 1;  // bump on an incompatible change of the file

std::vector<double> normalised(std::vector<double> s) {
  double total = 0;
  for (double& x : s) total += (x = std::max(0.0, x));
  if (total > 0)
    for (double& x : s) x /= total;
  return s;
}

}  // namespace

std::optional<std::vector<double>> SplitModel::predict(const std::string& devices, double n) const {
  const SplitPoint *lo = nullptr, *hi = nullptr;  // nearest learned sizes below / above n
  for (const auto& p : points_) {
    if (p.devices != devices) continue;
    if (p.n <= n && (!lo || p.n > lo->n)) lo = &p;
    if (p.n >= n && (!hi || p.n < hi->n)) hi = &p;
  }
  if (!lo && !hi) return std::nullopt;
  if (!lo) return hi->shares;
  // Two points of one device set with different share counts (a hand-edited
  // file): no interpolation between them; the caller checks the count.
  if (!hi || hi->n == lo->n || hi->shares.size() != lo->shares.size()) return lo->shares;
  const double t = (n - lo->n) / (hi->n - lo->n);
  std::vector<double> s(lo->shares.size());
  for (std::size_t d = 0; d < s.size(); ++d) s[d] = (1 - t) * lo->shares[d] + t * hi->shares[d];
  return normalised(std::move(s));
}

void SplitModel::set(SplitPoint p) {
  p.shares = normalised(std::move(p.shares));
  for (auto& q : points_)
    if (q.devices == p.devices && q.n == p.n) {
      q = std::move(p);
      return;
    }
  points_.push_back(std::move(p));
  std::sort(points_.begin(), points_.end(),
            [](const SplitPoint& a, const SplitPoint& b) { return a.devices != b.devices ? a.devices < b.devices : a.n < b.n; });
}

std::string SplitModel::default_path() {
  if (const char* p = std::getenv("HETLA_SPLIT_MODEL"); p && *p) return p;
  return (std::filesystem::path(weights_path()).parent_path() / "split.json").string();
}

// {"version": 1, "gemm_split": [{"devices": "cpu:X*3|emu:Y", "n": 2000, "shares": [0.61, 0.39]}, ...]}
void SplitModel::save(const std::string& path) const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& q : points_) list.push_back({{"devices", q.devices}, {"n", q.n}, {"shares", q.shares}});
  write_json_file(path, {{"version", kSplitVersion}, {"gemm_split", std::move(list)}});
}

SplitModel SplitModel::load(const std::string& path) {
  std::ifstream f(path);
  if (!f) return {};
  return parse(f, path);
}

SplitModel SplitModel::parse(std::istream& f, const std::string& path) {
  SplitModel m;
  const nlohmann::json doc = read_json_file(f, path, "split model");
  check_version(doc, path, "split model", kSplitVersion);
  const FieldError bad{"split model " + path};
  const nlohmann::json& points = member(doc, "gemm_split", bad);
  if (!points.is_array()) throw bad("gemm_split", "must be an array");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = indexed("gemm_split", i);
    if (!points[i].is_object()) throw bad(at, "must be an object");
    SplitPoint p;
    p.devices = string_field(points[i], at + ".devices", "devices", bad);
    p.n = positive_field(points[i], at + ".n", "n", bad);
    const nlohmann::json& shares = member(points[i], "shares", bad, at + ".shares");
    if (!shares.is_array() || shares.empty()) throw bad(at + ".shares", "must be a non-empty array of numbers");
    for (std::size_t d = 0; d < shares.size(); ++d) {
      if (!shares[d].is_number() || !(shares[d].get<double>() >= 0))
        throw bad(indexed(at + ".shares", d), "must be a number >= 0");
      p.shares.push_back(shares[d].get<double>());
    }
    m.set(std::move(p));
  }
  return m;
}

std::string device_set_key(const rt::Runtime& rt) {
  std::string key;
  for (int d = 0; d < rt.num_devices(); ++d) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "|" + string.
    if (d) key += '|';
    key += device_key(rt.device(d));
    if (d == 0) key.append(1, '*').append(std::to_string(rt.num_host_workers()));
  }
  return key;
}

namespace {
std::mutex g_model_mutex;
std::unique_ptr<SplitModel> g_model;
}  // namespace

std::optional<std::vector<double>> predict_split(const rt::Runtime& rt, double n) {
  const std::string key = device_set_key(rt);
  std::lock_guard<std::mutex> lk(g_model_mutex);
  if (!g_model) {
    try {
      g_model = std::make_unique<SplitModel>(SplitModel::load(SplitModel::default_path()));
    } catch (const std::exception& e) {  // a damaged file: capability weights, as without one
      std::fprintf(stderr, "hetla: ignoring the split model: %s\n", e.what());
      g_model = std::make_unique<SplitModel>();
    }
  }
  auto s = g_model->predict(key, n);
  if (s && s->size() != static_cast<std::size_t>(rt.num_devices())) return std::nullopt;
  return s;
}

void set_cached_model(SplitModel m) {
  std::lock_guard<std::mutex> lk(g_model_mutex);
  g_model = std::make_unique<SplitModel>(std::move(m));
}

double busy_imbalance(const std::vector<double>& busy) {
  double mx = 0, sum = 0;
  int k = 0;
  for (double b : busy)
    if (b > 0) mx = std::max(mx, b), sum += b, ++k;
  return k == 0 ? 1.0 : mx / (sum / k);
}

std::vector<double> learn_split(const std::vector<double>& start, const SplitRun& run, int rounds) {
  std::vector<double> shares = normalised(start), best = shares;
  double best_imb = std::numeric_limits<double>::infinity();
  for (int r = 0; r < std::max(1, rounds); ++r) {
    const std::vector<double> busy = run(shares);
    const double imb = busy_imbalance(busy);
    if (imb < best_imb) best_imb = imb, best = shares;
    // share / busy is the device's rate on this very problem (its transfers
    // and overheads included): shares proportional to it equalise busy time.
    std::vector<double> next(shares.size(), 0);
    for (std::size_t d = 0; d < shares.size(); ++d)
      next[d] = shares[d] > 0 && d < busy.size() && busy[d] > 0 ? shares[d] / busy[d] : 0;
    if (std::accumulate(next.begin(), next.end(), 0.0) <= 0) break;
    shares = normalised(std::move(next));
  }
  return best;
}

}  // namespace hetla::tune
