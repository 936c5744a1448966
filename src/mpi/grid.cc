#include "mpi/grid.hpp"

#include <mpi.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

namespace hetla::mpi {

namespace {
bool g_we_initialised = false;

// Every MPI call of this library holds it: the runtime's progress thread and
// the caller's collectives never overlap inside MPI (MPI_THREAD_SERIALIZED).
std::mutex& mpi_mutex() {
  static std::mutex m;
  return m;
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(msg, static_cast<std::size_t>(len)));
}

int to_int(std::size_t n) {
  if (n > static_cast<std::size_t>(INT32_MAX)) throw std::length_error("MPI: more than 2^31 - 1 items in one call");
  return static_cast<int>(n);
}

// Transfers longer than this go as one derived datatype (below); the tests
// lower it to take that path with small buffers.
std::atomic<std::size_t> g_max_plain_bytes{static_cast<std::size_t>(INT32_MAX)};

/// `bytes` as an MPI (count, datatype): MPI counts are int, so a transfer
/// past 2 GiB (a packed panel of 300 000 x 512 complex doubles is 2.4 GiB)
/// goes as one struct of whole MiB blocks and the bytes left. Both sides
/// build the same type from the same length. Made and freed under
/// mpi_mutex; MPI lets a type be freed while a transfer using it is pending.
class ByteType {
 public:
  explicit ByteType(std::size_t bytes) {
    if (bytes <= g_max_plain_bytes.load(std::memory_order_relaxed)) {
      count_ = static_cast<int>(bytes);
      return;
    }
    constexpr std::size_t kBlock = std::size_t{1} << 20;
    MPI_Datatype block = MPI_DATATYPE_NULL;
    check(MPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &block), "MPI_Type_contiguous");
    int lengths[2] = {to_int(bytes / kBlock), static_cast<int>(bytes % kBlock)};
    MPI_Aint offsets[2] = {0, static_cast<MPI_Aint>(bytes / kBlock * kBlock)};
    MPI_Datatype types[2] = {block, MPI_BYTE};
    const int rc = MPI_Type_create_struct(2, lengths, offsets, types, &type_);
    MPI_Type_free(&block);
    check(rc, "MPI_Type_create_struct");
    check(MPI_Type_commit(&type_), "MPI_Type_commit");
    count_ = 1;
  }
  ~ByteType() {
    if (type_ != MPI_BYTE) MPI_Type_free(&type_);
  }
  ByteType(const ByteType&) = delete;
  ByteType& operator=(const ByteType&) = delete;
  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  int count_ = 0;
  MPI_Datatype type_ = MPI_BYTE;
};

// The runtime's transfers: tags are the runtime's per-pair sequence numbers,
// folded into the communicator's tag range.
class MpiComm final : public rt::Comm {
 public:
  MpiComm(MPI_Comm c, int rank, int size) : comm_(c), rank_(rank), size_(size) {
    void* ub = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    tag_ub_ = flag ? *static_cast<int*>(ub) : 32767;
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Request isend(const void* data, std::size_t bytes, int dest, uint64_t tag) override {
    std::lock_guard<std::mutex> lk(mpi_mutex());
    const ByteType t(bytes);  // before the request: a type that cannot be made leaves nothing behind
    auto* r = new MPI_Request;
    const int rc = MPI_Isend(data, t.count(), t.type(), dest, fold(tag), comm_, r);
    if (rc != MPI_SUCCESS) delete r;
    check(rc, "MPI_Isend");
    sent_ += bytes;
    return r;
  }
  Request irecv(void* data, std::size_t bytes, int source, uint64_t tag) override {
    std::lock_guard<std::mutex> lk(mpi_mutex());
    const ByteType t(bytes);  // before the request: a type that cannot be made leaves nothing behind
    auto* r = new MPI_Request;
    const int rc = MPI_Irecv(data, t.count(), t.type(), source, fold(tag), comm_, r);
    if (rc != MPI_SUCCESS) delete r;
    check(rc, "MPI_Irecv");
    return r;
  }
  bool test(Request req) override {
    auto* r = static_cast<MPI_Request*>(req);
    int done = 0;
    {
      std::lock_guard<std::mutex> lk(mpi_mutex());
      check(MPI_Test(r, &done, MPI_STATUS_IGNORE), "MPI_Test");
    }
    if (done) delete r;
    return done != 0;
  }
  // One MPI_Testsome instead of an MPI_Test per request: each call runs Open
  // MPI's progress engine once, and the progress thread has ~100 requests in
  // flight (potrf n = 8000, 1 x 2: 144k MPI_Test calls in 1.4k polls). Its
  // thread's CPU time, on the core of the process's worker: 103-105 ms ->
  // 94-97 ms in 2 alternated pairs (the run 1.30-1.37 s).
  void test_some(const Request* reqs, std::size_t n, std::vector<std::size_t>& finished) override {
    if (n == 0) return;
    handles_.resize(n);
    index_.resize(n);
    for (std::size_t i = 0; i < n; ++i) handles_[i] = *static_cast<MPI_Request*>(reqs[i]);
    int count = 0;
    {
      std::lock_guard<std::mutex> lk(mpi_mutex());
      check(MPI_Testsome(to_int(n), handles_.data(), &count, index_.data(), MPI_STATUSES_IGNORE), "MPI_Testsome");
    }
    for (int c = 0; c < count; ++c) {  // MPI_UNDEFINED (< 0) when none was active: none here
      const auto i = static_cast<std::size_t>(index_[static_cast<std::size_t>(c)]);
      delete static_cast<MPI_Request*>(reqs[i]);
      finished.push_back(i);
    }
  }
  uint64_t sent() const { return sent_; }

 private:
  int fold(uint64_t tag) const { return static_cast<int>(tag % (static_cast<uint64_t>(tag_ub_) + 1)); }
  MPI_Comm comm_;
  int rank_, size_;
  int tag_ub_ = 32767;
  std::atomic<uint64_t> sent_{0};
  std::vector<MPI_Request> handles_;  // test_some's scratch (the progress thread is its only caller)
  std::vector<int> index_;
};

}  // namespace

void init(int* argc, char*** argv) {
  std::lock_guard<std::mutex> lk(mpi_mutex());
  int done = 0;
  MPI_Initialized(&done);
  if (done) return;
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  g_we_initialised = true;
  if (provided < MPI_THREAD_SERIALIZED)
    throw std::runtime_error("MPI: thread level MPI_THREAD_SERIALIZED is not available");
}

void finalize() {
  std::lock_guard<std::mutex> lk(mpi_mutex());
  int fin = 0;
  MPI_Finalized(&fin);
  if (g_we_initialised && !fin) MPI_Finalize();
}

bool launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

bool serialized_calls_allowed() {
#ifdef OPEN_MPI
  return true;  // no per-thread state below MPI_THREAD_MULTIPLE; our mutex serialises the calls
#else
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  return level >= MPI_THREAD_SERIALIZED;
#endif
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

struct Grid::Impl {
  MPI_Comm p2p = MPI_COMM_NULL, coll = MPI_COMM_NULL;
  std::shared_ptr<MpiComm> comm;
};

namespace {
// The grid's two communicators, duplicates of `base` (rank = row * Q + col).
std::unique_ptr<Grid::Impl> make_grid(MPI_Comm base, int p, int q, int* rank);
}  // namespace

Grid::Grid(int p, int q) : p_(p), q_(q) { impl_ = make_grid(MPI_COMM_WORLD, p, q, &rank_); }

Grid::Grid(int p, int q, int fortran_comm) : p_(p), q_(q) {
  impl_ = make_grid(MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_comm)), p, q, &rank_);
}

namespace {
std::unique_ptr<Grid::Impl> make_grid(MPI_Comm base, int p, int q, int* rank) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) throw std::logic_error("hetla::mpi::Grid: MPI is not initialised (mpi::init)");
  int size = 0;
  MPI_Comm_size(base, &size);
  MPI_Comm_rank(base, rank);
  if (p < 1 || q < 1 || static_cast<int64_t>(p) * q != size)
    throw std::invalid_argument("grid " + std::to_string(p) + "x" + std::to_string(q) + " needs " +
                                std::to_string(static_cast<int64_t>(p) * q) + " processes, the communicator has " +
                                std::to_string(size));
  auto impl = std::make_unique<Grid::Impl>();
  std::lock_guard<std::mutex> lk(mpi_mutex());
  check(MPI_Comm_dup(base, &impl->p2p), "MPI_Comm_dup");
  check(MPI_Comm_dup(base, &impl->coll), "MPI_Comm_dup");
  impl->comm = std::make_shared<MpiComm>(impl->p2p, *rank, size);
  return impl;
}
}  // namespace

Grid::~Grid() {
  std::lock_guard<std::mutex> lk(mpi_mutex());
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) return;
  MPI_Comm_free(&impl_->p2p);
  MPI_Comm_free(&impl_->coll);
}

std::shared_ptr<rt::Comm> Grid::comm() const { return impl_->comm; }
uint64_t Grid::bytes_sent() const { return impl_->comm->sent(); }

int64_t Grid::min(int64_t v) const {
  int64_t out = v;
  std::lock_guard<std::mutex> lk(mpi_mutex());
  check(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_MIN, impl_->coll), "MPI_Allreduce");
  return out;
}

double Grid::max(double v) const {
  double out = v;
  std::lock_guard<std::mutex> lk(mpi_mutex());
  check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, impl_->coll), "MPI_Allreduce");
  return out;
}

void Grid::max(std::vector<int64_t>& v) const {
  std::lock_guard<std::mutex> lk(mpi_mutex());
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), to_int(v.size()), MPI_INT64_T, MPI_MAX, impl_->coll), "MPI_Allreduce");
}

void Grid::sum(std::vector<double>& v) const {
  std::lock_guard<std::mutex> lk(mpi_mutex());
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), to_int(v.size()), MPI_DOUBLE, MPI_SUM, impl_->coll), "MPI_Allreduce");
}

std::vector<double> Grid::gather(double v, int root) const {
  std::vector<double> out(static_cast<std::size_t>(size()), 0.0);
  std::lock_guard<std::mutex> lk(mpi_mutex());
  check(MPI_Gather(&v, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE, root, impl_->coll), "MPI_Gather");
  return out;
}

void Grid::send(const void* data, std::size_t bytes, int dest) const {
  std::lock_guard<std::mutex> lk(mpi_mutex());
  const ByteType t(bytes);
  check(MPI_Send(data, t.count(), t.type(), dest, 0, impl_->coll), "MPI_Send");
}

void Grid::recv(void* data, std::size_t bytes, int source) const {
  std::lock_guard<std::mutex> lk(mpi_mutex());
  const ByteType t(bytes);
  check(MPI_Recv(data, t.count(), t.type(), source, 0, impl_->coll, MPI_STATUS_IGNORE), "MPI_Recv");
}

void Grid::barrier() const {
  std::lock_guard<std::mutex> lk(mpi_mutex());
  check(MPI_Barrier(impl_->coll), "MPI_Barrier");
}

std::size_t set_max_plain_bytes_for_tests(std::size_t bytes) { return g_max_plain_bytes.exchange(bytes); }

std::pair<int, int> parse_grid(const std::string& text) {
  const auto x = text.find('x');
  try {
    if (x != std::string::npos && x > 0 && x + 1 < text.size()) {
      std::size_t u1 = 0, u2 = 0;
      const int p = std::stoi(text.substr(0, x), &u1), q = std::stoi(text.substr(x + 1), &u2);
      if (u1 == x && u2 == text.size() - x - 1 && p >= 1 && q >= 1) return {p, q};
    }
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("--grid: expected PxQ with P, Q >= 1 (e.g. 2x2), got '" + text + "'");
}

}  // namespace hetla::mpi
