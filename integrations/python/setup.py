"""Tags the wheel for the platform of the bundled libilmap.so.1 (py3-none-<platform>) and
installs it as platform code: the package has no compiled extension, so setuptools would
otherwise call it pure. The rest of the metadata is in pyproject.toml."""

import sysconfig

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:  # libilmap.so.1 is native code
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self) -> tuple:
        # Any Python 3 (ctypes, no extension module, no Python ABI) on this platform.
        return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
