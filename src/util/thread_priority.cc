#include "util/thread_priority.hpp"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace hetla::util {

void lower_current_thread_priority() {
#if defined(__linux__)
  // Linux applies a thread id's nice to that thread alone (NPTL threads are
  // scheduled each on its own). 10: a CFS weight of 110 against a worker's
  // 1024, so a woken helper no longer preempts a worker, yet still gets the
  // cores' idle time at once. A thread already niced further keeps its nice.
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0 && now < 10) (void)setpriority(PRIO_PROCESS, tid, 10);
#endif
}

}  // namespace hetla::util
