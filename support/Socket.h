// Socket.h - the few socket calls `ilmap serve` makes around its HTTP library: an answer written
// straight to a connection the library cannot answer on (libmicrohttpd 0.9.75 queues no response
// while a body is still arriving), a bounded lingering read, and a shutdown from another thread.
// Kept here so that a Windows build differs in this folder only (STYLE.md, habit 13).
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

namespace ilmap {

// Writes `bytes` to the connected socket `fd` without blocking (what the send buffer takes; an
// answer of a few hundred bytes always fits) and without SIGPIPE, then ends the sending side, so
// the peer reads the answer followed by end of stream. False when nothing could be written.
bool send_final_answer(int fd, std::string_view bytes);

// Reads and drops what the peer still sends, for at most `limit` and at most `max_bytes`, or until
// it closes: a peer that is still sending when a socket with unread bytes is closed receives a
// reset, which can make it lose the answer it was sent. Returns the bytes dropped.
std::size_t drain_input(int fd, std::chrono::milliseconds limit, std::size_t max_bytes);

// Ends both directions of `fd` (which stays open: its owner closes it). A thread blocked reading
// it wakes with end of stream.
void shutdown_socket(int fd);

}  // namespace ilmap
