"""ilmap: read ilmap caches of .NET PDBs from Python (ctypes over libilmap.so.1).

    import ilmap
    with ilmap.Cache("Ilmap.Corpus.Frames.ilmap") as cache:
        loc = cache.lookup(0x0600000A, 7)   # -> Location(file='/_/Frames/Scenarios.cs', line=37, ...)

Caches are written by `ilmap compile`. See README.md beside this package.
"""

from ._cache import Cache, Error, Flavor, LineMatch, Location, Status
from ._native import library_path
from ._version import __version__

__all__ = ["Cache", "Error", "Flavor", "LineMatch", "Location", "Status", "library_path", "__version__"]
