"""Tags the wheel for the platform of the bundled libilmap.so.1 and installs it as platform code:
the package has no compiled extension, so setuptools would otherwise call it pure. The rest of the
metadata is in pyproject.toml.

The tag is py3-none-manylinux_<X>_<Y>_<machine> (PEP 600): the machine from the library's ELF
header (a cross-built library is tagged for its own platform), X.Y the newest glibc symbol version
the library needs (its GNU version-needs section), so pip installs the wheel exactly where the
library can be loaded. The released library needs 2.31 (scripts/build.sh dist); one built against
this machine's glibc gets that glibc's version."""

import re
import struct
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel

LIBRARY = Path(__file__).parent / "ilmap" / "_lib" / "libilmap.so.1"
ELF_MACHINES = {62: "x86_64", 183: "aarch64"}  # e_machine: EM_X86_64, EM_AARCH64


SHT_GNU_VERNEED = 0x6FFFFFFE


def glibc_needed(elf: bytes) -> tuple:
    """The newest GLIBC_X.Y version an ELF64 little-endian file needs, as (X, Y); (0, 0) if none.
    Reads the section headers, the version-needs section (Verneed entries, each with its Vernaux
    list) and the string table it links to."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    best = (0, 0)
    for _name, kind, _flags, _addr, offset, _size, link, info, _align, _entsize in sections:
        if kind != SHT_GNU_VERNEED:
            continue
        strtab = sections[link][4]
        need = offset
        for _ in range(info):  # sh_info: the number of Verneed entries
            _version, count, _file, aux, next_need = struct.unpack_from("<HHIII", elf, need)
            entry = need + aux
            for _ in range(count):
                _hash, _vflags, _other, name, next_aux = struct.unpack_from("<IHHII", elf, entry)
                end = elf.index(b"\0", strtab + name)
                match = re.fullmatch(rb"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", elf[strtab + name:end])
                if match:
                    best = max(best, (int(match.group(1)), int(match.group(2))))
                entry += next_aux
            need += next_need
    return best


def platform_tag() -> str:
    if LIBRARY.is_file():
        elf = LIBRARY.read_bytes()
        if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
            raise SystemExit(f"{LIBRARY}: not a 64-bit little-endian ELF file")
        machine = struct.unpack_from("<H", elf, 18)[0]
        if machine not in ELF_MACHINES:
            raise SystemExit(f"{LIBRARY}: ELF machine {machine} has no wheel platform here")
        major, minor = glibc_needed(elf)
        if (major, minor) < (2, 17):  # manylinux tags start at glibc 2.17
            major, minor = 2, 17
        return f"manylinux_{major}_{minor}_{ELF_MACHINES[machine]}"
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:  # libilmap.so.1 is native code
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self) -> tuple:
        # Any Python 3 (ctypes, no extension module, no Python ABI) on the library's platform.
        return "py3", "none", platform_tag()


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
