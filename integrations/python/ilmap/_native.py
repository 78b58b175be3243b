"""ctypes declarations of the C API (include/ilmap/ilmap.h) and the loading of libilmap.so.1.

The library is looked for, in order: the copy bundled in the package (ilmap/_lib/libilmap.so.1,
put there by build-wheel.sh), the path in the ILMAP_LIBRARY environment variable, then the
system's (ctypes.util.find_library("ilmap"), else the loader's search for "libilmap.so.1").
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import Optional

_SONAME = "libilmap.so.1"


class Location(ctypes.Structure):
    """struct ilmap_location."""

    _fields_ = [
        ("file", ctypes.c_void_p),
        ("file_len", ctypes.c_size_t),
        ("url", ctypes.c_void_p),
        ("url_len", ctypes.c_size_t),
        ("language", ctypes.c_char_p),
        ("line", ctypes.c_uint32),
        ("column", ctypes.c_uint32),
        ("end_line", ctypes.c_uint32),
        ("end_column", ctypes.c_uint32),
        ("il_offset", ctypes.c_uint32),
    ]


class LineMatch(ctypes.Structure):
    """struct ilmap_line_match."""

    _fields_ = [
        ("token", ctypes.c_uint32),
        ("il_offset", ctypes.c_uint32),
        ("document", ctypes.c_uint32),
        ("line", ctypes.c_uint32),
        ("column", ctypes.c_uint32),
        ("end_line", ctypes.c_uint32),
        ("end_column", ctypes.c_uint32),
        ("file", ctypes.c_void_p),
        ("file_len", ctypes.c_size_t),
    ]


class CompileOptions(ctypes.Structure):
    """struct ilmap_compile_options."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("pdb", ctypes.c_char_p),
        ("pe", ctypes.c_char_p),
        ("symbol_path", ctypes.c_char_p),
        ("embed_sources", ctypes.c_int),
        ("force", ctypes.c_int),
    ]


class CompileResult(ctypes.Structure):
    """struct ilmap_compile_result."""

    _fields_ = [("up_to_date", ctypes.c_int), ("points", ctypes.c_uint64), ("bytes", ctypes.c_uint64)]


class SymbolicatorOptions(ctypes.Structure):
    """struct ilmap_symbolicator_options."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("search", ctypes.POINTER(ctypes.c_char_p)),
        ("search_count", ctypes.c_size_t),
        ("cache_dir", ctypes.c_char_p),
        ("symbol_path", ctypes.c_char_p),
        ("flags", ctypes.c_uint),
        ("download_timeout_s", ctypes.c_long),
        ("msym_dirs", ctypes.POINTER(ctypes.c_char_p)),
        ("msym_dir_count", ctypes.c_size_t),
    ]


class SymbolicateStats(ctypes.Structure):
    """struct ilmap_symbolicate_stats."""

    _fields_ = [("lines", ctypes.c_uint64), ("frames", ctypes.c_uint64), ("resolved", ctypes.c_uint64),
                ("with_lines", ctypes.c_uint64)]


def library_candidates() -> list[str]:
    """The paths or names tried, in order."""
    out = []
    bundled = Path(__file__).resolve().parent / "_lib" / _SONAME
    if bundled.is_file():
        out.append(str(bundled))
    env = os.environ.get("ILMAP_LIBRARY")
    if env:
        out.append(env)
    found = ctypes.util.find_library("ilmap")
    if found:
        out.append(found)
    out.append(_SONAME)
    return out


def _load() -> ctypes.CDLL:
    errors = []
    for candidate in library_candidates():
        try:
            return ctypes.CDLL(candidate)
        except OSError as e:
            errors.append(f"{candidate}: {e}")
    raise ImportError("ilmap: cannot load libilmap.so.1 (" + "; ".join(errors) + "); "
                      "set ILMAP_LIBRARY to its path")


lib = _load()
library_path: Optional[str] = getattr(lib, "_name", None)

_P = ctypes.c_void_p
_SZ = ctypes.c_size_t
_U32 = ctypes.c_uint32
_INT = ctypes.c_int
_CHARS = ctypes.c_char_p  # message buffers (created with ctypes.create_string_buffer)
_PSZ = ctypes.POINTER(ctypes.c_size_t)
_PINT = ctypes.POINTER(ctypes.c_int)


def _fn(name: str, restype, *argtypes) -> None:
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


_fn("ilmap_open", _P, ctypes.c_char_p, _PINT, _CHARS, _SZ)
_fn("ilmap_open_ex", _P, ctypes.c_char_p, ctypes.c_uint, _PINT, _CHARS, _SZ)
_fn("ilmap_open_bytes", _P, ctypes.c_char_p, _SZ, _PINT, _CHARS, _SZ)
_fn("ilmap_close", None, _P)
_fn("ilmap_changed", _INT, _P)
_fn("ilmap_file_changed", _INT, _P)
_fn("ilmap_lookup", _INT, _P, _U32, _U32, ctypes.POINTER(Location))
_fn("ilmap_locate", _INT, _P, _U32, _U32, ctypes.POINTER(Location))
_fn("ilmap_locate_row", _INT, _P, _U32, _U32, ctypes.POINTER(Location))
_fn("ilmap_locate_frame", _INT, _P, _U32, _U32, ctypes.c_char_p, _SZ, ctypes.POINTER(Location),
    ctypes.POINTER(_U32))
_fn("ilmap_verify", _INT, _P, _CHARS, _SZ)
_fn("ilmap_method_name", _INT, _P, _U32, _INT, ctypes.POINTER(_P), _PSZ)
_fn("ilmap_find_method", _SZ, _P, ctypes.c_char_p, _SZ, ctypes.POINTER(_U32), _SZ)
_fn("ilmap_method_name_count", _U32, _P)
_fn("ilmap_mvid", _INT, _P, ctypes.POINTER(ctypes.c_uint8))
_fn("ilmap_pdb_id", _INT, _P, ctypes.POINTER(ctypes.c_uint8))
for _name in ("ilmap_assembly_name", "ilmap_debug_id", "ilmap_pdb_key", "ilmap_pe_name", "ilmap_pe_key",
              "ilmap_code_id", "ilmap_compiler_version"):
    _fn(_name, _P, _P, _PSZ)
_fn("ilmap_document_count", _U32, _P)
_fn("ilmap_document_path", _P, _P, _U32, _PSZ)
_fn("ilmap_embedded_source", _INT, _P, _U32, _P, _SZ, _PSZ, _CHARS, _SZ)
_fn("ilmap_lines", _INT, _P, ctypes.c_char_p, _SZ, _U32, _U32, ctypes.POINTER(LineMatch), _SZ, _PSZ, _CHARS,
    _SZ)
_fn("ilmap_lines_rule", _INT, _P, ctypes.c_char_p, _SZ, _U32, _U32, _INT, ctypes.POINTER(LineMatch), _SZ, _PSZ,
    _CHARS, _SZ)
_fn("ilmap_method_count", _U32, _P)
_fn("ilmap_point_count", ctypes.c_uint64, _P)
_fn("ilmap_compile", _INT, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(CompileOptions),
    ctypes.POINTER(CompileResult), _CHARS, _SZ)
_fn("ilmap_symbolicator_open", _P, ctypes.POINTER(SymbolicatorOptions), _PINT, _CHARS, _SZ)
_fn("ilmap_symbolicator_close", None, _P)
_fn("ilmap_symbolicate", _INT, _P, ctypes.c_char_p, _SZ, ctypes.POINTER(_P), _PSZ, ctypes.POINTER(SymbolicateStats))
_fn("ilmap_free", None, _P)
_fn("ilmap_find_module", _INT, _P, _INT, ctypes.c_char_p, _SZ, ctypes.c_char_p, ctypes.POINTER(_P), _CHARS, _SZ)
_fn("ilmap_fetch", _INT, ctypes.c_char_p, ctypes.c_char_p, _INT, ctypes.c_long, _CHARS, _SZ, _PSZ, _CHARS, _SZ)
