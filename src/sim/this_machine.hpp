// A model of this machine for a device list (hetla's --devices syntax): the
// host cores' kernel rates measured here (one core, one tile size), emulated
// devices from their own parameters (speed relative to a core, bandwidth,
// memory). For `hetla simulate --machine this` and --validate.
#pragma once
#include <cstdint>
#include <string>

#include "sim/model.hpp"

namespace hetla::sim {

/// `cores`: host workers (0: as the library context would choose).
MachineModel this_machine(const std::string& devices, char precision, int64_t nb, int cores = 0);

}  // namespace hetla::sim
