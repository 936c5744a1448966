#include "devices/emulated/emulated_device.hpp"

#include <cstring>
#include <ctime>
#include <string>
#include <thread>

#include "util/pages.hpp"

namespace hetla::dev {

EmulatedDevice::EmulatedDevice(std::string name, EmulatedConfig cfg)
    : Device(Kind::Emulated, std::move(name)), cfg_(cfg) {
  if (!(cfg_.speed > 0 && cfg_.speed <= 1)) throw std::invalid_argument("emulated device: speed must be in (0, 1]");
  set_fault_plan(cfg_.faults);
}

EmulatedDevice::~EmulatedDevice() { release_pool(); }

double EmulatedDevice::thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void* EmulatedDevice::allocate(std::size_t bytes) {
  if (cfg_.fail_allocation) return nullptr;
  inject_fault(FaultOp::Alloc);
  std::size_t used = used_.load();
  do {
    if (cfg_.memory > 0 && used + bytes > cfg_.memory) return nullptr;
  } while (!used_.compare_exchange_weak(used, used + bytes));
  {
    std::lock_guard<std::mutex> lk(pool_mutex_);
    auto it = pool_.find(bytes);
    if (it != pool_.end()) {
      void* p = it->second;
      pool_.erase(it);
      return p;
    }
  }
  void* p = util::alloc_pages(bytes);
  if (!p) used_ -= bytes;
  return p;
}

void EmulatedDevice::deallocate(void* p, std::size_t bytes) {
  if (!p) return;
  {
    std::lock_guard<std::mutex> lk(pool_mutex_);
    pool_.emplace(bytes, p);
  }
  used_ -= bytes;
}

void EmulatedDevice::release_pool() {
  std::lock_guard<std::mutex> lk(pool_mutex_);
  for (auto& [bytes, p] : pool_) util::free_pages(p, bytes);
  pool_.clear();
}

void EmulatedDevice::throttle(std::chrono::steady_clock::time_point t0, std::size_t bytes) const {
  double seconds = cfg_.latency_us * 1e-6 + (cfg_.bandwidth_gbs > 0 ? static_cast<double>(bytes) / (cfg_.bandwidth_gbs * 1e9) : 0);
  if (seconds > 0) std::this_thread::sleep_until(t0 + std::chrono::nanoseconds(static_cast<int64_t>(seconds * 1e9)));
}

void EmulatedDevice::copy_in(void* dev, const void* host, int64_t host_ld, int64_t rows, int64_t cols, std::size_t elem) {
  inject_fault(FaultOp::Copy);
  auto t0 = std::chrono::steady_clock::now();
  auto* d = static_cast<char*>(dev);
  auto* h = static_cast<const char*>(host);
  for (int64_t j = 0; j < cols; ++j) std::memcpy(d + j * rows * elem, h + j * host_ld * elem, rows * elem);
  throttle(t0, static_cast<std::size_t>(rows * cols) * elem);
}

void EmulatedDevice::copy_out(void* host, int64_t host_ld, const void* dev, int64_t rows, int64_t cols, std::size_t elem) {
  inject_fault(FaultOp::Copy);
  auto t0 = std::chrono::steady_clock::now();
  auto* d = static_cast<const char*>(dev);
  auto* h = static_cast<char*>(host);
  for (int64_t j = 0; j < cols; ++j) std::memcpy(h + j * host_ld * elem, d + j * rows * elem, rows * elem);
  throttle(t0, static_cast<std::size_t>(rows * cols) * elem);
}

}  // namespace hetla::dev
