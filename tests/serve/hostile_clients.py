#!/usr/bin/env python3
"""hostile_clients.py ILMAP - `ilmap serve` against clients that try to hold it (docs/serve.md,
"Bounds"), each on its own server on 127.0.0.1 with small caps so that one hostile client is
enough to show the bound:
  - an endless chunked body past --max-body: answered 413 at once, connection closed;
  - a body sent a byte a second (never idle for --timeout): 408 and closed after --receive-timeout;
  - headers sent a byte a second: closed after --receive-timeout;
  - while any of them is arriving it holds no --max-concurrent slot: with --max-concurrent 1 a
    plain request beside it is answered 200, not 429;
  - a --token-file token is taken whole (4096 bytes: the whole token 200, a part of it 401) or
    refused at start (4097 bytes: exit 1, saying why), never cut.
Exit 0 pass, 1 fail."""
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

ILMAP = os.path.realpath(sys.argv[1])
failures = []


def fail(msg):
    print("FAIL: " + msg, flush=True)
    failures.append(msg)


class Server:
    def __init__(self, work, *args):
        self.log_path = os.path.join(work, "server-%d.log" % time.monotonic_ns())
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([ILMAP, "serve", "--port", "0", "--search", work, *args],
                                     stderr=self.log, stdout=subprocess.DEVNULL, cwd=work)
        self.port = None
        for _ in range(200):
            with open(self.log_path, "rb") as f:
                m = re.match(rb"ilmap serve: listening on http://127\.0\.0\.1:(\d+)\n", f.read())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise SystemExit("FAIL: server did not start: " + open(self.log_path, "rb").read().decode(errors="replace"))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()

    def text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def logged(self, pattern):
        """Whether a line of the log matches `pattern` within 5 s: the server logs a request's
        end after its connection closed, which the client may see first."""
        for _ in range(100):
            if re.search(pattern, self.text()):
                return True
            time.sleep(0.05)
        return False


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def plain_request(port, token=None):
    """A small text request, answered whole: returns the status."""
    s = connect(port)
    body = b"nothing to resolve here\n"
    auth = b"Authorization: Bearer %s\r\n" % token if token is not None else b""
    s.sendall(b"POST /symbolicate HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\n%sContent-Length: %d\r\n"
              b"Connection: close\r\n\r\n%s" % (auth, len(body), body))
    data = read_all(s, 10)
    s.close()
    return status_of(data)


def read_all(s, limit_s):
    """What the server sends until it closes, or until limit_s seconds passed."""
    end = time.monotonic() + limit_s
    data = b""
    while time.monotonic() < end:
        s.settimeout(max(0.05, end - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data


def status_of(data):
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", data)
    return int(m.group(1)) if m else None


def endless_chunked(work):
    srv = Server(work, "--max-body", "64KiB", "--max-concurrent", "1", "--timeout", "30",
                 "--receive-timeout", "60")
    try:
        s = connect(srv.port)
        s.sendall(b"POST /symbolicate HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        answer = []
        stop = threading.Event()

        def reader():
            answer.append(read_all(s, 20))
            stop.set()

        t = threading.Thread(target=reader)
        t.start()
        chunk = b"x" * 8192
        sent = 0
        start = time.monotonic()
        # Beside it, while it streams (once it has sent a little), a plain request.
        beside = None
        while not stop.is_set() and time.monotonic() - start < 15:
            try:
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                break
            sent += len(chunk)
            if beside is None and sent >= 16384 and sent < 65536:
                beside = plain_request(srv.port)
        t.join()
        took = time.monotonic() - start
        data = answer[0] if answer else b""
        if status_of(data) != 413:
            fail("endless chunked body: want 413, got %r after %d bytes sent in %.1f s" % (data[:80], sent, took))
        elif b"--max-body" not in data:
            fail("endless chunked body: the 413 does not name --max-body: %r" % data[-200:])
        if sent > (8 << 20):
            fail("endless chunked body: the server read %d bytes past a 64 KiB cap before closing" % sent)
        if beside != 200:
            fail("a plain request beside an arriving chunked body (--max-concurrent 1): want 200, got %r" % beside)
        s.close()
        after = plain_request(srv.port)
        if after != 200:
            fail("after the endless body: want 200, got %r" % after)
        if not srv.logged(r"status=413 .*end=over-max-body"):
            fail("endless chunked body: no access line with end=over-max-body:\n" + srv.text())
    finally:
        srv.stop()


def slow_body(work):
    srv = Server(work, "--max-concurrent", "1", "--timeout", "30", "--receive-timeout", "2")
    try:
        s = connect(srv.port)
        s.sendall(b"POST /symbolicate HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n")
        start = time.monotonic()
        closed_at = None
        beside = None
        for i in range(20):  # a byte every half second: never idle, 1000 bytes would take 500 s
            try:
                s.sendall(b"x")
            except OSError:
                closed_at = time.monotonic()
                break
            if i == 1:
                beside = plain_request(srv.port)
            time.sleep(0.5)
        data = read_all(s, 5)
        took = (closed_at or time.monotonic()) - start
        if status_of(data) != 408:
            fail("slow body, --receive-timeout 2: want 408, got %r after %.1f s" % (data[:80], took))
        elif b"--receive-timeout" not in data:
            fail("slow body: the 408 does not name --receive-timeout: %r" % data[-200:])
        if beside != 200:
            fail("a plain request beside a slow body (--max-concurrent 1): want 200, got %r" % beside)
        s.close()
        if not srv.logged(r"status=408 .*end=receive-timeout"):
            fail("slow body: no access line with status=408 end=receive-timeout:\n" + srv.text())
    finally:
        srv.stop()


def slow_headers(work):
    srv = Server(work, "--timeout", "30", "--receive-timeout", "2")
    try:
        s = connect(srv.port)
        s.sendall(b"POST /symbolicate HTTP/1.1\r\nHost: t\r\n")
        start = time.monotonic()
        closed = False
        for _ in range(20):  # "X-Slow: aaaa..." a byte every half second
            try:
                s.sendall(b"X"[:1] if _ == 0 else b"a")
                s.settimeout(0.5)
                if s.recv(4096) == b"":
                    closed = True
                    break
            except socket.timeout:
                continue
            except OSError:
                closed = True
                break
        took = time.monotonic() - start
        if not closed:
            fail("slow headers, --receive-timeout 2: the connection is still open after %.1f s" % took)
        s.close()
        if not srv.logged(r"connection closed: no whole request within 2 s \(--receive-timeout\)"):
            fail("slow headers: the server did not say why it closed:\n" + srv.text())
        if plain_request(srv.port) != 200:
            fail("after slow headers: a plain request is not answered 200")
    finally:
        srv.stop()


def tokens(work):
    whole = ("t0123456789abcdef" * 241)[:4096].encode()
    path = os.path.join(work, "token")
    with open(path, "wb") as f:
        f.write(whole + b"\n")
    srv = Server(work, "--token-file", path)
    try:
        got = plain_request(srv.port, whole)
        if got != 200:
            fail("a 4096-byte token sent whole: want 200, got %r" % got)
        got = plain_request(srv.port, whole[:-1])
        if got != 401:
            fail("the first 4095 bytes of a 4096-byte token: want 401, got %r" % got)
    finally:
        srv.stop()
    with open(path, "wb") as f:
        f.write(whole + b"x\n")
    r = subprocess.run([ILMAP, "serve", "--port", "0", "--token-file", path], capture_output=True, timeout=20)
    if r.returncode != 1 or b"4097 bytes" not in r.stderr:
        fail("a 4097-byte token: want exit 1 saying 4097 bytes, got %d: %r" % (r.returncode, r.stderr[-300:]))


def main():
    with tempfile.TemporaryDirectory(prefix="ilmap-serve-hostile.") as work:
        os.environ["XDG_CACHE_HOME"] = os.path.join(work, "xdg")
        os.environ.pop("_NT_SYMBOL_PATH", None)
        for case in (endless_chunked, slow_body, slow_headers, tokens):
            case(work)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("all passed: endless chunked body, slow body, slow headers, whole tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
