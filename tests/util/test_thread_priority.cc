// util::lower_current_thread_priority (src/util/thread_priority.hpp): the
// calling thread's nice becomes 10 (or stays, when higher), and no other
// thread's changes.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "util/thread_priority.hpp"

namespace hetla::util {
namespace {

int own_nice() {
  errno = 0;
  return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

TEST(ThreadPriority, LowersTheCallingThreadOnly) {
  const int before = own_nice();
  int helper = before;
  std::thread t([&] {
    lower_current_thread_priority();
    helper = own_nice();
  });
  t.join();
  EXPECT_EQ(helper, std::max(before, 10));
  EXPECT_EQ(own_nice(), before);
}

}  // namespace
}  // namespace hetla::util
