// MappingGuardShared.cpp - the parts of include/ilmap/mapping_guard.h that are the same on Linux
// (MappingGuard.cpp) and Windows (win32/MappingGuard.cpp): a GuardedRange's moves and end, which
// only hand the slot over or give it back through reset().
#include "ilmap/mapping_guard.h"

namespace ilmap {

GuardedRange::GuardedRange(GuardedRange&& o) noexcept : slot_(o.slot_), changed_(o.changed_) {
  o.slot_ = -1;
  o.changed_ = nullptr;
}

GuardedRange& GuardedRange::operator=(GuardedRange&& o) noexcept {
  if (this != &o) {
    reset();
    slot_ = o.slot_;
    changed_ = o.changed_;
    o.slot_ = -1;
    o.changed_ = nullptr;
  }
  return *this;
}

GuardedRange::~GuardedRange() { reset(); }

}  // namespace ilmap
