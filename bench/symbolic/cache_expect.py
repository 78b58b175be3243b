#!/usr/bin/env python3
"""bench/symbolic/cache_expect.py - what symbolic-ppdb's cache of a PDB must be, for
bench/symbolic_compare.sh, worked out without symbolic or the watto shim.

  cache_expect.py size ILMAP PDB
      prints "bytes=B files=F ranges=R string_bytes=S empty_names=E": the size of the
      PortablePdbCache that symbolic-ppdb 13.9.0 writes for PDB with watto 0.2.0, from the
      points and documents `ILMAP dump` lists (ilmap's own decoder).
  cache_expect.py empty-name PDB OUT
      writes a copy of PDB whose document 1 has the empty name "" (its name blob overwritten
      in place with zeros: separator 0, every part the empty blob 0), to show that lookups
      reach such a document.

The size, from symbolic-ppdb 13.9.0's cache/raw.rs and cache/writer.rs: the header (magic,
version, a 32-byte DebugId, num_files, num_ranges, string_bytes, 16 reserved bytes: 68 bytes),
padded to 8; a File (name offset, language: 8 bytes) per distinct (name, language) of a
document that a non-hidden sequence point names, padded to 8; a SourceLocation and a Range
(8 bytes each) per distinct (method row, IL offset) of a non-hidden point; then the string table
as watto 0.2.0 writes it: each distinct name once, its UTF-8 byte length in LEB128 and its
bytes, the empty name included (one byte). watto 0.1 did not store the empty name, which makes
a cache one byte shorter and its lookups into that document miss.
"""
import json
import struct
import subprocess
import sys

HEADER = 4 + 4 + 32 + 4 + 4 + 4 + 16
# symbolic's Language for a document's language GUID (format/sequence_points.rs): anything
# but these three is Unknown.
LANGS = {"C#": 1, "VB": 2, "F#": 3}


def pad8(n):
    return (n + 7) & ~7


def leb128_len(n):
    k = 1
    while n >= 0x80:
        n >>= 7
        k += 1
    return k


def dump(ilmap, pdb, *flags):
    out = subprocess.run([ilmap, "dump", "--json", *flags, pdb], check=True, capture_output=True).stdout
    return out.decode("utf-8")


def size(ilmap, pdb):
    docs = json.loads(dump(ilmap, pdb, "--documents"))
    langs = {}
    for d in docs:
        langs.setdefault(d["path"], set()).add(LANGS.get(d["language"], 0))
    ranges, names = set(), set()
    for line in dump(ilmap, pdb).splitlines():
        p = json.loads(line)
        if p["hidden"]:
            continue
        ranges.add((int(p["method"], 16) & 0xFFFFFF, p["il_offset"]))
        names.add(p["file"])
    # Two documents with one name and different languages are two files; the points do not say
    # which document they name, so such a name counts every language its documents have.
    files = sum(len(langs.get(n, {0})) for n in names)
    strings = sum(leb128_len(len(b)) + len(b) for b in (n.encode("utf-8") for n in names))
    total = pad8(HEADER) + pad8(8 * files) + 8 * len(ranges) + 8 * len(ranges) + strings
    print(f"bytes={total} files={files} ranges={len(ranges)} string_bytes={strings} "
          f"empty_names={sum(1 for n in names if n == '')}")


def empty_name(pdb, out):
    data = bytearray(open(pdb, "rb").read())
    if data[:4] != b"BSJB":
        sys.exit(f"cache_expect.py: {pdb}: not a standalone Portable PDB (no metadata root)")
    vlen = struct.unpack_from("<I", data, 12)[0]
    pos = 16 + vlen + 2
    (count,) = struct.unpack_from("<H", data, pos)
    pos += 2
    streams = {}
    for _ in range(count):
        off, sz = struct.unpack_from("<II", data, pos)
        end = data.index(b"\0", pos + 8)
        streams[data[pos + 8:end].decode()] = (off, sz)
        pos = (end + 4) & ~3
    tables, _ = streams["#~"]
    blobs, _ = streams["#Blob"]
    heap_sizes = data[tables + 6]
    (valid,) = struct.unpack_from("<Q", data, tables + 8)
    if valid & ((1 << 0x30) - 1) or not valid & (1 << 0x30):
        sys.exit(f"cache_expect.py: {pdb}: #~ holds type-system tables or no Document table")
    rows_at = tables + 24 + 4 * bin(valid).count("1")
    # Document row 1, column Name: a #Blob index, 4 bytes wide when HeapSizes has 0x04
    name = struct.unpack_from("<I" if heap_sizes & 4 else "<H", data, rows_at)[0]
    at = blobs + name
    first = data[at]
    if first < 0x80:
        start, length = at + 1, first
    elif first < 0xC0:
        start, length = at + 2, ((first & 0x3F) << 8) | data[at + 1]
    else:
        start, length = at + 4, struct.unpack_from(">I", data, at)[0] & 0x1FFFFFFF
    if length == 0:
        sys.exit(f"cache_expect.py: {pdb}: document 1 has an empty name blob")
    data[start:start + length] = bytes(length)
    open(out, "wb").write(data)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "size":
        size(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "empty-name":
        empty_name(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: cache_expect.py size ILMAP PDB | empty-name PDB OUT")
