"""ilmap.Cache: an ilmap cache opened through the C API, answering with Python values.

Every string the C API returns points into the cache's mapping and lives until ilmap_close();
they are copied into Python objects before a method returns, so nothing returned here outlives
or borrows from the handle. Every buffer handed to the library carries its size.
"""

from __future__ import annotations

import ctypes
import enum
import os
import uuid
from dataclasses import dataclass
from typing import List, Optional, Union

from . import _native

_lib = _native.lib
_MSG_SIZE = 1024
# Cache.lines' rules: the C API's ILMAP_LINES_DEBUGGER and ILMAP_LINES_ALL_METHODS (SPEC.md 6.2).
_LINE_RULES = {"debugger": 0, "all-methods": 1}


class Status(enum.IntEnum):
    """The C API's pinned status codes (enum ilmap_status)."""

    OK = 0
    USAGE = 1
    IO = 2
    TRUNCATED = 3
    BAD_MAGIC = 4
    BAD_VERSION = 5
    MALFORMED = 6
    UNSUPPORTED = 7
    NOT_FOUND = 8
    MISMATCH = 9
    TOO_LARGE = 10
    CHECKSUM = 11


class Error(Exception):
    """A failure reported by libilmap: `code` is its status (a Status when known), `message` its text."""

    def __init__(self, code: int, message: str) -> None:
        try:
            code = Status(code)
        except ValueError:
            pass
        self.code = code
        self.message = message
        name = code.name if isinstance(code, Status) else str(int(code))
        super().__init__(f"{message} (ilmap error {int(code)} {name})")


class Flavor(enum.IntEnum):
    """How a method name is written (enum ilmap_name_flavor)."""

    CORECLR = 0  # "NS.C.M(Int32 x)", as CoreCLR prints a frame
    MONO = 1  # "NS.C.M (System.Int32 x)", as Mono prints a frame


@dataclass(frozen=True)
class Location:
    """The source position of a token and IL offset: the sequence point at or before the offset."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    language: str  # "C#", "VB", "F#", "other", "unknown"
    url: Optional[str]  # SourceLink URL, when the PDB maps the file
    il_offset: int  # IL offset of the sequence point that answered
    method: Optional[str]  # CoreCLR's text of the method, when the cache has names


@dataclass(frozen=True)
class LineMatch:
    """A binding of a source line: where a debugger puts a breakpoint for it."""

    token: int
    il_offset: int
    document: int
    file: str
    line: int
    column: int
    end_line: int
    end_column: int


def _text(ptr: Optional[int], length: int) -> Optional[str]:
    if not ptr:
        return None
    return ctypes.string_at(ptr, length).decode("utf-8", errors="surrogateescape")


def _message(buf: ctypes.Array) -> str:
    return buf.value.decode("utf-8", errors="replace")


PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


class _Handle:
    """What Cache and Symbolicator share: a library handle in `_handle` (None once closed),
    released by `_release`, with close(), `closed`, the context manager and close on collection.
    `_h()` gives the handle of an open object (subclasses check more) or raises Error USAGE."""

    _handle: Optional[int] = None

    def _release(self, handle: int) -> None:
        raise NotImplementedError

    def _closed_message(self) -> str:
        raise NotImplementedError

    def close(self) -> None:
        """Closes it (idempotent); later calls raise Error."""
        handle, self._handle = self._handle, None
        if handle:
            self._release(handle)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def __enter__(self):
        self._h()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _h(self) -> int:
        if self._handle is None:
            raise Error(Status.USAGE, self._closed_message())
        return self._handle


class Cache(_Handle):
    """An ilmap cache (a file written by `ilmap compile`), open until close().

    Use it as a context manager: ``with ilmap.Cache("App.ilmap") as cache: ...``. Opening a file
    that is not a valid cache raises Error. A closed cache raises Error (code USAGE) on use.
    `read=True` reads the file into memory instead of mapping it (ILMAP_OPEN_READ): no
    SIGRTMIN+6 handler is installed in the process and no lease is taken on the file.

    close() must not run while another thread is inside a call on the same cache: the
    library frees the mapping.
    """

    def __init__(self, path: PathLike, *, read: bool = False) -> None:
        self._handle: Optional[int] = None
        err = ctypes.c_int(-1)
        msg = ctypes.create_string_buffer(_MSG_SIZE)
        handle = _lib.ilmap_open_ex(os.fsencode(path), 1 if read else 0, ctypes.byref(err), msg, _MSG_SIZE)
        if not handle:
            raise Error(err.value, _message(msg) or f"cannot open {os.fsdecode(path)}")
        self._handle = handle
        self._path = os.fsdecode(path)

    @classmethod
    def from_bytes(cls, data: bytes) -> "Cache":
        """A cache from bytes in memory (the library copies them)."""
        self = cls.__new__(cls)
        self._handle = None
        err = ctypes.c_int(-1)
        msg = ctypes.create_string_buffer(_MSG_SIZE)
        handle = _lib.ilmap_open_bytes(bytes(data), len(data), ctypes.byref(err), msg, _MSG_SIZE)
        if not handle:
            raise Error(err.value, _message(msg) or "cannot open the bytes as a cache")
        self._handle = handle
        self._path = "<bytes>"
        return self

    # -- lifetime ------------------------------------------------------------------------------

    def _release(self, handle: int) -> None:
        # A cache a Symbolicator found stays open in the Symbolicator (until its own close).
        if getattr(self, "_owner", None) is None:
            _lib.ilmap_close(handle)

    def _closed_message(self) -> str:
        return f"cache {self._path} is closed"

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else "open"
        return f"<ilmap.Cache {self._path!r} {state}>"

    @classmethod
    def _borrowed(cls, handle: int, owner: object, label: str) -> "Cache":
        """A cache the C API lends (ilmap_find_module): it lives as long as `owner` is open."""
        self = cls.__new__(cls)
        self._handle = handle
        self._path = label
        self._owner = owner
        return self

    def _h(self) -> int:
        handle = super()._h()
        owner = getattr(self, "_owner", None)
        if owner is not None and owner.closed:
            raise Error(Status.USAGE, f"cache {self._path}: the Symbolicator that found it is closed")
        return handle

    # -- lookups -------------------------------------------------------------------------------

    def lookup(self, token: int, il_offset: int, *, state_machines: bool = True) -> Optional[Location]:
        """The source position of MethodDef `token` (0x06RRRRRR) at `il_offset`, or None.

        None when there is no answer: an unknown method, an offset before the first visible
        sequence point or >= 2**31 (the runtime's -1), a token of another table, or a cache
        file that changed under the mapping (see `changed`).

        CoreCLR prints an async or iterator frame with the kickoff method's token and the IL
        offset of its state machine's MoveNext. With `state_machines` true (the default) the
        answer is the state-machine fallback of SPEC.md 6.4, the one `ilmap lookup`, symbolicate,
        serve and Sentry events apply (ilmap_locate_frame): when the token has no point at the
        offset, its state machine's methods are asked, and the first in token order that answers
        counts when all that answer agree on document, line and column; Location.method is then
        the text CoreCLR prints for that method ("NS.C.M(Int32 n)+MoveNext()" for an iterator).
        """
        h = self._h()
        if not 0 <= token <= 0xFFFFFFFF or il_offset < 0 or il_offset > 0xFFFFFFFF:
            return None
        loc = _native.Location()
        if not state_machines:
            status = _lib.ilmap_locate(h, token, il_offset, ctypes.byref(loc))
            return self._location(loc, token) if status == Status.OK else None
        # The library's rule, not a copy of it here: the binding answers what the CLI answers.
        via = ctypes.c_uint32()
        status = _lib.ilmap_locate_frame(h, token, il_offset, None, 0, ctypes.byref(loc), ctypes.byref(via))
        if status != Status.OK:  # no answer, or the file changed under the cache (see `changed`)
            return None
        return self._location(loc, via.value or token)

    def _location(self, loc: _native.Location, token: int) -> Location:
        return Location(file=_text(loc.file, loc.file_len) or "", line=loc.line, column=loc.column,
                        end_line=loc.end_line, end_column=loc.end_column,
                        language=(loc.language or b"unknown").decode("ascii"), url=_text(loc.url, loc.url_len),
                        il_offset=loc.il_offset, method=self.method_name(token))

    def method_name(self, token: int, flavor: Flavor = Flavor.CORECLR) -> Optional[str]:
        """The name of MethodDef `token` as the runtime of `flavor` prints it in a frame, or None
        (a cache compiled without the PE has no names)."""
        h = self._h()
        if not 0 <= token <= 0xFFFFFFFF:
            return None
        text = ctypes.c_void_p()
        length = ctypes.c_size_t()
        if _lib.ilmap_method_name(h, token, int(flavor), ctypes.byref(text), ctypes.byref(length)) != 1:
            return None
        return _text(text.value, length.value)

    def find_methods(self, name: str) -> List[int]:
        """The MethodDef tokens whose full name ("NS.Outer`1.Inner.M") is `name`, ascending;
        a state-machine method also answers its kickoff method's name. [] without names."""
        h = self._h()
        raw = name.encode("utf-8")
        capacity = 16
        while True:
            tokens = (ctypes.c_uint32 * capacity)()
            total = _lib.ilmap_find_method(h, raw, len(raw), tokens, capacity)
            if total <= capacity:
                return list(tokens[:total])
            capacity = total

    def lines(self, document: str, line: int, column: int = 0, rule: str = "debugger") -> List[LineMatch]:
        """Where a debugger binds a breakpoint at `line` (and `column`, 0 = none) of `document`,
        ordered by token then IL offset; [] when no code binds (SPEC.md 6.2, 6.3).

        `document` is a path of the PDB, the same path with the other separator, or a relative
        path ("Program.cs", "../App/Program.cs"; "./" and "../" resolved) ending document paths
        at a separator, of which the shortest is taken ("Program.cs" names /src/App/Program.cs
        rather than /src/App/Sub/Program.cs). `rule`: "debugger" (the default), the one method
        netcoredbg binds (the innermost method whose code holds the line, at the statement that
        spans it or its next one; a field initializer in every constructor), or "all-methods",
        every method whose code starts on the first line with code at or after `line` (ilmap
        0.2.0's rule, `ilmap lines --all-methods`).
        Raises Error (NOT_FOUND) when no document matches, ValueError for another rule."""
        try:
            code = _LINE_RULES[rule]
        except (KeyError, TypeError):
            raise ValueError(f"rule must be one of {', '.join(map(repr, _LINE_RULES))}, not {rule!r}") from None
        h = self._h()
        raw = document.encode("utf-8")
        msg = ctypes.create_string_buffer(_MSG_SIZE)
        count = ctypes.c_size_t()
        capacity = 16
        while True:
            out = (_native.LineMatch * capacity)()
            status = _lib.ilmap_lines_rule(h, raw, len(raw), line, column, code, out, capacity, ctypes.byref(count),
                                           msg, _MSG_SIZE)
            if status != Status.OK:
                raise Error(status, _message(msg))
            if count.value <= capacity:
                return [LineMatch(token=m.token, il_offset=m.il_offset, document=m.document,
                                  file=_text(m.file, m.file_len) or "", line=m.line, column=m.column,
                                  end_line=m.end_line, end_column=m.end_column) for m in out[:count.value]]
            capacity = count.value

    # -- identity ------------------------------------------------------------------------------

    def _string(self, fn) -> Optional[str]:
        length = ctypes.c_size_t()
        return _text(fn(self._h(), ctypes.byref(length)), length.value)

    @property
    def debug_id(self) -> Optional[str]:
        """"<guid>-<stamp as 8 hex digits>" of the PDB (of a Windows PDB "<guid>-<age>")."""
        return self._string(_lib.ilmap_debug_id)

    @property
    def pdb_key(self) -> Optional[str]:
        """The PDB's symbol-store (SSQP) key."""
        return self._string(_lib.ilmap_pdb_key)

    @property
    def pe_name(self) -> Optional[str]:
        """The PE's file name ("App.dll"), when compiled with the PE known."""
        return self._string(_lib.ilmap_pe_name)

    @property
    def pe_key(self) -> Optional[str]:
        """The PE's symbol-store (SSQP) key."""
        return self._string(_lib.ilmap_pe_key)

    @property
    def code_id(self) -> Optional[str]:
        """The PE's code id (TimeDateStamp, then SizeOfImage)."""
        return self._string(_lib.ilmap_code_id)

    @property
    def assembly_name(self) -> Optional[str]:
        return self._string(_lib.ilmap_assembly_name)

    @property
    def compiler_version(self) -> Optional[str]:
        """What wrote the cache: "ilmap <version>/format <major>.<minor>"."""
        return self._string(_lib.ilmap_compiler_version)

    @property
    def mvid(self) -> Optional[uuid.UUID]:
        """The module's MVID (str() gives the form `ilmap info` prints), or None."""
        out = (ctypes.c_uint8 * 16)()
        if _lib.ilmap_mvid(self._h(), out) != 1:
            return None
        return uuid.UUID(bytes_le=bytes(out))

    @property
    def pdb_id(self) -> Optional[bytes]:
        """The PDB id, 20 bytes (.hex() gives what `ilmap info` prints as pdb_id), or None."""
        out = (ctypes.c_uint8 * 20)()
        if _lib.ilmap_pdb_id(self._h(), out) != 1:
            return None
        return bytes(out)

    # -- documents -----------------------------------------------------------------------------

    @property
    def documents(self) -> List[str]:
        """The document paths, by index (LineMatch.document and embedded_source take the index)."""
        h = self._h()
        out = []
        for i in range(_lib.ilmap_document_count(h)):
            length = ctypes.c_size_t()
            out.append(_text(_lib.ilmap_document_path(h, i, ctypes.byref(length)), length.value) or "")
        return out

    def embedded_source(self, document: Union[int, str]) -> Optional[bytes]:
        """The source bytes the compiler embedded for `document` (an index, or a path of
        `documents`), as embedded (its own encoding, BOM included); None when it has none.
        Raises Error when the embedded frame does not unpack or the cache changed."""
        h = self._h()
        if isinstance(document, str):
            try:
                index = self.documents.index(document)
            except ValueError:
                return None
        else:
            index = document
        if not 0 <= index <= 0xFFFFFFFF:
            return None
        size = ctypes.c_size_t()
        msg = ctypes.create_string_buffer(_MSG_SIZE)
        status = _lib.ilmap_embedded_source(h, index, None, 0, ctypes.byref(size), msg, _MSG_SIZE)
        while True:
            if status == Status.NOT_FOUND:
                return None
            if status != Status.OK:
                raise Error(status, _message(msg))
            capacity = size.value
            buf = ctypes.create_string_buffer(max(capacity, 1))
            status = _lib.ilmap_embedded_source(h, index, buf, capacity, ctypes.byref(size), msg, _MSG_SIZE)
            if status == Status.OK and size.value <= capacity:
                return buf.raw[:size.value]

    # -- state ---------------------------------------------------------------------------------

    def verify(self) -> None:
        """Full check (checksum and structure); raises Error when the cache is damaged."""
        msg = ctypes.create_string_buffer(_MSG_SIZE)
        status = _lib.ilmap_verify(self._h(), msg, _MSG_SIZE)
        if status != Status.OK:
            raise Error(status, _message(msg))

    @property
    def changed(self) -> bool:
        """True once the file changed in a way the cache could not be shielded from: open it again."""
        return _lib.ilmap_changed(self._h()) == 1

    @property
    def file_changed(self) -> bool:
        """True when the path now names another file, or one of another size or times."""
        return _lib.ilmap_file_changed(self._h()) == 1

    @property
    def method_count(self) -> int:
        return _lib.ilmap_method_count(self._h())

    @property
    def point_count(self) -> int:
        return _lib.ilmap_point_count(self._h())

    @property
    def has_names(self) -> bool:
        """True when the cache holds method names (compiled with the PE known)."""
        return _lib.ilmap_method_name_count(self._h()) > 0
