#!/usr/bin/env python3
"""faultserver.py - a small fault-injecting HTTP server for the fetch tests (python3 stdlib).

    faultserver.py ROOT PORTFILE LOG [--lifetime SECONDS]

Binds 127.0.0.1 on a free port, writes the port to PORTFILE, serves the files under ROOT, and
stops by itself after --lifetime seconds (default 60). The first path segment picks a fault
applied to the file named by the rest of the path:

  /ok/KEY          the file as it is
  /flaky/KEY       500 for the first 2 requests of each KEY, then the file (retries, backoff)
  /always500/KEY   500, always
  /slow/KEY        headers at once, then 16 bytes per second (read timeout)
  /drip/KEY        Content-Length 64 MiB, then 2 KiB every 0.25 s: above the client's 1 KiB/s
                   low-speed limit, so only a deadline for the whole download stops it
  /truncated/KEY   Content-Length of the whole file, half the body, then the connection closes
  /longer/KEY      Content-Length of half the file, the whole body sent (a lying server)
  /huge/KEY        Content-Length: 10 GiB, a few bytes, then the connection closes
  /endless/KEY     chunked, no length, zeros until the client gives up (at most 64 MiB)
  /wrongsum/KEY    the file with its last byte changed
  /loop/KEY        302 to itself
  /notfound/KEY    404
  /delay/KEY       the file after 50 ms (a distant server's latency, for bench/fetch-parallel.sh)
  /late/KEY        the file after 2 s (a slow server that does answer: serve's --request-timeout)

Every request is logged to LOG as "FAULT STATUS KEY" (one line, flushed). Nothing outside ROOT
is served (a key with '..' or a leading '/' is a 404).
"""
import http.server
import os
import socketserver
import sys
import threading
import time

ROOT, PORTFILE, LOG = sys.argv[1], sys.argv[2], sys.argv[3]
LIFETIME = float(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--lifetime" else 60.0
counts = {}
lock = threading.Lock()


def log(fault, status, key):
    with lock, open(LOG, "a") as f:
        f.write(f"{fault} {status} {key}\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_plain(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        parts = self.path.split("?")[0].lstrip("/").split("/", 1)
        fault, key = parts[0], (parts[1] if len(parts) > 1 else "")
        path = os.path.join(ROOT, key)
        if ".." in key.split("/") or key.startswith("/") or not os.path.isfile(path):
            log(fault, 404, key)
            return self.send_plain(404)
        with open(path, "rb") as f:
            data = f.read()
        if fault == "flaky":
            with lock:
                counts[key] = counts.get(key, 0) + 1
                n = counts[key]
            if n <= 2:
                log(fault, 500, key)
                return self.send_plain(500)
        if fault == "always500":
            log(fault, 500, key)
            return self.send_plain(500)
        if fault == "notfound":
            log(fault, 404, key)
            return self.send_plain(404)
        if fault == "loop":
            log(fault, 302, key)
            self.send_response(302)
            self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            return self.end_headers()
        if fault == "delay":
            time.sleep(0.05)
        if fault == "late":
            time.sleep(2)
        log(fault, 200, key)
        self.send_response(200)
        if fault == "endless":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"\0" * 65536
            for _ in range(1024):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.close_connection = True
            return
        if fault == "drip":
            self.send_header("Content-Length", str(64 << 20))
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"\0" * 2048)
                    self.wfile.flush()
                    time.sleep(0.25)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        if fault == "huge":
            self.send_header("Content-Length", str(10 << 30))
            self.end_headers()
            self.wfile.write(data[:64])
            self.close_connection = True
            return
        if fault == "truncated":
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.close_connection = True
            return
        if fault == "longer":
            self.send_header("Content-Length", str(len(data) // 2))
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True
            return
        if fault == "wrongsum":
            data = data[:-1] + bytes([data[-1] ^ 0x55])
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if fault == "slow":
            for i in range(0, len(data), 16):
                self.wfile.write(data[i : i + 16])
                self.wfile.flush()
                time.sleep(1)
            return
        self.wfile.write(data)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    tmp = PORTFILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, PORTFILE)
    threading.Timer(LIFETIME, server.shutdown).start()
    try:
        server.serve_forever(poll_interval=0.1)
    except (BrokenPipeError, ConnectionResetError):
        pass
    server.server_close()


if __name__ == "__main__":
    main()
