// ilmap correctness oracle: answers the questions ilmap answers, using only
// System.Reflection.Metadata (SRM), so ilmap's output can be compared with it.
// See README.md for the command-line interface.

using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.IO.Compression;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.InteropServices;
using System.Text;

namespace Ilmap.Oracle;

/// <summary>Bad input: message to stderr, exit code 2.</summary>
sealed class BadInputException(string message) : Exception(message);

/// <summary>Usage error: message to stderr, exit code 1.</summary>
sealed class UsageException(string message) : Exception(message);

/// <summary>An opened Portable PDB, plus the PE it came from when INPUT was a PE.</summary>
sealed class OpenedInput : IDisposable
{
    public required MetadataReaderProvider Provider { get; init; }
    public required MetadataReader Reader { get; init; }
    public PEReader? PE { get; init; }
    public string? PdbSource { get; init; } // "sibling" | "embedded" | null for a bare .pdb
    public string? PdbPath { get; init; }

    public void Dispose()
    {
        Provider.Dispose();
        PE?.Dispose();
    }

    /// <summary>A copy of the PDB's bytes (the whole metadata image).</summary>
    public unsafe byte[] CopyPdbBytes()
    {
        var bytes = new byte[Reader.MetadataLength];
        Marshal.Copy((IntPtr)Reader.MetadataPointer, bytes, 0, bytes.Length);
        return bytes;
    }
}

static class Program
{
    static readonly Guid EmbeddedSourceKind = new("0e8a571b-6926-466e-b4ad-8ab04611f5fe");
    static readonly Guid SourceLinkKind = new("cc110556-a091-4d38-9fec-25ab9a351a6a");
    const int HiddenLine = 0xfeefee;
    static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    const string Usage =
        "usage: Oracle <command> INPUT [options]\n" +
        "  listing INPUT                              canonical sequence-point listing\n" +
        "  documents INPUT [--referenced]             Document table, one row a line (--referenced:\n" +
        "                                             only documents some sequence point refers to)\n" +
        "  lookup INPUT                               stdin: '<token|row> <il>' per line; runtime rule\n" +
        "  info INPUT                                 identity and table row counts (key=value)\n" +
        "  decode-all INPUT [--repeat N] [--warmup-ms MS]\n" +
        "                                             SRM full-decode baseline timing, in process: decode\n" +
        "                                             for >= MS ms and >= 3 calls (default 3000; 0: no\n" +
        "                                             warm-up), then time N decodes (default 10)\n" +
        "  decode-all INPUT --once                    open and decode every point once, no timing\n" +
        "                                             (the SRM program for whole-process timing)\n" +
        "  lookup-bench INPUT --queries FILE [--repeat N]  SRM per-lookup baseline timing\n" +
        "  lines INPUT                                every document x line: 'PATH:LINE', its breakpoint\n" +
        "                                             bindings (SPEC.md 6.2, no column), an empty line\n" +
        "INPUT: a Portable PDB, or a .dll/.exe (sibling .pdb matched by id, else embedded PDB).\n" +
        "exit codes: 0 ok, 1 usage, 2 bad input";

    static int Main(string[] args)
    {
        try
        {
            return Run(args);
        }
        catch (UsageException e)
        {
            Console.Error.WriteLine($"oracle: {e.Message}");
            Console.Error.WriteLine(Usage);
            return 1;
        }
        catch (Exception e) when (e is BadInputException or BadImageFormatException or InvalidOperationException
                                     or IOException or UnauthorizedAccessException or InvalidDataException
                                     or ArgumentException or OverflowException or FormatException
                                     or NotSupportedException)
        {
            string msg = e.Message.ReplaceLineEndings(" ");
            Console.Error.WriteLine(e is BadInputException ? $"oracle: {msg}" : $"oracle: bad input: {e.GetType().Name}: {msg}");
            return 2;
        }
    }

    static int Run(string[] args)
    {
        if (args.Length < 2)
            throw new UsageException(args.Length == 0 ? "missing command" : "missing INPUT");
        string cmd = args[0];
        string input = args[1];
        var opts = ParseOptions(args.AsSpan(2), cmd);

        switch (cmd)
        {
            case "listing":
            case "documents":
            case "lookup":
            case "info":
            case "decode-all":
            case "lookup-bench":
            case "lines":
                break;
            default:
                throw new UsageException($"unknown command '{cmd}'");
        }
        if (cmd == "lookup-bench" && !opts.ContainsKey("--queries"))
            throw new UsageException("lookup-bench needs --queries FILE");

        int repeat = 10;
        if (opts.TryGetValue("--repeat", out var rs))
        {
            if (!int.TryParse(rs, NumberStyles.None, Inv, out repeat) || repeat < 1)
                throw new UsageException($"--repeat needs a positive integer, got '{rs}'");
        }
        int warmupMs = 3000;
        if (opts.TryGetValue("--warmup-ms", out var ws))
        {
            if (!int.TryParse(ws, NumberStyles.None, Inv, out warmupMs))
                throw new UsageException($"--warmup-ms needs a non-negative integer, got '{ws}'");
        }
        bool once = opts.ContainsKey("--once");
        if (once && (opts.ContainsKey("--repeat") || opts.ContainsKey("--warmup-ms")))
            throw new UsageException("--once takes neither --repeat nor --warmup-ms");

        using var opened = Open(input);
        using var stdout = Console.OpenStandardOutput();
        // lookup streams its answers (buffered); every other command builds its whole output in memory
        // first, so bad input produces an error and no partial output.
        var sink = cmd == "lookup" ? (Stream)new BufferedStream(stdout, 1 << 16) : new MemoryStream(1 << 16);
        using (var w = new StreamWriter(sink, new UTF8Encoding(false), 1 << 16, leaveOpen: true) { NewLine = "\n" })
        {
            switch (cmd)
            {
                case "listing": Listing(opened.Reader, w); break;
                case "documents": Documents(opened.Reader, opts.ContainsKey("--referenced"), w); break;
                case "lookup": Lookup(opened.Reader, Console.In, w); break;
                case "info": Info(opened, w); break;
                case "decode-all":
                    if (once)
                        DecodeAllOnce(opened.Reader, w);
                    else
                        DecodeAll(opened.CopyPdbBytes(), repeat, warmupMs, w);
                    break;
                case "lookup-bench": LookupBench(opened.Reader, opts["--queries"], repeat, w); break;
                case "lines": Lines(opened.Reader, w); break;
            }
        }
        if (sink is MemoryStream ms)
            stdout.Write(ms.GetBuffer(), 0, (int)ms.Length);
        else
            sink.Flush();
        return 0;
    }

    static Dictionary<string, string> ParseOptions(ReadOnlySpan<string> rest, string cmd)
    {
        var opts = new Dictionary<string, string>();
        for (int i = 0; i < rest.Length; i++)
        {
            string a = rest[i];
            if ((a == "--referenced" && cmd == "documents") || (a == "--once" && cmd == "decode-all"))
            {
                opts[a] = "";
                continue;
            }
            bool known = (a == "--repeat" && (cmd == "decode-all" || cmd == "lookup-bench"))
                      || (a == "--warmup-ms" && cmd == "decode-all")
                      || (a == "--queries" && cmd == "lookup-bench");
            if (!known)
                throw new UsageException($"unexpected argument '{a}' for '{cmd}'");
            if (i + 1 >= rest.Length)
                throw new UsageException($"{a} needs a value");
            opts[a] = rest[++i];
        }
        return opts;
    }

    // ---------------------------------------------------------------- opening

    static OpenedInput Open(string path)
    {
        if (!File.Exists(path))
            throw new BadInputException($"{path}: no such file");
        byte[] head = new byte[4];
        int n;
        using (var fs = File.OpenRead(path))
            n = fs.ReadAtLeast(head, 4, throwOnEndOfStream: false);
        if (n >= 4 && head[0] == (byte)'B' && head[1] == (byte)'S' && head[2] == (byte)'J' && head[3] == (byte)'B')
        {
            var bytes = File.ReadAllBytes(path);
            var provider = MetadataReaderProvider.FromPortablePdbImage(ImmutableCollectionsMarshal.AsImmutableArray(bytes));
            var reader = provider.GetMetadataReader();
            if (reader.DebugMetadataHeader is null)
            {
                provider.Dispose();
                throw new BadInputException($"{path}: metadata has no #Pdb stream (not a Portable PDB)");
            }
            return new OpenedInput { Provider = provider, Reader = reader, PdbPath = path };
        }
        if (n >= 2 && head[0] == (byte)'M' && head[1] == (byte)'Z')
        {
            var pe = new PEReader(File.ReadAllBytes(path) is var b ? ImmutableCollectionsMarshal.AsImmutableArray(b) : default);
            try
            {
                if (!pe.TryOpenAssociatedPortablePdb(path,
                        p => File.Exists(p) ? File.OpenRead(p) : null,
                        out var provider, out var pdbPath) || provider is null)
                    throw new BadInputException($"{path}: no associated Portable PDB (no matching sibling .pdb, no embedded Portable PDB)");
                var reader = provider.GetMetadataReader();
                return new OpenedInput
                {
                    Provider = provider, Reader = reader, PE = pe,
                    PdbSource = pdbPath is null ? "embedded" : "sibling", PdbPath = pdbPath,
                };
            }
            catch
            {
                pe.Dispose();
                throw;
            }
        }
        if (n >= 4 && head[0] == (byte)'M' && head[1] == (byte)'i' && head[2] == (byte)'c' && head[3] == (byte)'r')
            throw new BadInputException($"{path}: a Windows (MSF) PDB, not a Portable PDB");
        throw new BadInputException($"{path}: neither a Portable PDB (BSJB) nor a PE file (MZ)");
    }

    // ---------------------------------------------------------------- helpers

    static string DocName(MetadataReader r, DocumentHandle h, Dictionary<int, string> cache)
    {
        int rid = MetadataTokens.GetRowNumber(h);
        if (!cache.TryGetValue(rid, out var s))
        {
            s = r.GetString(r.GetDocument(h).Name);
            cache[rid] = s;
        }
        return s;
    }

    static string Hex(ReadOnlySpan<byte> b) => Convert.ToHexStringLower(b);

    /// <summary>Byte length of the decoded embedded source, or -1 when the document has none.</summary>
    static long EmbeddedSourceLength(MetadataReader r, DocumentHandle doc)
    {
        foreach (var h in r.GetCustomDebugInformation(doc))
        {
            var cdi = r.GetCustomDebugInformation(h);
            if (r.GetGuid(cdi.Kind) != EmbeddedSourceKind)
                continue;
            var blob = r.GetBlobBytes(cdi.Value);
            if (blob.Length < 4)
                throw new BadInputException($"document {MetadataTokens.GetRowNumber(doc)}: EmbeddedSource blob shorter than 4 bytes");
            int format = BitConverter.ToInt32(blob, 0);
            if (format == 0)
                return blob.Length - 4;
            if (format < 0)
                throw new BadInputException($"document {MetadataTokens.GetRowNumber(doc)}: EmbeddedSource format {format} is reserved");
            using var ds = new DeflateStream(new MemoryStream(blob, 4, blob.Length - 4), CompressionMode.Decompress);
            var outBuf = new byte[format];
            int got = ds.ReadAtLeast(outBuf, format, throwOnEndOfStream: false);
            if (got != format || ds.ReadByte() != -1)
                throw new BadInputException($"document {MetadataTokens.GetRowNumber(doc)}: EmbeddedSource inflates to a size other than {format}");
            return format;
        }
        return -1;
    }

    static bool TryParseUInt(string s, out long v)
    {
        if (s.StartsWith("0x", StringComparison.OrdinalIgnoreCase))
            return long.TryParse(s.AsSpan(2), NumberStyles.AllowHexSpecifier, Inv, out v) && v <= uint.MaxValue;
        return long.TryParse(s, NumberStyles.None, Inv, out v) && v <= uint.MaxValue;
    }

    // ---------------------------------------------------------------- listing

    struct Pt
    {
        public int Offset, Doc, SL, SC, EL, EC, Seq;
    }

    static void Listing(MetadataReader r, TextWriter w)
    {
        var names = new Dictionary<int, string>();
        var pts = new List<Pt>();
        var cmp = Comparer<Pt>.Create((a, b) => a.Offset != b.Offset ? a.Offset.CompareTo(b.Offset) : a.Seq.CompareTo(b.Seq));
        foreach (var mh in r.MethodDebugInformation)
        {
            var mdi = r.GetMethodDebugInformation(mh);
            if (mdi.SequencePointsBlob.IsNil)
                continue;
            pts.Clear();
            int seq = 0;
            foreach (var sp in mdi.GetSequencePoints())
            {
                pts.Add(new Pt
                {
                    Offset = sp.Offset, Doc = MetadataTokens.GetRowNumber(sp.Document),
                    SL = sp.StartLine, SC = sp.StartColumn, EL = sp.EndLine, EC = sp.EndColumn, Seq = seq++,
                });
            }
            pts.Sort(cmp); // (IL offset, PDB order): a stable sort
            int token = 0x06000000 | MetadataTokens.GetRowNumber(mh);
            foreach (var p in pts)
            {
                var name = DocName(r, MetadataTokens.DocumentHandle(p.Doc), names);
                bool hidden = p.SL == HiddenLine;
                w.Write(string.Create(Inv, $"0x{token:x8} {p.Offset} {name} {p.SL}:{p.SC}-{p.EL}:{p.EC}"));
                w.Write(hidden ? " hidden\n" : "\n");
            }
        }
    }

    // ---------------------------------------------------------------- documents

    static void Documents(MetadataReader r, bool referencedOnly, TextWriter w)
    {
        // --referenced: only documents that some sequence point (hidden ones included) refers to.
        HashSet<int>? referenced = null;
        if (referencedOnly)
        {
            referenced = new HashSet<int>();
            foreach (var mh in r.MethodDebugInformation)
            {
                var mdi = r.GetMethodDebugInformation(mh);
                if (mdi.SequencePointsBlob.IsNil)
                    continue;
                foreach (var sp in mdi.GetSequencePoints())
                    referenced.Add(MetadataTokens.GetRowNumber(sp.Document));
            }
        }
        foreach (var dh in r.Documents)
        {
            var d = r.GetDocument(dh);
            int rid = MetadataTokens.GetRowNumber(dh);
            if (referenced != null && !referenced.Contains(rid))
                continue;
            string name = r.GetString(d.Name);
            string lang = r.GetGuid(d.Language).ToString("D");
            string alg = r.GetGuid(d.HashAlgorithm).ToString("D");
            string hash = d.Hash.IsNil ? "" : Hex(r.GetBlobBytes(d.Hash));
            long emb = EmbeddedSourceLength(r, dh);
            w.Write(string.Create(Inv, $"{rid}\t{name}\t{lang}\t{alg}\t{hash}\t{emb}\n"));
        }
    }

    // ---------------------------------------------------------------- lookup (runtime rule)

    /// <summary>StackTraceSymbols.GetSourceLineInfo: the last non-hidden point with Offset &lt;= il.</summary>
    static bool RuntimeLookup(MetadataReader r, int token, long il, out SequencePoint best)
    {
        best = default;
        if ((token >>> 24) != 0x06)
            return false;
        int rid = token & 0xFFFFFF;
        if (rid < 1 || rid > r.GetTableRowCount(TableIndex.MethodDebugInformation))
            return false;
        var mdi = r.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(rid));
        if (mdi.SequencePointsBlob.IsNil)
            return false;
        bool found = false;
        foreach (var sp in mdi.GetSequencePoints())
        {
            if (sp.Offset > il)
                break;
            if (sp.StartLine != HiddenLine)
            {
                best = sp;
                found = true;
            }
        }
        return found;
    }

    static void Lookup(MetadataReader r, TextReader input, TextWriter w)
    {
        var names = new Dictionary<int, string>();
        string? line;
        int lineNo = 0;
        while ((line = input.ReadLine()) != null)
        {
            lineNo++;
            var parts = line.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length == 0)
                continue;
            if (parts.Length != 2 || !TryParseUInt(parts[0], out long m) || !TryParseUInt(parts[1], out long il))
                throw new BadInputException($"stdin line {lineNo}: expected '<token|row> <il offset>', got '{line}'");
            bool isToken = parts[0].StartsWith("0x", StringComparison.OrdinalIgnoreCase);
            // A decimal row number becomes a MethodDef token; a row that does not fit in 24 bits is out of range.
            int token = isToken ? unchecked((int)(uint)m) : (m <= 0xFFFFFF ? 0x06000000 | (int)m : 0);
            string tok = isToken ? string.Create(Inv, $"0x{(uint)m:x8}") : (m <= 0xFFFFFF ? string.Create(Inv, $"0x{token:x8}") : parts[0]);
            if (RuntimeLookup(r, token, il, out var sp))
            {
                var name = DocName(r, sp.Document, names);
                w.Write(string.Create(Inv, $"{tok} {il} {name}:{sp.StartLine}:{sp.StartColumn}:{sp.EndLine}:{sp.EndColumn}\n"));
            }
            else
            {
                w.Write(string.Create(Inv, $"{tok} {il} ??:0:0\n"));
            }
        }
    }

    // ---------------------------------------------------------------- lines

    readonly record struct LinePoint(int Row, int IL, int Line, int Column, int EndLine, int EndColumn);

    static bool PosLe(int l1, int c1, int l2, int c2) => l1 < l2 || (l1 == l2 && c1 <= c2);

    // The span of `inner` lies inside `outer`'s and differs from it (SPEC.md 6.2).
    static bool StrictlyInside(LinePoint inner, LinePoint outer) =>
        !(inner.Line == outer.Line && inner.Column == outer.Column && inner.EndLine == outer.EndLine && inner.EndColumn == outer.EndColumn)
        && PosLe(outer.Line, outer.Column, inner.Line, inner.Column) && PosLe(inner.EndLine, inner.EndColumn, outer.EndLine, outer.EndColumn);

    /// <summary>
    /// The breakpoint binding rule of SPEC.md 6.2 (no column), from SRM's sequence points: for every
    /// distinct document path, line 1 and every line that starts code with the lines just before and
    /// after it (a line between two lines with code binds as the next one does), ascending, a block
    /// "PATH:LINE", then one "TOKEN IL PATH L:C-EL:EC" line per binding (method row, then IL
    /// order), then an empty line. Documents that share a path are searched together.
    /// </summary>
    static void Lines(MetadataReader r, TextWriter w)
    {
        var byPath = new SortedDictionary<string, List<LinePoint>>(StringComparer.Ordinal);
        foreach (var h in r.Documents)
        {
            string path = r.GetString(r.GetDocument(h).Name);
            if (!byPath.ContainsKey(path))
                byPath[path] = new List<LinePoint>();
        }
        int rows = r.GetTableRowCount(TableIndex.MethodDebugInformation);
        for (int row = 1; row <= rows; row++)
        {
            var mdi = r.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
            if (mdi.SequencePointsBlob.IsNil)
                continue;
            foreach (var sp in mdi.GetSequencePoints())
            {
                if (sp.IsHidden)
                    continue;
                string path = r.GetString(r.GetDocument(sp.Document).Name);
                byPath[path].Add(new LinePoint(row, sp.Offset, sp.StartLine, sp.StartColumn, sp.EndLine, sp.EndColumn));
            }
        }
        foreach (var (path, points) in byPath)
        {
            int last = 0;
            foreach (var p in points)
                last = Math.Max(last, p.Line);
            if (last == 0)
                continue;
            var lines = new SortedSet<int> { 1 };
            foreach (var p in points)
            {
                lines.Add(p.Line - 1);
                lines.Add(p.Line);
                lines.Add(p.Line + 1);
            }
            lines.Remove(0);
            foreach (int line in lines)
            {
                w.Write(string.Create(Inv, $"{path}:{line}\n"));
                // Step 3: the first line at or after `line` with code.
                int target = 0;
                foreach (var p in points)
                    if (p.Line >= line && (target == 0 || p.Line < target))
                        target = p.Line;
                // Step 5: per method its first point on that line (column, then IL offset) ...
                var first = new SortedDictionary<int, LinePoint>();
                foreach (var p in points)
                {
                    if (target == 0 || p.Line != target)
                        continue;
                    if (!first.TryGetValue(p.Row, out var q) || p.Column < q.Column || (p.Column == q.Column && p.IL < q.IL))
                        first[p.Row] = p;
                }
                // ... without points nested in another method's point; step 6: row, then IL order.
                foreach (var p in first.Values)
                {
                    bool nested = false;
                    foreach (var o in first.Values)
                        nested |= StrictlyInside(p, o);
                    if (!nested)
                        w.Write(string.Create(Inv, $"0x{0x06000000 | p.Row:x8} {p.IL} {path} {p.Line}:{p.Column}-{p.EndLine}:{p.EndColumn}\n"));
                }
                w.Write("\n");
            }
        }
    }

    // ---------------------------------------------------------------- info

    static void Info(OpenedInput o, TextWriter w)
    {
        var r = o.Reader;
        var hdr = r.DebugMetadataHeader ?? throw new BadInputException("metadata has no #Pdb stream");
        var id = new BlobContentId(hdr.Id);
        void KV(string k, object v) => w.Write(string.Create(Inv, $"{k}={v}\n"));

        KV("pdb_id_guid", id.Guid.ToString("D"));
        KV("pdb_id_stamp", string.Create(Inv, $"0x{id.Stamp:x8}"));
        KV("entry_point", string.Create(Inv, $"0x{(hdr.EntryPoint.IsNil ? 0 : MetadataTokens.GetToken(hdr.EntryPoint)):x8}"));
        foreach (var (t, name) in new[]
                 {
                     (TableIndex.Document, "Document"), (TableIndex.MethodDebugInformation, "MethodDebugInformation"),
                     (TableIndex.LocalScope, "LocalScope"), (TableIndex.LocalVariable, "LocalVariable"),
                     (TableIndex.LocalConstant, "LocalConstant"), (TableIndex.ImportScope, "ImportScope"),
                     (TableIndex.StateMachineMethod, "StateMachineMethod"),
                     (TableIndex.CustomDebugInformation, "CustomDebugInformation"),
                 })
            KV("rows_" + name, r.GetTableRowCount(t));

        long sourceLink = -1;
        int embedded = 0;
        foreach (var h in r.CustomDebugInformation)
        {
            var cdi = r.GetCustomDebugInformation(h);
            var kind = r.GetGuid(cdi.Kind);
            if (kind == SourceLinkKind && cdi.Parent.Kind == HandleKind.ModuleDefinition && sourceLink < 0)
                sourceLink = r.GetBlobReader(cdi.Value).Length;
            else if (kind == EmbeddedSourceKind && cdi.Parent.Kind == HandleKind.Document)
                embedded++;
        }
        KV("sourcelink", sourceLink < 0 ? "none" : sourceLink.ToString(Inv));
        KV("embedded_sources", embedded);

        if (o.PE is { } pe)
        {
            foreach (var e in pe.ReadDebugDirectory())
            {
                if (e.Type != DebugDirectoryEntryType.CodeView || !e.IsPortableCodeView)
                    continue;
                var cv = pe.ReadCodeViewDebugDirectoryData(e);
                KV("codeview_guid", cv.Guid.ToString("D"));
                KV("codeview_age", cv.Age);
                KV("codeview_path", cv.Path);
                break;
            }
            var md = pe.GetMetadataReader();
            KV("mvid", md.GetGuid(md.GetModuleDefinition().Mvid).ToString("D"));
            KV("methoddef_rows", md.GetTableRowCount(TableIndex.MethodDef));
            KV("pdb_source", o.PdbSource!);
        }
    }

    // ---------------------------------------------------------------- benchmarks

    static long ElapsedNs(long startTicks) =>
        (long)((Stopwatch.GetTimestamp() - startTicks) * (1e9 / Stopwatch.Frequency));

    static long Median(List<long> xs)
    {
        xs.Sort();
        int n = xs.Count;
        return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
    }

    /// <summary>One full decode: open the PDB image from bytes, decode every point of every method.</summary>
    static (long points, ulong checksum) DecodeOnce(byte[] pdb)
    {
        using var provider = MetadataReaderProvider.FromPortablePdbImage(ImmutableCollectionsMarshal.AsImmutableArray(pdb));
        return DecodePoints(provider.GetMetadataReader());
    }

    /// <summary>Decodes every point of every method, folding every field into a checksum.</summary>
    static (long points, ulong checksum) DecodePoints(MetadataReader r)
    {
        long points = 0;
        ulong sum = 0;
        foreach (var mh in r.MethodDebugInformation)
        {
            var mdi = r.GetMethodDebugInformation(mh);
            if (mdi.SequencePointsBlob.IsNil)
                continue;
            foreach (var sp in mdi.GetSequencePoints())
            {
                points++;
                sum = sum * 31 + (ulong)(uint)sp.Offset;
                sum = sum * 31 + (ulong)(uint)MetadataTokens.GetRowNumber(sp.Document);
                sum = sum * 31 + (ulong)(uint)sp.StartLine;
                sum = sum * 31 + (ulong)(uint)sp.StartColumn;
                sum = sum * 31 + (ulong)(uint)sp.EndLine;
                sum = sum * 31 + (ulong)(uint)sp.EndColumn;
            }
        }
        return (points, sum);
    }

    /// <summary>
    /// decode-all --once: the reader Open made from the file, every point decoded once, no timing.
    /// Timed from outside as a whole process (runtime start, JIT, file read, decode).
    /// </summary>
    static void DecodeAllOnce(MetadataReader r, TextWriter w)
    {
        var (points, checksum) = DecodePoints(r);
        w.Write(string.Create(Inv, $"points={points} checksum=0x{checksum:x16}\n"));
    }

    /// <summary>
    /// Steady-state timing. Warm-up (not measured): DecodeOnce until at least warmupMs milliseconds have
    /// passed and at least 3 calls were made, so that tiered compilation has replaced the tier-0 code of
    /// the decode path with optimized code; warmupMs == 0: no warm-up at all. Then repeat timed calls.
    /// </summary>
    static void DecodeAll(byte[] pdb, int repeat, int warmupMs, TextWriter w)
    {
        long points = -1;
        ulong checksum = 0;
        if (warmupMs > 0)
        {
            long start = Stopwatch.GetTimestamp();
            long warmupNs = warmupMs * 1_000_000L;
            for (int calls = 0; calls < 3 || ElapsedNs(start) < warmupNs; calls++)
            {
                var (p, c) = DecodeOnce(pdb);
                if (points >= 0 && (p != points || c != checksum))
                    throw new InvalidOperationException("decode is not deterministic");
                (points, checksum) = (p, c);
            }
        }
        var times = new List<long>(repeat);
        for (int i = 0; i < repeat; i++)
        {
            long t0 = Stopwatch.GetTimestamp();
            var (p, c) = DecodeOnce(pdb);
            times.Add(ElapsedNs(t0));
            if (points >= 0 && (p != points || c != checksum))
                throw new InvalidOperationException("decode is not deterministic");
            (points, checksum) = (p, c);
        }
        w.Write(string.Create(Inv, $"points={points} checksum=0x{checksum:x16} median_ns={Median(times)}\n"));
    }

    static void LookupBench(MetadataReader r, string queriesPath, int repeat, TextWriter w)
    {
        var rows = new List<int>();
        var ils = new List<int>();
        int lineNo = 0;
        foreach (var line in File.ReadLines(queriesPath))
        {
            lineNo++;
            var parts = line.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length == 0)
                continue;
            if (parts.Length != 2 || !int.TryParse(parts[0], NumberStyles.None, Inv, out int row)
                || !int.TryParse(parts[1], NumberStyles.None, Inv, out int il))
                throw new BadInputException($"{queriesPath}:{lineNo}: expected '<method row> <il offset>' (decimal), got '{line}'");
            rows.Add(row);
            ils.Add(il);
        }
        int n = rows.Count;
        if (n == 0)
            throw new BadInputException($"{queriesPath}: no queries");
        int[] rowArr = rows.ToArray(), ilArr = ils.ToArray();
        int maxRow = r.GetTableRowCount(TableIndex.MethodDebugInformation);

        (int hits, long sum) RunAll()
        {
            int hits = 0;
            long sum = 0;
            for (int q = 0; q < n; q++)
            {
                int row = rowArr[q], il = ilArr[q];
                if (row < 1 || row > maxRow)
                    continue;
                var mdi = r.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
                if (mdi.SequencePointsBlob.IsNil)
                    continue;
                bool found = false;
                int line = 0, col = 0, doc = 0;
                foreach (var sp in mdi.GetSequencePoints())
                {
                    if (sp.Offset > il)
                        break;
                    if (sp.StartLine != HiddenLine)
                    {
                        found = true;
                        line = sp.StartLine;
                        col = sp.StartColumn;
                        doc = MetadataTokens.GetRowNumber(sp.Document);
                    }
                }
                if (found)
                {
                    hits++;
                    sum += line + col + doc;
                }
            }
            return (hits, sum);
        }

        var (hits0, sum0) = RunAll(); // warm-up, not measured
        var perQuery = new List<long>(repeat);
        for (int i = 0; i < repeat; i++)
        {
            long t0 = Stopwatch.GetTimestamp();
            var (h, s) = RunAll();
            long ns = ElapsedNs(t0);
            if (h != hits0 || s != sum0)
                throw new InvalidOperationException("lookups are not deterministic");
            perQuery.Add(ns);
        }
        // Median of the per-repeat totals, divided by the query count (ns_per_query as a decimal).
        double nsPerQuery = (double)Median(perQuery) / n;
        w.Write(string.Create(Inv, $"queries={n} hits={hits0} ns_per_query={nsPerQuery:F1}\n"));
    }
}
