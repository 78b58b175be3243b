"""Tags the wheel for the platform of the bundled libilmap.so.1 (py3-none-linux_<machine>, the
machine read from the library's ELF header, so a cross-built library is tagged for its own
platform) and installs it as platform code: the package has no compiled extension, so
setuptools would otherwise call it pure. The rest of the metadata is in pyproject.toml."""

import struct
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel

LIBRARY = Path(__file__).parent / "ilmap" / "_lib" / "libilmap.so.1"
ELF_MACHINES = {62: "x86_64", 183: "aarch64"}  # e_machine: EM_X86_64, EM_AARCH64


def platform_tag() -> str:
    if LIBRARY.is_file():
        header = LIBRARY.read_bytes()[:20]
        if header[:4] != b"\x7fELF" or header[5] != 1:
            raise SystemExit(f"{LIBRARY}: not a little-endian ELF file")
        machine = struct.unpack_from("<H", header, 18)[0]
        if machine not in ELF_MACHINES:
            raise SystemExit(f"{LIBRARY}: ELF machine {machine} has no wheel platform here")
        return "linux_" + ELF_MACHINES[machine]
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:  # libilmap.so.1 is native code
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self) -> tuple:
        # Any Python 3 (ctypes, no extension module, no Python ABI) on the library's platform.
        return "py3", "none", platform_tag()


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
