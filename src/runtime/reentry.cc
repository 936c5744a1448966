#include "runtime/reentry.hpp"

namespace hetla::rt {

int& reentry_depth() noexcept {
  thread_local int depth = 0;
  return depth;
}

}  // namespace hetla::rt
