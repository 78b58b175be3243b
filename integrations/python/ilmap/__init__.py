"""ilmap: read ilmap caches of .NET PDBs from Python (ctypes over libilmap.so.1).

    import ilmap
    with ilmap.Cache("Ilmap.Corpus.Frames.ilmap") as cache:
        loc = cache.lookup(0x0600000A, 7)   # -> Location(file='/_/Frames/Scenarios.cs', line=37, ...)

    ilmap.compile("bin/App.dll", "App.ilmap")            # what `ilmap compile` does, in process
    with ilmap.Symbolicator(["bin"]) as s:
        print(s.symbolicate(trace_text))                  # what `ilmap symbolicate` prints

See README.md beside this package.
"""

from ._cache import Cache, Error, Flavor, LineMatch, Location, Status
from ._native import library_path
from ._tools import CompileResult, Symbolicator, SymbolicateStats, compile, fetch
from ._version import __version__

__all__ = ["Cache", "CompileResult", "Error", "Flavor", "LineMatch", "Location", "Status", "Symbolicator",
           "SymbolicateStats", "compile", "fetch", "library_path", "__version__"]
