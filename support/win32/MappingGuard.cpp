// MappingGuard.cpp (win-x64) - include/ilmap/mapping_guard.h on Windows, first phase: no guard.
//
// On Linux a file truncated while mapped faults as SIGBUS, which the guard turns into "changed
// while in use". On Windows a mapped file cannot be truncated (SetEndOfFile fails with
// ERROR_USER_MAPPED_FILE), so that fault does not happen on local disks; a network drive that
// goes away raises EXCEPTION_IN_PAGE_ERROR, which this phase does not catch yet (a vectored
// exception handler over the registered ranges is the next phase's work, docs/build-and-test.md).
#include "ilmap/mapping_guard.h"

namespace ilmap {

// Not installed: callers map without registering a range (FileBytes, the reader).
bool install_mapping_guard() noexcept { return false; }
bool mapping_guard_installed() noexcept { return false; }
int mapping_lease_signal() noexcept { return 0; }

GuardedRange::GuardedRange(const void*, std::size_t) noexcept {}
GuardedRange GuardedRange::lease(int) noexcept { return {}; }
void GuardedRange::set_range(const void*, std::size_t) noexcept {}
GuardedRange::GuardedRange(GuardedRange&& o) noexcept : slot_(o.slot_), changed_(o.changed_) { o.reset(); }
GuardedRange& GuardedRange::operator=(GuardedRange&& o) noexcept {
  slot_ = o.slot_, changed_ = o.changed_;
  o.reset();
  return *this;
}
GuardedRange::~GuardedRange() = default;
void GuardedRange::reset() noexcept { slot_ = -1, changed_ = nullptr; }

}  // namespace ilmap
