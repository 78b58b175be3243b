"""Tests of the installed ilmap package (run by ../test.sh from outside the source tree, in a venv
where the wheel is installed). Expected values come from outside this package: the .NET runtime's
own frames (corpus/runtime-frames.tsv) and trace text (corpus/traces/cs-frames.il-offsets.txt),
and what the `ilmap` program prints (`info` of the PDB and the PE, `lines`).

Environment (set by test.sh): ILMAP_TEST_DIR holds frames.ilmap (compiled from the corpus PE,
with names), pdb-only.ilmap (from the PDB alone), sources.ilmap (--embed-sources), identity
("key value" lines), lines.tsv and lines-all-methods.tsv (query, then `ilmap lines` output,
without and with --all-methods), source (the embedded file's
path), not-a-cache, pe_path (the corpus PE frames.ilmap was compiled from), points (its
sequence points, as `ilmap info` counts them), lookup-queries.txt and lookup-answers.txt (every
method of frames.ilmap at IL offsets 0..255, "TOKEN OFFSET" a line, and `ilmap lookup`'s answer
to each), symbolicate-columns.txt (`ilmap symbolicate --columns` of the runtime's IL-offset
trace), store (a folder store that `ilmap store add` made of that PE and its PDB);
ILMAP_TEST_CORPUS is the corpus folder; ILMAP_TEST_VENV the venv.
"""

from __future__ import annotations

import csv
import gc
import os
import re
from pathlib import Path

import pytest

import ilmap

DIR = Path(os.environ["ILMAP_TEST_DIR"])
CORPUS = Path(os.environ["ILMAP_TEST_CORPUS"])
VENV = Path(os.environ["ILMAP_TEST_VENV"]).resolve()


def identity() -> dict:
    return dict(line.split(" ", 1) for line in (DIR / "identity").read_text().splitlines())


@pytest.fixture
def cache():
    with ilmap.Cache(DIR / "frames.ilmap") as c:
        yield c


def test_installed_package_is_imported():
    assert Path(ilmap.__file__).resolve().is_relative_to(VENV), ilmap.__file__
    assert Path(ilmap.library_path).resolve().is_relative_to(VENV), ilmap.library_path
    assert Path(ilmap.library_path).name == "libilmap.so.1"
    assert ilmap._native.library_candidates()[0] == ilmap.library_path  # the bundled copy first
    assert ilmap.__version__ == identity()["version"]


def test_every_runtime_frame(cache):
    rows = list(csv.DictReader((CORPUS / "runtime-frames.tsv").open(newline=""), delimiter="\t"))
    rows = [r for r in rows if not r["#scenario"].startswith("#")]
    assert len(rows) > 40
    for r in rows:
        loc = cache.lookup(int(r["token"], 16), int(r["il_offset"]))
        where = f"{r['#scenario']} frame {r['frame']}"
        assert loc is not None, where
        assert (loc.file, loc.line, loc.column) == (r["file"], int(r["line"]), int(r["column"])), where
        assert loc.language == "C#"
        assert loc.end_line >= loc.line
        assert loc.il_offset <= int(r["il_offset"])
        assert loc.method is not None


def test_runtime_trace(cache):
    """The runtime's trace printed without the PDB ('at NAME in DLL:token T+IL') and, line for
    line, the same run printed with the PDB ('at NAME in FILE:line N'): each frame's lookup
    gives the runtime's file and line, and Location.method its NAME, async and iterator frames
    (kickoff token, state machine's offset) included."""
    traces = CORPUS / "traces"
    without = (traces / "cs-frames.il-offsets.txt").read_text(encoding="utf-8").splitlines()
    with_pdb = (traces / "cs-frames.lines.txt").read_text(encoding="utf-8").splitlines()
    assert len(without) == len(with_pdb)
    frame = re.compile(r"^\s+at (.*) in Ilmap\.Corpus\.Frames\.dll:token (0x[0-9a-f]+)\+(0x[0-9a-f]+)$")
    seen = 0
    for line, printed in zip(without, with_pdb):
        m = frame.match(line)
        if not m:
            continue
        where = re.match(r"^\s+at (.*) in (.*):line (\d+)$", printed)
        assert where and where[1] == m[1], (line, printed)
        loc = cache.lookup(int(m[2], 16), int(m[3], 16))
        assert loc is not None, line
        assert (loc.method, loc.file, loc.line) == (m[1], where[2], int(where[3])), line
        seen += 1
    assert seen > 40
    # Without the state-machine step, the C API's own answer: none for a kickoff token.
    assert cache.lookup(0x0600000E, 0x69, state_machines=False) is None


def test_lookup_is_the_cli_rule(cache):
    """Cache.lookup answers every method at every IL offset 0..255 as `ilmap lookup` does: one
    state-machine fallback (SPEC.md 6.4, ilmap_locate_frame), not a rule of the binding's own
    (before, 946 of these 16384 answers differed, e.g. 0x0600003b+14, which the CLI leaves none)."""
    queries = (DIR / "lookup-queries.txt").read_text().splitlines()
    answers = (DIR / "lookup-answers.txt").read_text(encoding="utf-8").splitlines()
    assert len(queries) == len(answers) > 10000
    differ = []
    for query, want in zip(queries, answers):
        token, il = query.split()
        loc = cache.lookup(int(token, 16), int(il))
        got = "%s:%d:%d" % (loc.file, loc.line, loc.column) if loc else "??:0:0"
        if got != want:
            differ.append((query, got, want))
    assert not differ, differ[:5]


def test_mono_flavour_and_find_methods(cache):
    token = cache.find_methods("Ilmap.Corpus.Frames.Scenarios.Fail")
    assert token == [0x0600000A]
    assert cache.method_name(0x0600000A, ilmap.Flavor.MONO) == "Ilmap.Corpus.Frames.Scenarios.Fail (System.String why)"
    assert cache.find_methods("No.Such.Method") == []
    assert cache.has_names


def test_identity_equals_ilmap_info(cache):
    want = identity()
    assert cache.debug_id == want["debug_id"]
    assert cache.pdb_key == want["pdb_key"]
    assert cache.pe_name == want["pe_name"]
    assert cache.pe_key == want["pe_key"]
    assert cache.code_id == want["code_id"]
    assert str(cache.mvid) == want["mvid"]
    assert cache.pdb_id.hex() == want["pdb_id"]
    assert cache.assembly_name == want["assembly_name"]
    assert cache.compiler_version.startswith(f"ilmap {want['version']}/format ")


def test_pdb_only_cache_has_no_pe_identity_or_names():
    with ilmap.Cache(DIR / "pdb-only.ilmap") as c:
        assert c.debug_id == identity()["debug_id"]
        assert c.pe_name is None and c.mvid is None and c.code_id is None
        assert c.method_name(0x0600000A) is None
        assert c.find_methods("Ilmap.Corpus.Frames.Scenarios.Fail") == []
        loc = c.lookup(0x0600000A, 7)
        assert loc is not None and loc.method is None


def test_misses_give_none(cache):
    assert cache.lookup(0x06000000 | (cache.method_count + 1), 0) is None
    assert cache.lookup(0x06000000, 7) is None
    assert cache.lookup(0x0200000A, 7) is None  # a TypeDef token
    assert cache.lookup(0x0600000A, 0xFFFFFFFF) is None  # the runtime's -1
    assert cache.lookup(0x0600000A, -1) is None
    assert cache.lookup(1 << 40, 0) is None
    assert cache.method_name(0x0200000A) is None


def test_not_a_cache_raises_with_message():
    with pytest.raises(ilmap.Error) as e:
        ilmap.Cache(DIR / "not-a-cache")
    assert e.value.code != ilmap.Status.OK
    assert e.value.message
    with pytest.raises(ilmap.Error) as e:
        ilmap.Cache(DIR / "no-such-file")
    assert e.value.code == ilmap.Status.IO and e.value.message
    with pytest.raises(ilmap.Error):
        ilmap.Cache.from_bytes(b"not a cache")


def test_closed_cache_raises():
    c = ilmap.Cache(DIR / "frames.ilmap")
    c.close()
    c.close()
    assert c.closed
    for use in (lambda: c.lookup(0x0600000A, 7), lambda: c.method_name(0x0600000A), lambda: c.debug_id,
                lambda: c.documents, lambda: c.lines("Scenarios.cs", 37), lambda: c.verify(),
                lambda: c.embedded_source(0), lambda: c.find_methods("x"), lambda: c.mvid):
        with pytest.raises(ilmap.Error) as e:
            use()
        assert e.value.code == ilmap.Status.USAGE
    with ilmap.Cache(DIR / "frames.ilmap") as d:
        pass
    with pytest.raises(ilmap.Error):
        d.lookup(0x0600000A, 7)
    del c, d
    gc.collect()


def printed_lines(name: str) -> dict:
    """lines.tsv or lines-all-methods.tsv: 'FILE:LINE' then the lines `ilmap lines` printed
    ('TOKEN IL PATH L:C-EL:EC'), as {query: [printed lines]}."""
    queries = {}
    for row in (DIR / name).read_text(encoding="utf-8").splitlines():
        query, _, printed = row.partition("\t")
        queries.setdefault(query, [])
        if printed:
            queries[query].append(printed)
    assert len(queries) >= 3 and any(len(v) > 0 for v in queries.values())
    return queries


@pytest.mark.parametrize("rule, name, kwargs", [("debugger", "lines.tsv", {}),
                                                ("debugger", "lines.tsv", {"rule": "debugger"}),
                                                ("all-methods", "lines-all-methods.tsv", {"rule": "all-methods"})])
def test_lines_equal_ilmap_lines(cache, rule, name, kwargs):
    for query, want in printed_lines(name).items():
        document, line = query.rsplit(":", 1)
        got = [f"0x{m.token:08x} {m.il_offset} {m.file} {m.line}:{m.column}-{m.end_line}:{m.end_column}"
               for m in cache.lines(document, int(line), **kwargs)]
        assert got == want, (rule, query)
        for m in cache.lines(document, int(line), **kwargs):
            assert cache.documents[m.document] == m.file
            assert cache.lookup(m.token, m.il_offset).line == m.line


def test_lines_rules_differ_and_relative_paths(cache):
    """The two rules differ somewhere on the queries; relative paths ('./', '../' resolved) name
    the document its file name names; a part of a file name or an absolute path does not."""
    debugger, all_methods = printed_lines("lines.tsv"), printed_lines("lines-all-methods.tsv")
    assert debugger.keys() == all_methods.keys()
    assert any(debugger[q] != all_methods[q] for q in debugger)
    want = cache.lines("/_/Frames/Scenarios.cs", 37)
    assert want
    for query in ("Scenarios.cs", "./Scenarios.cs", "../Scenarios.cs", "Frames/x/../Scenarios.cs",
                  "\\_\\Frames\\Scenarios.cs"):
        assert cache.lines(query, 37) == want, query
    for query in ("narios.cs", "/Scenarios.cs", "../wrong_folder/./Scenarios.cs", "Frames/"):
        with pytest.raises(ilmap.Error) as e:
            cache.lines(query, 37)
        assert e.value.code == ilmap.Status.NOT_FOUND, query
    for rule in ("all_methods", "", None, 1):
        with pytest.raises(ValueError):
            cache.lines("Scenarios.cs", 37, rule=rule)


def test_lines_unknown_document_raises(cache):
    with pytest.raises(ilmap.Error) as e:
        cache.lines("NoSuchFile.cs", 1)
    assert e.value.code == ilmap.Status.NOT_FOUND and e.value.message


def test_documents_and_embedded_source(cache):
    assert "/_/Frames/Scenarios.cs" in cache.documents
    assert cache.embedded_source(0) is None
    assert cache.embedded_source(10**6) is None
    source = Path((DIR / "source").read_text().strip()).read_bytes()
    with ilmap.Cache(DIR / "sources.ilmap") as c:
        found = [d for d in c.documents if d.endswith("/Inventory.cs")]
        assert len(found) == 1
        assert c.embedded_source(found[0]) == source
        assert c.embedded_source(c.documents.index(found[0])) == source


def test_verify_and_read_mode(cache):
    cache.verify()
    assert not cache.changed and not cache.file_changed
    with ilmap.Cache(DIR / "frames.ilmap", read=True) as c:
        assert c.lookup(0x0600000A, 7) == cache.lookup(0x0600000A, 7)
    data = (DIR / "frames.ilmap").read_bytes()
    with ilmap.Cache.from_bytes(data) as c:
        c.verify()
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0xFF
    try:
        c = ilmap.Cache.from_bytes(bytes(damaged))
    except ilmap.Error:
        return  # refused at open: also a correct answer
    with c, pytest.raises(ilmap.Error) as e:
        c.verify()
    assert e.value.message


# A fresh interpreter (its signal state untouched by other tests) opens the cache with read=True,
# then mapped, and prints, after each, whether the process catches SIGRTMIN+6 and how many leases
# it holds. Read from the kernel (/proc/self/status SigCgt, /proc/locks): signal.getsignal only
# knows handlers installed from Python, never one a library installs.
_SIGNAL_PROBE = """
import os, signal, sys
import ilmap

def state():
    sig = signal.SIGRTMIN + 6
    status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
    caught = int(status["SigCgt"].strip(), 16) >> (sig - 1) & 1
    pid = str(os.getpid())
    leases = sum(1 for l in open("/proc/locks") if l.split()[1:2] == ["LEASE"] and l.split()[4] == pid)
    return f"caught={caught} leases={leases}"

print("start", state())
with ilmap.Cache(sys.argv[1], read=True) as c:
    assert c.lookup(0x0600000A, 7) is not None
    print("read", state())
    with ilmap.Cache(sys.argv[1]) as m:
        assert m.lookup(0x0600000A, 7) == c.lookup(0x0600000A, 7)
        print("mapped", state())
"""


def test_read_mode_installs_no_signal_handler_and_takes_no_lease():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _SIGNAL_PROBE, str(DIR / "frames.ilmap")],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["start caught=0 leases=0", "read caught=0 leases=0", "mapped caught=1 leases=1"], out


# -- compile and symbolicate in process (ilmap.compile, ilmap.Symbolicator) ------------------------


def pe_path() -> Path:
    return Path((DIR / "pe_path").read_text().strip())


def test_compile_equals_ilmap_compile(tmp_path):
    out = tmp_path / "sub" / "frames.ilmap"
    r = ilmap.compile(pe_path(), out)
    assert out.read_bytes() == (DIR / "frames.ilmap").read_bytes()
    assert (r.up_to_date, r.points, r.bytes) == (False, int((DIR / "points").read_text()), out.stat().st_size)
    assert r.warnings == []
    again = ilmap.compile(pe_path(), out)
    assert (again.up_to_date, again.points, again.bytes) == (True, 0, 0)
    assert ilmap.compile(pe_path(), out, force=True).up_to_date is False


def test_compile_errors_carry_the_programs_codes(tmp_path):
    with pytest.raises(ilmap.Error) as e:
        ilmap.compile(tmp_path / "Missing.dll", tmp_path / "m.ilmap")
    assert e.value.code == ilmap.Status.IO and "Missing.dll" in e.value.message
    alone = tmp_path / pe_path().name
    alone.write_bytes(pe_path().read_bytes())  # the PE without its PDB
    with pytest.raises(ilmap.Error) as e:
        ilmap.compile(alone, tmp_path / "a.ilmap")
    assert e.value.code == ilmap.Status.NOT_FOUND
    with pytest.raises(ilmap.Error) as e:
        ilmap.compile(alone, alone)
    assert e.value.code in (ilmap.Status.NOT_FOUND, ilmap.Status.USAGE)
    assert not (tmp_path / "m.ilmap").exists() and not (tmp_path / "a.ilmap").exists()


def runtime_traces():
    traces = CORPUS / "traces"
    return ((traces / "cs-frames.il-offsets.txt").read_text(encoding="utf-8"),
            (traces / "cs-frames.lines.txt").read_text(encoding="utf-8"))


def test_symbolicator_gives_the_runtimes_own_trace(tmp_path):
    """The runtime's trace with IL offsets, symbolicated, is the trace the runtime printed with
    the PDB, but for the recording program's own frames (not searched: left as they were)."""
    il_text, lines_text = runtime_traces()
    want = "".join(il if " in Ilmap.Trace.exe:token " in il else ln
                   for il, ln in zip(il_text.splitlines(keepends=True), lines_text.splitlines(keepends=True)))
    frames = il_text.count(":token 0x")
    own = il_text.count(" in Ilmap.Trace.exe:token ")
    with ilmap.Symbolicator([pe_path().parent], cache_dir=tmp_path / "cache") as s:
        assert s.symbolicate(il_text) == want
        assert (s.stats.frames, s.stats.resolved) == (frames, frames - own)
        assert s.symbolicate(il_text.encode()) == want.encode()
        assert s.symbolicate("") == ""


def test_symbolicator_columns_equals_ilmap_symbolicate(tmp_path):
    il_text, _ = runtime_traces()
    with ilmap.Symbolicator([pe_path().parent], cache_dir=tmp_path / "cache", columns=True) as s:
        got = s.symbolicate(il_text)
    assert got == (DIR / "symbolicate-columns.txt").read_text(encoding="utf-8")
    assert re.search(r":line \d+:\d+$", got, re.M)


def test_find_module_by_each_identity(tmp_path):
    row = next(r for r in csv.DictReader((CORPUS / "runtime-frames.tsv").open(newline=""), delimiter="\t")
               if r["assembly"] == "Ilmap.Corpus.Frames" and r["line"])
    ident = identity()
    with ilmap.Symbolicator([pe_path().parent], cache_dir=tmp_path / "cache") as s:
        for how in ({"file_name": pe_path().name}, {"mvid": ident["mvid"]}, {"debug_id": ident["debug_id"]}):
            cache = s.find_module(**how)
            loc = cache.lookup(int(row["token"], 16), int(row["il_offset"]))
            assert (loc.file, loc.line, loc.column) == (row["file"], int(row["line"]), int(row["column"])), how
            cache.close()  # leaves the module to the Symbolicator: found again, it works
            assert s.find_module(**how).lookup(int(row["token"], 16), int(row["il_offset"])) == loc
        with pytest.raises(ilmap.Error) as e:
            s.find_module(file_name="NoSuchModule.dll")
        assert e.value.code == ilmap.Status.NOT_FOUND and "NoSuchModule.dll" in e.value.message
        with pytest.raises(ilmap.Error) as e:
            s.find_module(mvid="not-a-guid")
        assert e.value.code == ilmap.Status.USAGE
        with pytest.raises(ilmap.Error):
            s.find_module()
        kept = s.find_module(file_name=pe_path().name)
    with pytest.raises(ilmap.Error) as e:
        kept.lookup(int(row["token"], 16), int(row["il_offset"]))
    assert e.value.code == ilmap.Status.USAGE and "closed" in e.value.message


def test_symbolicator_refuses_a_missing_search_path(tmp_path):
    with pytest.raises(ilmap.Error) as e:
        ilmap.Symbolicator([tmp_path / "nowhere"])
    assert e.value.code == ilmap.Status.NOT_FOUND
    with pytest.raises(ilmap.Error) as e:
        ilmap.Symbolicator(symbol_path="srv*ftp://example.invalid/x")
    assert e.value.code == ilmap.Status.USAGE


def test_fetch_from_a_store(tmp_path):
    """A folder symbol path: the store's cache of the PE's PDB, and the PDB itself; a module the
    store lacks is NOT_FOUND; a bad symbol path is USAGE."""
    store = DIR / "store"
    got = Path(ilmap.fetch(pe_path(), str(store)))
    assert got.suffix == ".ilmap" and got.is_relative_to(store)
    with ilmap.Cache(got) as c:
        assert c.debug_id == identity()["debug_id"]
    pdb = Path(ilmap.fetch(pe_path(), str(store), cache=False))
    assert pdb.read_bytes() == pe_path().with_suffix(".pdb").read_bytes()
    with pytest.raises(ilmap.Error) as e:
        ilmap.fetch(CORPUS / "out" / "cs-manymethods" / "Ilmap.Corpus.ManyMethods.dll", str(store))
    assert e.value.code == ilmap.Status.NOT_FOUND
    with pytest.raises(ilmap.Error) as e:
        ilmap.fetch(pe_path(), "srv*ftp://example.invalid/x")
    assert e.value.code == ilmap.Status.USAGE
