// A library the plugin needs_dep_plugin.cc links, built where the dynamic
// loader will not find it at run time (tests/CMakeLists.txt): a plugin whose
// own dependency is missing, as the CUDA plugin on a machine without CUDA.
extern "C" __attribute__((visibility("default"))) int hetla_test_missing_dep() { return 1; }
