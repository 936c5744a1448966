// A thread that should yield its core to the compute threads: helper
// threads whose work fits in the time the workers leave idle.
#pragma once

namespace hetla::util {

/// Lowers the calling thread's scheduling priority (Linux: nice 10 for this
/// thread only, unless it is niced further already); does nothing where that
/// is not supported or not allowed.
void lower_current_thread_priority();

}  // namespace hetla::util
