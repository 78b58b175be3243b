// ThreadLocal.h - per_thread<T>(): one T per thread, made on first use and destroyed when its
// thread ends, on every platform ilmap builds for.
//
// On Linux this is a plain thread_local. On Windows (mingw-w64, whose thread_local lives in GCC's
// emulated TLS) a thread_local with a destructor is unsafe: at thread exit the emulated storage may
// be freed before the object's destructor runs on it (a known mingw-w64/GCC fault), which made
// ilmap.exe crash after `store add` or `fetch` with worker threads had done their work. There the
// object is allocated instead and found through a fiber-local slot (FlsAlloc) whose callback
// deletes it when the thread ends, independently of the emulated TLS.
#pragma once

namespace ilmap {

#if defined(_WIN32)
namespace thread_slots {
// A new fiber-local slot whose values `destroy` is given at thread exit; ~0u when none is left.
unsigned create(void (*destroy)(void*)) noexcept;
void* get(unsigned slot) noexcept;
bool set(unsigned slot, void* value) noexcept;
}  // namespace thread_slots

template <class T>
T& per_thread() {
  static const unsigned slot = thread_slots::create([](void* p) { delete static_cast<T*>(p); });
  if (void* p = thread_slots::get(slot)) return *static_cast<T*>(p);
  // Without a slot (the process ran out of them) the object is kept for the process's life
  // rather than destroyed at a thread exit that could run on freed storage: a pointer is
  // trivially destructible.
  thread_local T* kept = nullptr;
  if (kept) return *kept;
  T* made = new T();
  if (!thread_slots::set(slot, made)) kept = made;
  return *made;
}
#else
template <class T>
T& per_thread() {
  thread_local T object;
  return object;
}
#endif

}  // namespace ilmap
