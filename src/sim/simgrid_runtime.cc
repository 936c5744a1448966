#include "sim/simgrid_runtime.hpp"

#include <algorithm>
#include <simgrid/s4u.hpp>
#include <string>

#include "runtime/runtime_detail.hpp"

namespace hetla::sim {

namespace s4u = simgrid::s4u;

Platform::Platform(const MachineModel& m) {
  auto* zone = s4u::create_full_zone("node");
  cpu = zone->create_host("cpu", 1e9);
  std::vector<s4u::Link*> hubs;
  for (std::size_t i = 0; i < m.hubs.size(); ++i)
    hubs.push_back(zone->create_link("hub" + std::to_string(i), m.hubs[i].gbs * 1e9)
                       ->set_latency(m.hubs[i].latency_us * 1e-6)
                       ->seal());
  for (const auto& dm : m.devices)
    for (int k = 0; k < dm.count; ++k) {
      const std::string name = dm.name + std::to_string(k);
      s4u::Host* h = zone->create_host(name, 1e9);
      s4u::Link* l = zone->create_link(name + "-link", dm.link_gbs * 1e9)->set_latency(dm.link_latency_us * 1e-6)->seal();
      zone->add_route(cpu->get_netpoint(), h->get_netpoint(), nullptr, nullptr,
                      {s4u::LinkInRoute(hubs[static_cast<std::size_t>(dm.hub)]), s4u::LinkInRoute(l)}, true);
      devices.push_back(h);
    }
  zone->seal();
}

struct SimThreads::Channel {
  s4u::MutexPtr mutex = s4u::Mutex::create();
  s4u::ConditionVariablePtr cv = s4u::ConditionVariable::create();
};

SimThreads::~SimThreads() {
  for (void* a : actors_) intrusive_ptr_release(static_cast<s4u::Actor*>(a));
}

void SimThreads::start(std::function<void()> fn) {
  s4u::ActorPtr a = s4u::Actor::create("worker", host_, std::move(fn));
  intrusive_ptr_add_ref(a.get());
  actors_.push_back(a.get());
}

void SimThreads::join_all() {
  for (void* a : actors_) static_cast<s4u::Actor*>(a)->join();
}

SimThreads::Channel& SimThreads::channel(int c) {
  if (auto it = channels_.find(c); it != channels_.end()) return *it->second;
  auto ch = std::make_shared<Channel>();  // creating may yield: another actor may have added one meanwhile
  return *channels_.emplace(c, std::move(ch)).first->second;
}

// Actors run one at a time and only yield in SimGrid calls: a notify cannot
// fall between the ready() check and the wait, which releases the mutex.
void SimThreads::wait(int c, const std::function<bool()>& ready) {
  Channel& ch = channel(c);
  std::unique_lock<s4u::Mutex> lk(*ch.mutex);
  while (!ready()) ch.cv->wait(lk);
}

void SimThreads::notify(int c, int n) {
  Channel& ch = channel(c);
  if (n >= kAll) ch.cv->notify_all();
  else
    for (int i = 0; i < n; ++i) ch.cv->notify_one();
}

int64_t SimClock::now_ns() const { return static_cast<int64_t>(s4u::Engine::get_clock() * 1e9 + 0.5); }

// A task's kernel: its device kernel id, else its label (the host-only
// panels; a host block GEMM is labelled "gemm"). Its work: the flops it
// carries, except laswp, which carries none and is timed by the bytes of the
// rows it exchanges. How many rows that is depends on the pivots (data): the
// simulation assumes every pivot row differs from its row (partial pivoting
// on a random matrix almost always swaps), i.e. tile rows x the number of
// panels whose pivots it reads (its accesses to shapeless pivot handles), or
// every row it touches when it reads none (getrs: pivots known beforehand).
double SimExecutor::task_seconds(const rt::Task& t, int d) const {
  const std::size_t k = t.kernel != dev::KernelId::None ? static_cast<std::size_t>(t.kernel) : model_kernel_of(t.label);
  const bool laswp = t.kernel == dev::KernelId::Laswp;
  if (k == 0 || t.acc.empty() || (t.flops <= 0 && !laswp)) return 0;
  int64_t nb = 0, rows = 0, first_rows = 0, pivots = 0, cols = 0, written_rows = 0;
  std::size_t elem = 8;
  for (const auto& a : t.acc) {
    if (a.handle->rows == 0) {  // a pivot handle (no data)
      ++pivots;
      continue;
    }
    nb = std::max({nb, a.handle->rows, a.handle->cols});
    elem = a.handle->elem_size;
    if (first_rows == 0) first_rows = a.handle->rows;
    rows += a.handle->rows;
    if (a.mode == rt::Mode::ReadWrite) written_rows += a.handle->rows;
    cols = a.handle->cols;
  }
  // a panel's rate is a curve over its height (the tiles it factors), not nb
  const bool panel = k == kGetrfPanel || k == kGeqrfPanel;
  if (panel) nb = written_rows;
  const double r = rates_[static_cast<std::size_t>(d)]->flops_per_second(k, precision_, static_cast<double>(nb));
  if (r <= 0) return 0;
  if (laswp) {
    const double swaps = static_cast<double>(pivots > 0 ? std::min(rows, pivots * first_rows) : rows);
    return 4.0 * swaps * static_cast<double>(cols) * static_cast<double>(elem) / r;
  }
  return t.flops / r;
}

void SimExecutor::run(rt::Task& t, rt::TaskContext& ctx) {
  settle();
  const double s = task_seconds(t, ctx.device->id());
  if (s > 0) s4u::this_actor::sleep_for(s);
}

// A copy in runs without locks held: it takes its simulated time at once.
void SimExecutor::copy_in(dev::Device& d, void*, const void*, int64_t, int64_t rows, int64_t cols, std::size_t elem) {
  s4u::Comm::sendto(platform_.cpu, platform_.devices[static_cast<std::size_t>(d.id() - 1)],
                    static_cast<uint64_t>(rows * cols) * elem);
}

// A copy out may run under a handle's spin lock (write-backs, evictions):
// yielding there would let another actor spin on it forever, so its time is
// taken at the actor's next task (or settle()).
void SimExecutor::copy_out(dev::Device& d, void*, int64_t, const void*, int64_t rows, int64_t cols, std::size_t elem) {
  deferred_[s4u::this_actor::get_pid()].push_back({d.id(), static_cast<uint64_t>(rows * cols) * elem});
}

void SimExecutor::settle() {
  auto it = deferred_.find(s4u::this_actor::get_pid());
  if (it == deferred_.end() || it->second.empty()) return;
  std::vector<Out> outs;
  outs.swap(it->second);
  for (const Out& o : outs)
    s4u::Comm::sendto(platform_.devices[static_cast<std::size_t>(o.device - 1)], platform_.cpu, o.bytes);
}

}  // namespace hetla::sim
