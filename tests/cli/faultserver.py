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

As an S3 endpoint (AWS_ENDPOINT_URL=http://127.0.0.1:PORT/FAULT, path-style /FAULT/BUCKET/KEY;
signatures are not checked), a GET of /FAULT/BUCKET?list-type=2&prefix=P is a ListObjectsV2
listing of the files under ROOT/BUCKET whose names start with P (max-keys honoured, default
1000; the continuation token is the last key of the previous page). /ok/ also takes HEAD, PUT
and DELETE of objects (a small bucket: what tests/s3/credentials.sh writes and reads). Listing
faults (any other request under them is a 404):

  /listshort/      the listing plus the key "x", shorter than any prefix ending in '/'
  /listoutside/    the listing plus a key longer than the prefix but outside it
  /listalternate/  always truncated; the next token alternates t1, t0, t1, ... (one key a page)
  /listnew/        always truncated; a new token every page, each page max-keys (1000) new keys
  /deny/           403 to every request, the XML error's Message echoing the request's
                   Authorization and x-amz-security-token headers (a hostile server)

Every request is logged to LOG as "FAULT STATUS KEY" (one line, flushed). Nothing outside ROOT
is served (a key with '..' or a leading '/' is a 404).
"""
import http.server
import os
import urllib.parse
from xml.sax.saxutils import escape
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

    def object_path(self):
        """(fault, key, path of the file under ROOT or None when outside ROOT)."""
        parts = urllib.parse.unquote(self.path.split("?")[0]).lstrip("/").split("/", 1)
        fault, key = parts[0], (parts[1] if len(parts) > 1 else "")
        if ".." in key.split("/") or key.startswith("/"):
            return fault, key, None
        return fault, key, os.path.join(ROOT, key)

    def deny(self, fault, key):
        auth = self.headers.get("Authorization", "")
        token = self.headers.get("x-amz-security-token", "")
        body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>"
                "<Message>Access Denied. You sent Authorization: %s and x-amz-security-token: %s</Message>"
                "<AuthorizationHeader>%s</AuthorizationHeader></Error>" % (escape(auth), escape(token), escape(auth)))
        log(fault, 403, key)
        if self.command == "HEAD":
            self.send_response(403)
            self.send_header("Content-Length", "0")
            return self.end_headers()
        return self.send_plain(403, body.encode())

    def list_objects(self, fault, bucket, query):
        """A ListObjectsV2 answer, honest for /ok/, lying for the list* faults."""
        q = urllib.parse.parse_qs(query, keep_blank_values=True)
        prefix = q.get("prefix", [""])[0]
        token = q.get("continuation-token", [""])[0]
        max_keys = int(q.get("max-keys", ["1000"])[0])
        log(fault, 200, "LIST %s/%s" % (bucket, prefix))
        keys, truncated, nxt = [], False, ""
        if fault == "listalternate":
            truncated, nxt = True, ("t0" if token == "t1" else "t1")
            keys = [prefix + "alternate-" + (token or "start")]
        elif fault == "listnew":
            n = int(token[1:]) if token.startswith("n") else 0
            truncated, nxt = True, "n%d" % (n + 1)
            keys = [prefix + "new-%08d-%06d" % (n, i) for i in range(max_keys)]
        else:
            top = os.path.join(ROOT, bucket)
            found = []
            for d, _, files in os.walk(top):
                for f in files:
                    rel = os.path.relpath(os.path.join(d, f), top).replace(os.sep, "/")
                    if rel.startswith(prefix):
                        found.append(rel)
            found.sort()
            found = [k for k in found if k > token] if token else found
            keys = found[:max_keys]
            if len(found) > max_keys:
                truncated, nxt = True, keys[-1]
            if fault == "listshort":
                keys.append("x")
            elif fault == "listoutside":
                keys.append("zz-outside-" + "y" * len(prefix) + "/a.pdb/0/a.pdb")
        body = ['<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">']
        body.append("<Name>%s</Name><Prefix>%s</Prefix><KeyCount>%d</KeyCount><MaxKeys>%d</MaxKeys>"
                    % (escape(bucket), escape(prefix), len(keys), max_keys))
        body.append("<IsTruncated>%s</IsTruncated>" % ("true" if truncated else "false"))
        if token:
            body.append("<ContinuationToken>%s</ContinuationToken>" % escape(token))
        if truncated:
            body.append("<NextContinuationToken>%s</NextContinuationToken>" % escape(nxt))
        for k in keys:
            body.append("<Contents><Key>%s</Key><Size>0</Size><StorageClass>STANDARD</StorageClass></Contents>" % escape(k))
        body.append("</ListBucketResult>")
        self.send_plain(200, "".join(body).encode())

    def do_HEAD(self):
        fault, key, path = self.object_path()
        if fault == "deny":
            return self.deny(fault, key)
        if fault != "ok" or path is None or not os.path.isfile(path):
            log(fault, 404, key)
            self.send_response(404)
            self.send_header("Content-Length", "0")
            return self.end_headers()
        log(fault, 200, key)
        self.send_response(200)
        self.send_header("Content-Length", str(os.path.getsize(path)))
        self.end_headers()

    def do_PUT(self):
        fault, key, path = self.object_path()
        data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if fault == "deny":
            return self.deny(fault, key)
        if fault != "ok" or path is None:
            log(fault, 404, key)
            return self.send_plain(404)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".put-tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".put-tmp", path)
        log(fault, 200, key)
        self.send_plain(200)

    def do_DELETE(self):
        fault, key, path = self.object_path()
        if fault == "deny":
            return self.deny(fault, key)
        if fault == "ok" and path is not None and os.path.isfile(path):
            os.remove(path)
        log(fault, 204, key)
        self.send_response(204)
        self.end_headers()

    def do_GET(self):
        fault, key, path = self.object_path()
        if fault == "deny":
            return self.deny(fault, key)
        query = self.path.split("?", 1)[1] if "?" in self.path else ""
        if "list-type=2" in query.split("&") and "/" not in key:
            return self.list_objects(fault, key, query)
        if fault.startswith("list"):
            log(fault, 404, key)
            return self.send_plain(404)
        if path is None or not os.path.isfile(path):
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
