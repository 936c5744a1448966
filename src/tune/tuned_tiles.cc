#include "tune/tuned_tiles.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <mutex>

#include "tune/split_model.hpp"
#include "tune/tile_table.hpp"
#include "util/blas_threads.hpp"

namespace hetla::tune {

namespace {

struct Cache {
  std::mutex m;
  std::string path;
  std::string stamp = "unread";  // identifies the file version read (see file_stamp)
  TileTable table;
  std::string state = "absent";
  bool on = true;
};

Cache& cache() {
  static Cache c;
  return c;
}

// Modification time, inode and size: `save_tiles` renames a new file into
// place, so a rewrite within the clock's granularity still changes the inode.
std::string file_stamp(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "absent";
  return std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + "/" +
         std::to_string(st.st_ino) + "/" + std::to_string(st.st_size);
}

// Rereads the table when the path or the file changed; requires c.m held.
void refresh(Cache& c) {
  const std::string path = tiles_path();
  const std::string stamp = file_stamp(path);
  if (path == c.path && stamp == c.stamp) return;
  c.path = path;
  c.stamp = stamp;
  c.table = {};
  if (stamp == "absent") {
    c.state = "absent";
    return;
  }
  try {
    TileTable t = load_tiles(path);
    const std::string blas = util::blas_vendor();
    if (t.blas != blas) {
      c.state = "ignored: measured with " + t.blas + ", this process runs " + blas + " (run hetla tune --tiles again)";
    } else {
      c.table = std::move(t);
      c.state = "in use";
    }
  } catch (const std::exception& e) {
    c.state = std::string("ignored: ") + e.what();
  }
  if (c.state != "in use") std::fprintf(stderr, "hetla: tuned tile sizes %s\n", c.state.c_str());
}

// `find` (lookup or largest_below) on the table in force, if it is on and
// not empty.
template <typename Find>
std::optional<int64_t> in_table(Find find, const rt::Runtime& rt, const std::string& routine, char precision,
                                int64_t n) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lk(c.m);
  if (!c.on) return std::nullopt;
  refresh(c);
  if (c.table.entries.empty()) return std::nullopt;
  return find(c.table, routine, precision, device_set_key(rt), n);
}

}  // namespace

std::optional<int64_t> tuned_tile_size(const rt::Runtime& rt, const std::string& routine, char precision, int64_t n) {
  return in_table(lookup, rt, routine, precision, n);
}

std::optional<int64_t> largest_tuned_tile_size(const rt::Runtime& rt, const std::string& routine, char precision,
                                               int64_t n) {
  return in_table(largest_below, rt, routine, precision, n);
}

void use_tuned_tiles(bool on) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lk(c.m);
  c.on = on;
}

TuningStatus tuning_status() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lk(c.m);
  refresh(c);
  return {c.path, c.state, c.table.entries.size()};
}

}  // namespace hetla::tune
