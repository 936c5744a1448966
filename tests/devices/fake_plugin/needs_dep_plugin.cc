// A plugin whose own dependency (missing_dep.cc) cannot be found when it is
// loaded, for test_plugin.cc: the error must name this file and that library.
extern "C" int hetla_test_missing_dep();

extern "C" __attribute__((visibility("default"))) const void* hetla_plugin_needs_dep() {
  static const int never_read = 0;  // (never called: the file does not load)
  return hetla_test_missing_dep() ? &never_read : nullptr;
}
