/// @file
/// The version of the headers (the library's own: `hetla version`).
#pragma once
#define HETLA_VERSION_MAJOR 0  ///< Incremented for incompatible API or ABI changes.
#define HETLA_VERSION_MINOR 1  ///< Incremented for added API.
#define HETLA_VERSION_PATCH 0  ///< Incremented for fixes.
#define HETLA_VERSION_STRING "0.1.0"  ///< "MAJOR.MINOR.PATCH".
