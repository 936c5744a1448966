// LU factorization with partial pivoting and its solvers (getrf, getrs, gesv).
#pragma once
#include "hetla/linalg.hpp"

namespace hetla {}  // namespace hetla
