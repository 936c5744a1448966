// Owner computes across processes (runtime/distributed.cc) without MPI: two
// runtimes in one process, each a "process" of a two-process communicator
// whose messages go through memory (Wire). Runs under the sanitizers, which
// the MPI tests (tests/mpi) do not.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "runtime/comm.hpp"
#include "runtime/runtime.hpp"

namespace hetla::rt {
namespace {

// Messages between the processes: eager sends (the bytes are copied at once),
// receives matched by (source, destination, tag).
struct Wire {
  std::mutex m;
  std::map<std::tuple<int, int, uint64_t>, std::vector<std::byte>> box;
  std::atomic<int> sends{0};
  std::atomic<int> sends_from[4] = {0, 0, 0, 0};
};

class MemComm final : public Comm {
 public:
  MemComm(std::shared_ptr<Wire> w, int rank, int size = 2) : w_(std::move(w)), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Request isend(const void* data, std::size_t bytes, int dest, uint64_t tag) override {
    std::lock_guard<std::mutex> lk(w_->m);
    auto& msg = w_->box[{rank_, dest, tag}];
    EXPECT_TRUE(msg.empty()) << "tag " << tag << " sent twice";
    msg.assign(static_cast<const std::byte*>(data), static_cast<const std::byte*>(data) + bytes);
    ++w_->sends;
    ++w_->sends_from[rank_];
    return new Recv{nullptr, 0, -1, 0};  // done at once
  }
  Request irecv(void* data, std::size_t bytes, int source, uint64_t tag) override {
    return new Recv{data, bytes, source, tag};
  }
  bool test(Request req) override {
    auto* r = static_cast<Recv*>(req);
    if (r->source >= 0) {
      std::lock_guard<std::mutex> lk(w_->m);
      auto it = w_->box.find({r->source, rank_, r->tag});
      if (it == w_->box.end()) return false;
      EXPECT_EQ(it->second.size(), r->bytes);
      std::memcpy(r->data, it->second.data(), std::min(r->bytes, it->second.size()));
      w_->box.erase(it);
    }
    delete r;
    return true;
  }

 private:
  struct Recv {
    void* data;
    std::size_t bytes;
    int source;
    uint64_t tag;
  };
  std::shared_ptr<Wire> w_;
  int rank_, size_;
};

RuntimeConfig one_worker() {
  RuntimeConfig c;
  c.num_workers = 1;
  c.pin_threads = false;
  return c;
}

// One process's view of three scalar tiles: a and c live on process 0, b on 1.
struct Process {
  double a = 0, b = 0, c = 0;
  Handle ha, hb, hc;
  std::atomic<int> ran{0};
  explicit Process(int me) {
    ha.set_host(me == 0 ? &a : nullptr, 1, 1, 1, sizeof(double));
    hb.set_host(me == 1 ? &b : nullptr, 1, 1, 1, sizeof(double));
    hc.set_host(me == 0 ? &c : nullptr, 1, 1, 1, sizeof(double));
    ha.rank = 0, hb.rank = 1, hc.rank = 0;
  }
};

// The same task sequence on both processes.
void program(Runtime& rt, Process& p) {
  auto task = [&](auto f, std::initializer_list<Access> acc) {
    rt.insert(
        [&p, f](TaskContext& c) {
          ++p.ran;
          f(c);
        },
        acc);
  };
  task([](TaskContext& c) { *c.ptr<double>(0) = 3; }, {W(&p.ha)});                                     // 0: a = 3
  task([](TaskContext& c) { *c.ptr<double>(1) = *c.ptr<double>(0) + 1; }, {R(&p.ha), W(&p.hb)});      // 1: b = 4
  task([](TaskContext& c) { *c.ptr<double>(2) = *c.ptr<double>(0) * *c.ptr<double>(1); },
       {R(&p.ha), R(&p.hb), W(&p.hc)});                                                                // 0: c = 12
  task([](TaskContext& c) { *c.ptr<double>(0) = 10; }, {W(&p.ha)});                                    // 0: a = 10
  task([](TaskContext& c) { *c.ptr<double>(1) += *c.ptr<double>(0); }, {R(&p.ha), RW(&p.hb)});         // 1: b = 14
  task([](TaskContext& c) { *c.ptr<double>(1) += *c.ptr<double>(0); }, {R(&p.hb), RW(&p.hc)});         // 0: c = 26
  task([](TaskContext& c) { *c.ptr<double>(1) += *c.ptr<double>(0); }, {R(&p.ha), RW(&p.hb)});         // 1: b = 24
}

TEST(RuntimeDistributed, ValuesFlowBetweenProcessesOncePerVersion) {
  for (int rep = 0; rep < 20; ++rep) {
    auto wire = std::make_shared<Wire>();
    Process p0(0), p1(1);
    auto run = [&](int me, Process& p) {
      Runtime rt(one_worker());
      CommScope scope(rt, std::make_shared<MemComm>(wire, me));
      program(rt, p);
      rt.wait_all();
    };
    std::thread t1([&] { run(1, p1); });
    run(0, p0);
    t1.join();
    EXPECT_EQ(p0.a, 10);
    EXPECT_EQ(p0.c, 26);
    EXPECT_EQ(p1.b, 24);
    EXPECT_EQ(p0.ran.load(), 4);  // each task ran on its owner only
    EXPECT_EQ(p1.ran.load(), 3);
    // a v1 -> 1, b v1 -> 0, a v2 -> 1, b v2 -> 0; the last task reads the cached a
    EXPECT_EQ(wire->sends.load(), 4);
    EXPECT_TRUE(wire->box.empty());
  }
}

// A task that throws on one process cancels the call there, but its
// transfers still go out: the other process finishes instead of waiting
// forever, and the failing one reports the error.
TEST(RuntimeDistributed, AFailedTaskOnOneProcessHangsNoOther) {
  auto wire = std::make_shared<Wire>();
  Process p0(0), p1(1);
  auto run = [&](int me, Process& p) {
    Runtime rt(one_worker());
    CommScope scope(rt, std::make_shared<MemComm>(wire, me));
    rt.insert([](TaskContext&) { throw std::runtime_error("task failed"); }, {W(&p.ha)});  // on 0
    rt.insert([](TaskContext& c) { *c.ptr<double>(1) = *c.ptr<double>(0) + 1; }, {R(&p.ha), W(&p.hb)});  // on 1
    rt.insert([](TaskContext& c) { *c.ptr<double>(1) = *c.ptr<double>(0); }, {R(&p.hb), W(&p.hc)});  // on 0
    rt.wait_all();
  };
  std::thread t1([&] { EXPECT_NO_THROW(run(1, p1)); });
  EXPECT_THROW(run(0, p0), std::runtime_error);
  t1.join();
  EXPECT_EQ(wire->sends.load(), 2);
}

// A tile that three other processes read goes out along a binary tree: the
// owner sends to the first two that ask, the first forwards to the third.
TEST(RuntimeDistributed, ReadersOfOneVersionFormATree) {
  for (int rep = 0; rep < 10; ++rep) {
    auto wire = std::make_shared<Wire>();
    double got[4] = {0, 0, 0, 0};
    auto run = [&](int me) {
      double x = 0, y = 0;
      Handle hx, hy[4];
      hx.set_host(me == 0 ? &x : nullptr, 1, 1, 1, sizeof(double));
      hx.rank = 0;
      for (int r = 0; r < 4; ++r) {
        hy[r].set_host(r == me ? &y : nullptr, 1, 1, 1, sizeof(double));
        hy[r].rank = r;
      }
      Runtime rt(one_worker());
      CommScope scope(rt, std::make_shared<MemComm>(wire, me, 4));
      rt.insert([](TaskContext& c) { *c.ptr<double>(0) = 7; }, {W(&hx)});
      for (int r = 1; r < 4; ++r)  // y_r = x + r on process r
        rt.insert([r](TaskContext& c) { *c.ptr<double>(1) = *c.ptr<double>(0) + r; }, {R(&hx), W(&hy[r])});
      rt.wait_all();
      got[me] = y;
    };
    std::vector<std::thread> others;
    for (int r = 1; r < 4; ++r) others.emplace_back(run, r);
    run(0);
    for (auto& t : others) t.join();
    EXPECT_EQ(got[1], 8);
    EXPECT_EQ(got[2], 9);
    EXPECT_EQ(got[3], 10);
    EXPECT_EQ(wire->sends_from[0].load(), 2);  // to 1 and 2
    EXPECT_EQ(wire->sends_from[1].load(), 1);  // to 3
    EXPECT_EQ(wire->sends.load(), 3);
  }
}

// Tiles of one tile column that a task reads as a block (TaskOptions::
// block_reads) travel as one message per pair of processes, along the same
// tree, and land as one block: the reader's copies lie one below the other
// with the block's height as leading dimension. Here process 0 holds three
// tiles (2, 2 and 1 rows, 2 columns) strided in a 6 x 2 array; processes
// 1-3 read them, 3 from 1's copies; a later task reads the last two in place.
TEST(RuntimeDistributed, BlockReadsTravelAsOneMessageIntoOneBlock) {
  for (int rep = 0; rep < 10; ++rep) {
    auto wire = std::make_shared<Wire>();
    double got[4][2] = {};
    std::atomic<int> in_place{0};
    auto run = [&](int me) {
      double col[12];  // column-major 6 x 2, ld 6; row 5 not a tile's
      for (int k = 0; k < 12; ++k) col[k] = -100;
      const int64_t rows[3] = {2, 2, 1}, first_row[3] = {0, 2, 4};
      Handle tile[3], out[4];
      for (int t = 0; t < 3; ++t) {
        tile[t].set_host(me == 0 ? col + first_row[t] : nullptr, rows[t], 2, 6, sizeof(double));
        tile[t].rank = 0;
      }
      double y[2] = {0, 0};
      for (int r = 0; r < 4; ++r) {
        out[r].set_host(r == me ? y : nullptr, 2, 1, 2, sizeof(double));
        out[r].rank = r;
      }
      Runtime rt(one_worker());
      CommScope scope(rt, std::make_shared<MemComm>(wire, me, 4));
      rt.insert([](TaskContext& c) {  // on 0: entry (i, j) of the column = 10 i + j
        for (int t = 0, r0 = 0; t < 3; r0 += (t == 2 ? 1 : 2), ++t)
          for (int j = 0; j < 2; ++j)
            for (int i = 0; i < (t == 2 ? 1 : 2); ++i) c.ptr<double>(t)[i + j * c.ld(t)] = 10 * (r0 + i) + j;
      }, {W(&tile[0]), W(&tile[1]), W(&tile[2])});
      for (int r = 1; r < 4; ++r) {  // on r: y = the column's sums over the rows, times r
        const Access acc[4] = {R(&tile[0]), R(&tile[1]), R(&tile[2]), W(&out[r])};
        rt.insert([r, &in_place](TaskContext& c) {
          const bool block = c.ld(0) == 5 && c.ld(1) == 5 && c.ld(2) == 5 && c.ptr<double>(1) == c.ptr<double>(0) + 2 &&
                             c.ptr<double>(2) == c.ptr<double>(0) + 4;
          in_place += block;
          for (int j = 0; j < 2; ++j) {
            double sum = 0;
            for (int i = 0; i < 5; ++i) sum += c.ptr<double>(0)[i + j * c.ld(0)];  // the block in place
            c.ptr<double>(3)[j] = r * sum;
          }
        }, acc, 4, TaskOptions{0, "block", kNoFlags, dev::KernelId::None, 0, -1, 3});
      }
      const Access tail[3] = {R(&tile[1]), R(&tile[2]), RW(&out[3])};
      rt.insert([&in_place](TaskContext& c) {  // on 3: rows 2-4 again, from the block received before
        in_place += c.ld(0) == 5 && c.ptr<double>(1) == c.ptr<double>(0) + 2;
        c.ptr<double>(2)[1] += c.ptr<double>(0)[0];
      }, tail, 3, TaskOptions{0, "tail", kNoFlags, dev::KernelId::None, 0, -1, 2});
      rt.wait_all();
      got[me][0] = y[0], got[me][1] = y[1];
    };
    std::vector<std::thread> others;
    for (int r = 1; r < 4; ++r) others.emplace_back(run, r);
    run(0);
    for (auto& t : others) t.join();
    for (int r = 1; r < 4; ++r) {  // column sums: 10 (0+1+2+3+4) + 5 j
      EXPECT_EQ(got[r][0], r * 100.0) << r;
      EXPECT_EQ(got[r][1], r * 105.0 + (r == 3 ? 20 : 0)) << r;
    }
    EXPECT_EQ(in_place.load(), 4);
    EXPECT_EQ(wire->sends_from[0].load(), 2);  // to 1 and 2
    EXPECT_EQ(wire->sends_from[1].load(), 1);  // to 3
    EXPECT_EQ(wire->sends.load(), 3);
    EXPECT_TRUE(wire->box.empty());
  }
}

// A task that writes tiles of two processes (LU's panel on a tile column
// over several process rows) runs on the owner of the first one: it receives
// the other, writes it in its copy and sends it back into the owner's tile
// (here a 2 x 2 tile inside a 3 x 2 array: packed, then unpacked in place).
TEST(RuntimeDistributed, ATaskWritingTilesOfTwoProcessesRunsOnTheFirstOwner) {
  for (int rep = 0; rep < 10; ++rep) {
    auto wire = std::make_shared<Wire>();
    double a_on0 = 0, c_on0 = 0;
    double b_on1[6] = {0, 0, -1, 0, 0, -1};  // column-major 3 x 2; row 2 is not the tile's
    std::atomic<int> ran[2] = {0, 0};
    auto run = [&](int me) {
      Handle ha, hb, hc;
      ha.set_host(me == 0 ? &a_on0 : nullptr, 1, 1, 1, sizeof(double));
      hb.set_host(me == 1 ? b_on1 : nullptr, 2, 2, 3, sizeof(double));
      hc.set_host(me == 0 ? &c_on0 : nullptr, 1, 1, 1, sizeof(double));
      ha.rank = 0, hb.rank = 1, hc.rank = 0;
      Runtime rt(one_worker());
      CommScope scope(rt, std::make_shared<MemComm>(wire, me));
      auto count = [&] { ++ran[me]; };
      rt.insert([&](TaskContext& c) {  // on 1: b = [1 3; 2 4]
        count();
        for (int j = 0; j < 2; ++j)
          for (int i = 0; i < 2; ++i) c.ptr<double>(0)[i + j * c.ld(0)] = 1 + i + 2 * j;
      }, {W(&hb)});
      rt.insert([&](TaskContext& c) {  // on 0: a = 10; b *= a
        count();
        *c.ptr<double>(0) = 10;
        for (int j = 0; j < 2; ++j)
          for (int i = 0; i < 2; ++i) c.ptr<double>(1)[i + j * c.ld(1)] *= 10;
      }, {W(&ha), RW(&hb)});
      rt.insert([&](TaskContext& c) {  // on 1: b(0, 0) += 1 (its own tile again)
        count();
        c.ptr<double>(0)[0] += 1;
      }, {RW(&hb)});
      rt.insert([&](TaskContext& c) {  // on 0: c = b(1, 1) + b(0, 0), the new version
        count();
        *c.ptr<double>(1) = c.ptr<double>(0)[1 + c.ld(0)] + c.ptr<double>(0)[0];
      }, {R(&hb), W(&hc)});
      rt.wait_all();
    };
    std::thread t1([&] { run(1); });
    run(0);
    t1.join();
    EXPECT_EQ(a_on0, 10);
    const double want[6] = {11, 20, -1, 30, 40, -1};
    for (int k = 0; k < 6; ++k) EXPECT_EQ(b_on1[k], want[k]) << k;
    EXPECT_EQ(c_on0, 51);
    EXPECT_EQ(ran[0].load(), 2);
    EXPECT_EQ(ran[1].load(), 2);
    // b v1 to 0, b v2 back to 1, b v3 to 0
    EXPECT_EQ(wire->sends.load(), 3);
    EXPECT_TRUE(wire->box.empty());
  }
}

// A handle of another process that has memory here too (LU's pivots: every
// process holds ipiv) is received into that memory. The handle dies before
// the scope ends (as getrf's pivot tokens, inside a distributed call).
TEST(RuntimeDistributed, AMirroredHandleIsReceivedIntoItsMemoryHere) {
  auto wire = std::make_shared<Wire>();
  int64_t piv[2][3] = {{0, 0, 0}, {0, 0, 0}};
  double b = 0;
  auto run = [&](int me) {
    Handle hb;
    hb.set_host(me == 1 ? &b : nullptr, 1, 1, 1, sizeof(double));
    hb.rank = 1;
    Runtime rt(one_worker());
    CommScope scope(rt, std::make_shared<MemComm>(wire, me));
    {
      Handle hp;
      hp.set_host(piv[me], 3, 1, 3, sizeof(int64_t));
      hp.rank = 0;
      rt.insert([](TaskContext& c) {
        for (int i = 0; i < 3; ++i) c.ptr<int64_t>(0)[i] = 7 + i;
      }, {W(&hp)});
      int64_t* mine = piv[me];
      rt.insert([mine](TaskContext& c) { *c.ptr<double>(1) = static_cast<double>(mine[2]); }, {R(&hp), W(&hb)});
      rt.wait_all();
    }
  };
  std::thread t1([&] { run(1); });
  run(0);
  t1.join();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(piv[1][i], 7 + i);
  EXPECT_EQ(b, 9);  // the task read it through the process's own memory
}

}  // namespace
}  // namespace hetla::rt
