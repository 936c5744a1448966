// QR factorization, applying and forming Q, least squares (geqrf, unmqr, ungqr, gels).
#pragma once
#include "hetla/linalg.hpp"

namespace hetla {}  // namespace hetla
