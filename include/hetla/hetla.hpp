/// @file
/// hetla: heterogeneous tile linear algebra — C++ API.
#pragma once
#include "hetla/batch.hpp"
#include "hetla/blas3.hpp"
#include "hetla/context.hpp"
#include "hetla/linalg.hpp"
#include "hetla/lu.hpp"
#include "hetla/matfun.hpp"
#include "hetla/matrix.hpp"
#include "hetla/qr.hpp"
#include "hetla/types.hpp"
#include "hetla/version.hpp"
