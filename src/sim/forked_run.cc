#include "sim/forked_run.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace hetla::sim {

namespace {

/// The child's user + system CPU time in clock ticks (/proc/PID/stat fields
/// 14 and 15, after the command name in parentheses); -1 when unreadable.
long long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(line.substr(close + 2));
  std::string skip;
  for (int f = 3; f < 14; ++f) fields >> skip;  // state .. cmajflt
  long long utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) return -1;
  return utime + stime;
}

/// One child: its text, or nothing when it stalled (it is killed then).
std::optional<std::string> run_once(const std::function<std::string()>& child, std::chrono::seconds stall) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("simulate: pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    throw std::runtime_error("simulate: fork failed");
  }
  if (pid == 0) {
    close(fds[0]);
    std::string s;
    try {
      s = child();
    } catch (...) {  // never unwind into the parent's frames in this process
    }
    std::size_t done = 0;
    while (done < s.size()) {
      const ssize_t w = write(fds[1], s.data() + done, s.size() - done);
      if (w <= 0) break;
      done += static_cast<std::size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  constexpr int kPollMs = 1000;
  const long long quiet_polls = std::chrono::duration_cast<std::chrono::milliseconds>(stall).count() / kPollMs;
  std::string text;
  char buf[4096];
  long long last_cpu = -1, quiet = 0;
  bool stalled = false;
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int r = poll(&p, 1, kPollMs);
    if (r > 0) {
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;  // the child closed its end
      text.append(buf, static_cast<std::size_t>(n));
      quiet = 0;
      continue;
    }
    if (r < 0) {
      if (errno == EINTR) continue;
      break;  // the pipe cannot be polled: take what came (an empty text is an error below)
    }
    const long long cpu = cpu_ticks(pid);
    if (cpu < 0 || cpu != last_cpu) last_cpu = cpu, quiet = 0;  // unreadable: never taken for a stall
    else if (++quiet >= quiet_polls) {
      kill(pid, SIGKILL);
      stalled = true;
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (stalled) return std::nullopt;
  if (text.empty()) throw std::runtime_error("simulate: the simulation process died (status " + std::to_string(status) + ")");
  return text;
}

}  // namespace

std::string run_forked(const std::function<std::string()>& child, std::chrono::seconds stall, int tries) {
  for (int t = 0; t < tries; ++t) {
    if (auto text = run_once(child, stall)) return *text;
    std::fprintf(stderr, "hetla: the simulation process used no CPU for %lld s: killed, %s\n",
                 static_cast<long long>(stall.count()), t + 1 < tries ? "forked again" : "giving up");
  }
  throw std::runtime_error("simulate: the simulation process made no progress, " + std::to_string(tries) + " times");
}

}  // namespace hetla::sim
