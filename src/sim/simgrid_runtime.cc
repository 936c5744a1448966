#include "sim/simgrid_runtime.hpp"

#include <algorithm>
#include <simgrid/s4u.hpp>
#include <string>

#include "runtime/runtime_detail.hpp"

namespace hetla::sim {

namespace s4u = simgrid::s4u;

namespace {

// A full-duplex link is a SimGrid split-duplex link: two links of the full
// bandwidth, UP carrying what flows from the host toward the device, DOWN
// what flows back; a half-duplex one is one link both directions share.
// It matters since every GPU task's output is checkpointed to the host:
// seed000-system-a potrf n = 60 000 predicts 1.05 TFLOP/s with shared
// links and hubs, 1.36 with full-duplex ones (docs/simulation.md).
// out_gbs (> 0, full duplex only): the DOWN half's own bandwidth.
s4u::Link* make_link(s4u::NetZone* zone, const std::string& name, double gbs, double latency_us, bool full_duplex,
                     double out_gbs = 0) {
  if (!full_duplex) return zone->create_link(name, gbs * 1e9)->set_latency(latency_us * 1e-6)->seal();
  s4u::SplitDuplexLink* l = zone->create_split_duplex_link(name, gbs * 1e9);
  if (out_gbs > 0) l->get_link_down()->set_bandwidth(out_gbs * 1e9);
  return l->set_latency(latency_us * 1e-6)->seal();
}

// The link in a route, crossed toward the device (`toward_device`) or back.
s4u::LinkInRoute hop(const s4u::Link* l, bool toward_device) {
  if (l->get_sharing_policy() != s4u::Link::SharingPolicy::SPLITDUPLEX) return s4u::LinkInRoute(l);
  return {l, toward_device ? s4u::LinkInRoute::Direction::UP : s4u::LinkInRoute::Direction::DOWN};
}

}  // namespace

Platform::Platform(const MachineModel& m, int n) : nodes(std::max(1, n)) {
  for (const auto& dm : m.devices) accels += dm.count;
  auto* zone = s4u::create_full_zone(nodes > 1 ? "cluster" : "node");
  struct Node {
    s4u::Host* cpu;
    std::vector<s4u::Host*> devs;
    std::vector<std::vector<const s4u::Link*>> pcie;  // links from the cpu to each device, in order
    s4u::Link *up = nullptr, *down = nullptr;
  };
  std::vector<Node> all;
  for (int k = 0; k < nodes; ++k) {
    const std::string pre = nodes > 1 ? "n" + std::to_string(k) + "." : "";
    Node nd{zone->create_host(pre + "cpu", 1e9), {}, {}};
    std::vector<s4u::Link*> hubs;
    for (std::size_t i = 0; i < m.hubs.size(); ++i)
      hubs.push_back(make_link(zone, pre + "hub" + std::to_string(i), m.hubs[i].gbs, m.hubs[i].latency_us,
                               m.hubs[i].full_duplex));
    for (const auto& dm : m.devices)
      for (int c = 0; c < dm.count; ++c) {
        const std::string name = pre + dm.name + std::to_string(c);
        s4u::Host* h = zone->create_host(name, 1e9);
        s4u::Link* l =
            make_link(zone, name + "-link", dm.link_gbs, dm.link_latency_us, dm.link_full_duplex, dm.link_out_gbs);
        std::vector<const s4u::Link*> links{hubs[static_cast<std::size_t>(dm.hub)], l};
        // symmetrical: SimGrid takes the DOWN halves of split-duplex links for the way back
        zone->add_route(nd.cpu->get_netpoint(), h->get_netpoint(), nullptr, nullptr,
                        {hop(links[0], true), hop(links[1], true)}, true);
        nd.devs.push_back(h);
        nd.pcie.push_back(std::move(links));
        devices.push_back(h);
      }
    if (nodes > 1) {  // the network interface: a link per direction (full duplex)
      nd.up = zone->create_link(pre + "nic-out", m.network_gbs * 1e9)->set_latency(m.network_latency_us * 1e-6)->seal();
      nd.down = zone->create_link(pre + "nic-in", m.network_gbs * 1e9)->set_latency(m.network_latency_us * 1e-6)->seal();
    }
    node_cpus.push_back(nd.cpu);
    all.push_back(std::move(nd));
  }
  cpu = node_cpus[0];
  // between nodes: node a's memory to node b's memory or accelerators, and
  // b's accelerators back to a's memory (the only copies the executor makes)
  for (const Node& a : all)
    for (const Node& b : all) {
      if (&a == &b) continue;
      const s4u::LinkInRoute out(a.up), in(b.down);
      zone->add_route(a.cpu->get_netpoint(), b.cpu->get_netpoint(), nullptr, nullptr, {out, in}, false);
      for (std::size_t i = 0; i < b.devs.size(); ++i) {
        std::vector<s4u::LinkInRoute> to{out, in}, from;
        for (const s4u::Link* l : b.pcie[i]) to.push_back(hop(l, true));
        for (auto l = b.pcie[i].rbegin(); l != b.pcie[i].rend(); ++l) from.push_back(hop(*l, false));
        from.push_back(s4u::LinkInRoute(b.up));
        from.push_back(s4u::LinkInRoute(a.down));
        zone->add_route(a.cpu->get_netpoint(), b.devs[i]->get_netpoint(), nullptr, nullptr, to, false);
        zone->add_route(b.devs[i]->get_netpoint(), a.cpu->get_netpoint(), nullptr, nullptr, from, false);
      }
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

void SimExecutor::copies_on_cores(int d, double in_gbs, double out_gbs, int threads) {
  core_copies_.resize(rates_.size());
  core_copies_.at(static_cast<std::size_t>(d)) = {in_gbs, out_gbs > 0 ? out_gbs : in_gbs};
  core_threads_ = std::max(1, threads);
}

// A kernel on the host's cores (a host worker's, or an emulated device's)
// also takes its thread's share of the copies made on those cores since its
// previous one while every thread there computed: the copy threads' memcpy
// is CPU time, and with no core idle it comes out of the computing threads
// (charge_copy). Measured (potrf n = 8000, cpu + emu:speed=0.5, nb 256): the
// host worker's gemm took 549-565 us against 537-544 calibrated, the emu's
// 1247-1288 against 1220-1251, while the copy threads ran 200 ms; with
// emu:speed=1 633 and 602 against 550. Charged for every copy, getrf 2000
// on cpu,emu (its emu idle a quarter of the run) was predicted 8-12 % slow.
// Spread evenly: a copy thread runs wherever the scheduler puts it.
void SimExecutor::run(rt::Task& t, rt::TaskContext& ctx) {
  settle();
  const int d = ctx.device->id();
  double s = task_seconds(t, d);
  const bool on_cores = d == 0 || copies_on_cores(d);
  if (s > 0 && on_cores && core_debt_ > 0) {
    double& paid = debt_paid_[s4u::this_actor::get_pid()];
    const double owed = core_debt_ / core_threads_ - paid;
    if (owed > 0) s += owed, paid += owed;
  }
  if (s <= 0) return;
  if (on_cores) ++cores_computing_;
  s4u::this_actor::sleep_for(s);
  if (on_cores) --cores_computing_;
}

// A copy on the host's cores costs the computing threads only when none of
// them is idle at that moment: else it runs on the idle one's core.
void SimExecutor::charge_copy(int d, double bytes, bool in) {
  if (!copies_on_cores(d) || cores_computing_ < core_threads_) return;
  const CoreCopies& c = core_copies_[static_cast<std::size_t>(d)];
  core_debt_ += bytes / ((in ? c.in_gbs : c.out_gbs) * 1e9);
}

// A copy in runs without locks held: it takes its simulated time at once.
// On a cluster a tile's home copy is in the memory of the node owning it
// (its home device's node). A node's host cores read their own node's
// memory at no cost. A node that does not hold the tile's current version
// receives it over the network, once per version, from the holder (the
// owner, or a node that received it already) that has sent the fewest
// copies: the owner's interface does not carry every copy, as the MPI
// layer's binary-tree broadcast spreads them (distributed.cc).
void SimExecutor::copy_in(dev::Device& d, const rt::Handle& h, void*, const void*, int64_t, int64_t rows, int64_t cols,
                          std::size_t elem) {
  const uint64_t bytes = static_cast<uint64_t>(rows * cols) * elem;
  const int dv = d.id();
  if (platform_.nodes == 1) {
    in_[static_cast<std::size_t>(dv)] += bytes;
    charge_copy(dv, static_cast<double>(bytes), true);
    s4u::Comm::sendto(platform_.cpu, platform_.host_of(dv), bytes);
    return;
  }
  const auto a = static_cast<std::size_t>(home_node(h)), b = static_cast<std::size_t>(platform_.node_of(dv));
  s4u::Host* from = platform_.node_cpus[b];
  std::size_t src = b;
  bool arrives = false;
  if (a != b) {
    Holders& got = received_[&h];
    if (got.state.empty()) {
      got.state.assign(platform_.node_cpus.size(), 0);
      got.sent.assign(platform_.node_cpus.size(), 0);
    }
    if (got.state[b] == 0) {  // concurrent readers on b then take only their local hop
      got.state[b] = 1;
      src = a;
      for (std::size_t k = 0; k < got.state.size(); ++k)
        if (got.state[k] == 2 && got.sent[k] < got.sent[src]) src = k;
      ++got.sent[src];
      from = platform_.node_cpus[src];
      network_ += bytes;
      arrives = true;
    }
  }
  s4u::Host* to = platform_.host_of(dv);
  if (from == to) return;
  in_[static_cast<std::size_t>(dv)] += bytes;
  s4u::Comm::sendto(from, to, bytes);
  if (arrives)  // unless a new version was written back meanwhile
    if (auto it = received_.find(&h); it != received_.end() && it->second.state[b] == 1) it->second.state[b] = 2;
}

// A copy out may run under a handle's spin lock (write-backs, evictions):
// yielding there would let another actor spin on it forever, so its time is
// taken at the actor's next task (or settle()). On a cluster it goes to the
// memory of the tile's node, and makes every other node's copy stale.
void SimExecutor::copy_out(dev::Device& d, const rt::Handle& h, void*, int64_t, const void*, int64_t rows, int64_t cols,
                           std::size_t elem) {
  const uint64_t bytes = static_cast<uint64_t>(rows * cols) * elem;
  const int dv = d.id();
  s4u::Host* to = platform_.node_cpus[static_cast<std::size_t>(home_node(h))];
  if (platform_.nodes > 1) {
    received_.erase(&h);
    if (home_node(h) != platform_.node_of(dv)) network_ += bytes;
  }
  s4u::Host* from = platform_.host_of(dv);
  if (from == to) return;
  out_[static_cast<std::size_t>(dv)] += bytes;
  if (platform_.nodes == 1) charge_copy(dv, static_cast<double>(bytes), false);
  deferred_[s4u::this_actor::get_pid()].push_back({from, to, bytes});
}

void SimExecutor::settle() {
  auto it = deferred_.find(s4u::this_actor::get_pid());
  if (it == deferred_.end() || it->second.empty()) return;
  std::vector<Out> outs;
  outs.swap(it->second);
  for (const Out& o : outs) s4u::Comm::sendto(o.from, o.to, o.bytes);
}

}  // namespace hetla::sim
