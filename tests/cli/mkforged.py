#!/usr/bin/env python3
# mkforged.py - builds the forged modules of the store and fetch security tests from corpus files.
#
#   mkforged.py setid IN.pdb FROM.pdb OUT.pdb
#       IN.pdb with the 20-byte #Pdb id of FROM.pdb (a PDB that claims another's identity).
#   mkforged.py pe OUT.dll EMBED.pdb CLAIM.pdb NAME
#       a minimal PE32+ whose debug directory holds a Portable CodeView entry naming NAME with
#       the GUID and stamp of CLAIM.pdb's id, and EMBED.pdb as its embedded Portable PDB
#       (deflated, "MPDB" header): what a client derives from it is CLAIM.pdb's key.
#   mkforged.py cvname IN.dll NAME OUT.dll
#       IN.dll with the path of its first CodeView entry replaced by NAME (NUL-padded; NAME
#       must not be longer than the path it replaces).
import struct
import sys
import zlib


def pdb_id_offset(b):
    """File offset of the 20-byte id: the start of the #Pdb stream of a Portable PDB."""
    if b[:4] != b'BSJB':
        raise SystemExit('mkforged.py: not a Portable PDB')
    vlen = struct.unpack_from('<I', b, 12)[0]
    at = 16 + vlen + 2
    count = struct.unpack_from('<H', b, at)[0]
    at += 2
    for _ in range(count):
        off, _size = struct.unpack_from('<II', b, at)
        end = b.index(b'\0', at + 8)
        name = b[at + 8:end]
        at = (end + 4) & ~3
        if name == b'#Pdb':
            return off
    raise SystemExit('mkforged.py: no #Pdb stream')


def read(path):
    with open(path, 'rb') as f:
        return bytearray(f.read())


def write(path, b):
    with open(path, 'wb') as f:
        f.write(b)


def setid(src, frm, out):
    b, f = read(src), read(frm)
    at, fat = pdb_id_offset(b), pdb_id_offset(f)
    b[at:at + 20] = f[fat:fat + 20]
    write(out, b)


def pe(out, embed, claim, name):
    pdb = read(embed)
    c = read(claim)
    cid = c[pdb_id_offset(c):][:20]
    guid, stamp = bytes(cid[:16]), struct.unpack_from('<I', cid, 16)[0]
    codeview = b'RSDS' + guid + struct.pack('<I', 1) + name.encode() + b'\0'
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    mpdb = b'MPDB' + struct.pack('<I', len(pdb)) + comp.compress(bytes(pdb)) + comp.flush()
    rva, raw, opt_size = 0x1000, 0x200, 240
    dir_size = 2 * 28
    cv_at = dir_size
    mp_at = (cv_at + len(codeview) + 3) & ~3
    body = bytearray(mp_at + len(mpdb))
    # IMAGE_DEBUG_DIRECTORY: characteristics, stamp, major, minor, type, size, rva, file offset.
    struct.pack_into('<IIHHIIII', body, 0, 0, stamp, 0x0100, 0x504D, 2, len(codeview), rva + cv_at, raw + cv_at)
    struct.pack_into('<IIHHIIII', body, 28, 0, 0, 0x0100, 0x0100, 17, len(mpdb), rva + mp_at, raw + mp_at)
    body[cv_at:cv_at + len(codeview)] = codeview
    body[mp_at:] = mpdb
    raw_size = (len(body) + 0x1FF) & ~0x1FF
    b = bytearray(raw + raw_size)
    b[0:2] = b'MZ'
    struct.pack_into('<I', b, 0x3C, 0x40)
    b[0x40:0x44] = b'PE\0\0'
    # COFF header: machine, sections, TimeDateStamp, symbols, optional header size, flags.
    struct.pack_into('<HHIIIHH', b, 0x44, 0x8664, 1, 0x5EC0FFEE, 0, 0, opt_size, 0x22)
    opt = 0x58
    struct.pack_into('<H', b, opt, 0x20B)             # PE32+
    struct.pack_into('<I', b, opt + 56, 0x4000)       # SizeOfImage
    struct.pack_into('<I', b, opt + 108, 16)          # NumberOfRvaAndSizes
    struct.pack_into('<II', b, opt + 112 + 8 * 6, rva, dir_size)  # debug directory
    sec = opt + opt_size
    b[sec:sec + 5] = b'.text'
    struct.pack_into('<IIII', b, sec + 8, len(body), rva, raw_size, raw)
    b[raw:raw + len(body)] = body
    write(out, b)


def cvname(src, name, out):
    b = read(src)
    at = b.index(b'RSDS')
    start = at + 24
    end = b.index(b'\0', start)
    new = name.encode()
    if len(new) > end - start:
        raise SystemExit('mkforged.py: name longer than the CodeView path')
    b[start:end] = new + b'\0' * (end - start - len(new))
    write(out, b)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {'setid': setid, 'pe': pe, 'cvname': cvname}[cmd](*args)


if __name__ == '__main__':
    main()
