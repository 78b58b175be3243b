#!/usr/bin/env python3
# mkzip.py OUT.zip SPEC... - writes a zip archive byte by byte, so that tests can build the
# hostile packages a zip library would refuse to write (store add / store watch tests).
# Each SPEC is NAME=SOURCE[:OPTION...]:
#   SOURCE   @FILE (its bytes), text:TEXT, zeros:N (N zero bytes), nuspec:ID/VERSION
#   OPTIONS  deflate            compress (default: stored)
#            size=N             declare N uncompressed bytes (zip64 when over 4 GiB)
#            symlink            Unix mode S_IFLNK|0777 in the external attributes
# `--many N` adds N tiny entries e0..eN-1 after the SPECs.
import struct
import sys
import zlib


def entry_bytes(source):
    if source.startswith('@'):
        with open(source[1:], 'rb') as f:
            return f.read()
    if source.startswith('text:'):
        return source[5:].encode()
    if source.startswith('zeros:'):
        return bytes(int(source[6:]))
    if source.startswith('nuspec:'):
        pid, ver = source[7:].split('/', 1)
        return ('<?xml version="1.0" encoding="utf-8"?>\n<package xmlns="http://schemas.microsoft.com/packaging/2012/06/nuspec.xsd">\n'
                '  <metadata>\n    <id>%s</id>\n    <version>%s</version>\n  </metadata>\n</package>\n' % (pid, ver)).encode()
    raise SystemExit('mkzip.py: bad source ' + source)


def main():
    args = sys.argv[1:]
    out = args.pop(0)
    specs = []
    while args:
        a = args.pop(0)
        if a == '--many':
            n = int(args.pop(0))
            specs += ['e%d=text:x' % i for i in range(n)]
        else:
            specs.append(a)
    local = bytearray()
    central = bytearray()
    for spec in specs:
        name, rest = spec.split('=', 1)
        # Options follow the last ':' groups that are known option words.
        parts = rest.split(':')
        opts = []
        while len(parts) > 1 and (parts[-1] in ('deflate', 'symlink') or parts[-1].startswith('size=')):
            opts.insert(0, parts.pop())
        data = entry_bytes(':'.join(parts))
        crc = zlib.crc32(data) & 0xffffffff
        method = 0
        payload = data
        if 'deflate' in opts:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            payload = c.compress(data) + c.flush()
            method = 8
        usize = len(data)
        for o in opts:
            if o.startswith('size='):
                usize = int(o[5:])
        csize = len(payload)
        attr = (0o120777 << 16) if 'symlink' in opts else (0o100644 << 16)
        zip64 = usize >= 0xffffffff
        extra = struct.pack('<HHQQ', 1, 16, usize, csize) if zip64 else b''
        u32 = 0xffffffff if zip64 else usize
        c32 = 0xffffffff if zip64 else csize
        nb = name.encode()
        version = 45 if zip64 else 20
        offset = len(local)
        local += struct.pack('<IHHHHHIIIHH', 0x04034b50, version, 0, method, 0, 0x21, crc, c32, u32, len(nb), len(extra))
        local += nb + extra + payload
        central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, (3 << 8) | version, version, 0, method, 0, 0x21, crc, c32, u32,
                               len(nb), len(extra), 0, 0, 0, attr, offset)
        central += nb + extra
    n = len(specs)
    eocd = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, min(n, 0xffff), min(n, 0xffff), len(central), len(local), 0)
    z64 = b''
    if n >= 0xffff:
        z64_off = len(local) + len(central)
        z64 = struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, n, n, len(central), len(local))
        z64 += struct.pack('<IIQI', 0x07064b50, 0, z64_off, 1)
        eocd = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 0xffff, 0xffff, len(central), len(local), 0)
    with open(out, 'wb') as f:
        f.write(local + central + z64 + eocd)


main()
