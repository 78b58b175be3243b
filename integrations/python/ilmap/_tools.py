"""ilmap.compile, ilmap.fetch and ilmap.Symbolicator: compile caches, fetch them from symbol
servers and symbolicate trace text in process, through libilmap.so's C API (ilmap_compile,
ilmap_fetch, ilmap_symbolicator_*, ilmap_find_module): the code `ilmap compile`, `ilmap fetch`
and `ilmap symbolicate` run, so the answers are the program's, byte for byte.
"""

from __future__ import annotations

import ctypes
import os
import uuid
from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Union

from . import _native
from ._cache import Cache, Error, PathLike, Status, _Handle, _message

_lib = _native.lib
_MSG_SIZE = 4096

_COLUMNS, _URLS, _JSON = 1, 2, 4
_FILE_NAME, _MVID, _DEBUG_ID = 0, 1, 2


@dataclass(frozen=True)
class CompileResult:
    """What compile() did: `up_to_date` when the cache was already current (left alone)."""

    up_to_date: bool
    points: int  # sequence points in the cache written (0 when up to date)
    bytes: int  # bytes written (0 when up to date)
    warnings: List[str] = field(default_factory=list)  # what the cache lacks, e.g. method names


def _path_or_none(p: Optional[PathLike]) -> Optional[bytes]:
    return None if p is None else os.fsencode(p)


def compile(input: PathLike, output: PathLike, *, pe: Optional[PathLike] = None,  # noqa: A001 (the command's name)
            pdb: Optional[PathLike] = None, symbol_path: Optional[str] = None, embed_sources: bool = False,
            force: bool = False) -> CompileResult:
    """Compiles `input` (a .dll/.exe with its PDB, or a Portable or Windows PDB) into the cache
    file `output`, as `ilmap compile INPUT -o OUTPUT` does: atomically, never over an input.

    `pe`: the PE of a PDB input (method names; default a same-named .dll/.exe beside it);
    `pdb`: the PDB of a PE input; `symbol_path`: where a PE's missing PDB is fetched from
    ("srv*CACHE*https://server"). Raises Error (its code: IO for a missing input, NOT_FOUND for
    a PE whose PDB is not found, MISMATCH, USAGE, MALFORMED, ...) with the program's message.
    """
    o = _native.CompileOptions()
    o.size = ctypes.sizeof(o)
    o.pe = _path_or_none(pe)
    o.pdb = _path_or_none(pdb)
    o.symbol_path = None if symbol_path is None else symbol_path.encode("utf-8")
    o.embed_sources = 1 if embed_sources else 0
    o.force = 1 if force else 0
    r = _native.CompileResult()
    msg = ctypes.create_string_buffer(_MSG_SIZE)
    status = _lib.ilmap_compile(os.fsencode(input), os.fsencode(output), ctypes.byref(o), ctypes.byref(r), msg,
                                _MSG_SIZE)
    if status != Status.OK:
        raise Error(status, _message(msg))
    text = _message(msg)
    return CompileResult(up_to_date=bool(r.up_to_date), points=r.points, bytes=r.bytes,
                         warnings=text.split("\n") if text else [])


def fetch(input: PathLike, symbol_path: str, *, cache: bool = True, download_timeout: Optional[int] = None) -> str:
    """What `symbol_path` ("srv*CACHE*https://server;DIR") holds for the PE or Portable PDB at
    `input`, as `ilmap fetch` finds it: the ilmap cache of its PDB (`cache=False`: the PDB),
    downloaded into the symbol path's cache folders and verified. Returns the local path. Raises
    Error: NOT_FOUND (no source has it), MISMATCH (only wrong files offered), USAGE (a bad symbol
    path), IO (a server failed)."""
    capacity = 4096
    while True:
        buf = ctypes.create_string_buffer(capacity)
        need = ctypes.c_size_t()
        msg = ctypes.create_string_buffer(_MSG_SIZE)
        status = _lib.ilmap_fetch(symbol_path.encode("utf-8"), os.fsencode(input), 1 if cache else 0,
                                  0 if download_timeout is None else int(download_timeout), buf, capacity,
                                  ctypes.byref(need), msg, _MSG_SIZE)
        if status == Status.TOO_LARGE and need.value + 1 > capacity:
            capacity = need.value + 1
            continue
        if status != Status.OK:
            raise Error(status, _message(msg))
        return os.fsdecode(buf.value)


@dataclass(frozen=True)
class SymbolicateStats:
    """Counts of the last symbolicate() call."""

    lines: int
    frames: int  # frames to resolve
    resolved: int
    with_lines: int  # frames that already had a line (left as they were)


class Symbolicator(_Handle):
    """Symbolicates trace and log text as `ilmap symbolicate` does.

    Modules are looked for in `search` (files and folders: PEs, PDBs, caches, symbol stores;
    default the current directory), then on `symbol_path`; what is missing is compiled into
    `cache_dir` (default $XDG_CACHE_HOME/ilmap, else ~/.cache/ilmap) and reused. `columns`,
    `urls` and `json` are the command's flags. Mono AOT frames (native offsets) are resolved
    through the `.msym` files of `msym_dirs` (folders `mono --aot=msym-dir` wrote, or stores
    holding them; symbolicate --msym-dir). One thread at a time: make one per thread.
    Use it as a context manager, or close() it.
    """

    def __init__(self, search: Iterable[PathLike] = (), *, cache_dir: Optional[PathLike] = None,
                 symbol_path: Optional[str] = None, columns: bool = False, urls: bool = False, json: bool = False,
                 download_timeout: Optional[int] = None, msym_dirs: Iterable[PathLike] = ()) -> None:
        self._handle: Optional[int] = None
        self.stats: Optional[SymbolicateStats] = None
        paths = [os.fsencode(p) for p in search]
        array = (ctypes.c_char_p * max(1, len(paths)))(*paths)
        o = _native.SymbolicatorOptions()
        o.size = ctypes.sizeof(o)
        o.search = ctypes.cast(array, ctypes.POINTER(ctypes.c_char_p)) if paths else None
        o.search_count = len(paths)
        o.cache_dir = _path_or_none(cache_dir)
        o.symbol_path = None if symbol_path is None else symbol_path.encode("utf-8")
        o.flags = (_COLUMNS if columns else 0) | (_URLS if urls else 0) | (_JSON if json else 0)
        o.download_timeout_s = 0 if download_timeout is None else int(download_timeout)
        msym = [os.fsencode(p) for p in msym_dirs]
        msym_array = (ctypes.c_char_p * max(1, len(msym)))(*msym)
        o.msym_dirs = ctypes.cast(msym_array, ctypes.POINTER(ctypes.c_char_p)) if msym else None
        o.msym_dir_count = len(msym)
        err = ctypes.c_int(-1)
        msg = ctypes.create_string_buffer(_MSG_SIZE)
        handle = _lib.ilmap_symbolicator_open(ctypes.byref(o), ctypes.byref(err), msg, _MSG_SIZE)
        if not handle:
            raise Error(err.value, _message(msg) or "cannot open a symbolicator")
        self._handle = handle

    def _release(self, handle: int) -> None:
        # The caches find_module gave stop working (they check `closed`).
        _lib.ilmap_symbolicator_close(handle)

    def _closed_message(self) -> str:
        return "the Symbolicator is closed"

    def symbolicate(self, text: Union[str, bytes]) -> Union[str, bytes]:
        """`text` with every frame found given its file and line; every other byte unchanged.
        str in, str out (UTF-8; undecodable bytes kept as surrogate escapes); bytes in, bytes
        out. Unresolved frames stay as they were (counted in `stats`)."""
        data = text.encode("utf-8", errors="surrogateescape") if isinstance(text, str) else bytes(text)
        out = ctypes.c_void_p()
        out_len = ctypes.c_size_t()
        st = _native.SymbolicateStats()
        status = _lib.ilmap_symbolicate(self._h(), data, len(data), ctypes.byref(out), ctypes.byref(out_len),
                                        ctypes.byref(st))
        if status != Status.OK:
            raise Error(status, "symbolicate failed" + (" (out of memory)" if status == Status.IO else ""))
        try:
            result = ctypes.string_at(out.value, out_len.value) if out_len.value else b""
        finally:
            _lib.ilmap_free(out)
        self.stats = SymbolicateStats(lines=st.lines, frames=st.frames, resolved=st.resolved, with_lines=st.with_lines)
        return result.decode("utf-8", errors="surrogateescape") if isinstance(text, str) else result

    def find_module(self, *, file_name: Optional[str] = None, mvid: Union[str, uuid.UUID, None] = None,
                    debug_id: Optional[str] = None, name_hint: Optional[str] = None) -> Cache:
        """The cache of a module, found as symbolicate() finds it: by `file_name` ("App.dll", as
        CoreCLR prints it), `mvid` (as Mono prints it) or `debug_id` ("<guid>-<stamp>"; with
        `name_hint`, the PDB's name, for a symbol server). Exactly one of the three. The Cache
        belongs to this Symbolicator: it works until the Symbolicator is closed. Raises Error
        NOT_FOUND (the message says why) or USAGE (an id that is not one)."""
        given = [(k, v) for k, v in ((_FILE_NAME, file_name), (_MVID, mvid), (_DEBUG_ID, debug_id)) if v is not None]
        if len(given) != 1:
            raise Error(Status.USAGE, "find_module: give exactly one of file_name, mvid, debug_id")
        kind, value = given[0]
        ident = str(value).encode("utf-8")
        handle = ctypes.c_void_p()
        msg = ctypes.create_string_buffer(_MSG_SIZE)
        status = _lib.ilmap_find_module(self._h(), kind, ident, len(ident),
                                        None if name_hint is None else name_hint.encode("utf-8"),
                                        ctypes.byref(handle), msg, _MSG_SIZE)
        if status != Status.OK:
            raise Error(status, _message(msg))
        return Cache._borrowed(handle.value, self, f"<module {value}>")
