#include "bench/registry.hpp"

#include <algorithm>
#include <memory>

namespace hetla::cli {

namespace {
std::vector<std::unique_ptr<Routine>>& table() {
  static std::vector<std::unique_ptr<Routine>> t;  // function-local: safe during static init
  return t;
}
}  // namespace

void register_routine(Routine r) { table().push_back(std::make_unique<Routine>(std::move(r))); }

std::vector<const Routine*> routines() {
  std::vector<const Routine*> out;
  for (const auto& r : table()) out.push_back(r.get());
  std::sort(out.begin(), out.end(), [](const Routine* a, const Routine* b) { return a->name < b->name; });
  return out;
}

const Routine* find_routine(std::string_view name) {
  for (const auto& r : table())
    if (r->name == name) return r.get();
  return nullptr;
}

}  // namespace hetla::cli
