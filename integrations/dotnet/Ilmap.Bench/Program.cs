// Lookup benchmark: the same queries answered through the Ilmap library (P/Invoke into
// libilmap.so, strings shared per document) and through System.Reflection.Metadata's per-lookup
// path (GetMethodDebugInformation(row).GetSequencePoints() walked with the runtime rule), on the
// same PDB and its cache. Each side runs for --warmup-ms first (tiered JIT reaches its final
// code), then the sides take turns for --repeat timed passes over all queries each; a figure is
// the median pass / queries.
// Usage: Ilmap.Bench CACHE PDB [--queries FILE] [--repeat N] [--warmup-ms MS] [--reader managed|native]
//   --reader: which reader of the Ilmap library answers (default: managed, the library's default).
//   FILE: "<method row> <il offset>" per line (bench/ilmap_gen_queries); without it, one query
//   per visible point of the PDB at its own offset plus one, shuffled with a fixed seed.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace Ilmap.Bench;

static class Program
{
    const int HiddenLine = 0xfeefee;
    static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    static int Main(string[] args)
    {
        if (args.Length < 2)
        {
            Console.Error.WriteLine("usage: Ilmap.Bench CACHE PDB [--queries FILE] [--repeat N] [--warmup-ms MS] [--reader managed|native]");
            return 1;
        }
        string cachePath = args[0], pdbPath = args[1];
        string? queriesPath = null;
        int repeat = 21, warmupMs = 2000;
        IlmapReader which = IlmapReader.Managed;
        for (int i = 2; i < args.Length; i++)
        {
            if (i + 1 >= args.Length)
            {
                Console.Error.WriteLine($"ilmap-bench: error: {args[i]} needs a value");
                return 1;
            }
            switch (args[i])
            {
                case "--queries": queriesPath = args[++i]; break;
                case "--repeat": repeat = int.Parse(args[++i], Inv); break;
                case "--warmup-ms": warmupMs = int.Parse(args[++i], Inv); break;
                case "--reader": which = args[++i] == "native" ? IlmapReader.Native : IlmapReader.Managed; break;
                default: Console.Error.WriteLine($"ilmap-bench: error: unknown option {args[i]}"); return 1;
            }
        }

        using var provider = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(pdbPath), MetadataStreamOptions.PrefetchMetadata);
        var reader = provider.GetMetadataReader();
        using var cache = IlmapCache.Open(cachePath, which);
        Console.WriteLine($"reader={which.ToString().ToLowerInvariant()}");
        var (rows, ils) = queriesPath != null ? ReadQueries(queriesPath) : MakeQueries(reader);
        int n = rows.Length;
        int[] tokens = new int[n];
        for (int q = 0; q < n; q++)
            tokens[q] = 0x06000000 | rows[q];

        // The two sides must agree before either is timed.
        int maxRow = reader.GetTableRowCount(TableIndex.MethodDebugInformation);
        for (int q = 0; q < n; q++)
        {
            bool a = cache.TryLookup(tokens[q], ils[q], out var loc);
            bool b = SrmLookup(reader, maxRow, rows[q], ils[q], out int line, out int col, out _);
            if (a != b || (a && (loc.Line != line || loc.Column != col)))
                throw new InvalidOperationException($"query {q} (row {rows[q]}, il {ils[q]}): ilmap and SRM disagree");
        }

        long Ilmap()
        {
            long sum = 0;
            for (int q = 0; q < n; q++)
                if (cache.TryLookup(tokens[q], ils[q], out var loc))
                    sum += loc.Line + loc.Column + loc.File.Length;
            return sum;
        }
        long Srm()
        {
            long sum = 0;
            for (int q = 0; q < n; q++)
                if (SrmLookup(reader, maxRow, rows[q], ils[q], out int line, out int col, out var doc))
                    sum += line + col + MetadataTokens.GetRowNumber(doc);
            return sum;
        }
        long SrmWithName()
        {
            long sum = 0;
            for (int q = 0; q < n; q++)
                if (SrmLookup(reader, maxRow, rows[q], ils[q], out int line, out int col, out var doc))
                    sum += line + col + reader.GetString(reader.GetDocument(doc).Name).Length;
            return sum;
        }
        long Open()
        {
            using var c = IlmapCache.Open(cachePath, which);
            return c.MethodCount;
        }
        long OpenSrm()
        {
            using var p = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(pdbPath), MetadataStreamOptions.PrefetchMetadata);
            return p.GetMetadataReader().GetTableRowCount(TableIndex.MethodDebugInformation);
        }

        int hits = 0;
        for (int q = 0; q < n; q++)
            if (cache.TryLookup(tokens[q], ils[q], out _))
                hits++;
        Console.WriteLine(string.Create(Inv, $"cache={Path.GetFileName(cachePath)} pdb={Path.GetFileName(pdbPath)} queries={n} hits={hits} methods={cache.MethodCount} points={cache.PointCount} repeat={repeat}"));
        // Interleaved rounds (ilmap, SRM, SRM with names, ilmap, ...): a change of the machine's
        // load in the middle of the run reaches every side alike.
        var lookups = Measure(new Func<long>[] { Ilmap, Srm, SrmWithName }, repeat, warmupMs);
        Report("ilmap_pinvoke_ns_per_query", lookups[0] / n);
        Report("srm_per_lookup_ns_per_query", lookups[1] / n);
        Report("srm_per_lookup_with_file_name_ns_per_query", lookups[2] / n);
        Report("ratio_srm_over_ilmap", lookups[1] / lookups[0]);
        Report("ratio_srm_with_file_name_over_ilmap", lookups[2] / lookups[0]);
        long before = GC.GetAllocatedBytesForCurrentThread();
        Ilmap();
        long ilmapBytes = GC.GetAllocatedBytesForCurrentThread() - before;
        before = GC.GetAllocatedBytesForCurrentThread();
        SrmWithName();
        long srmBytes = GC.GetAllocatedBytesForCurrentThread() - before;
        Console.WriteLine(string.Create(Inv, $"ilmap_bytes_allocated_per_pass={ilmapBytes} srm_with_file_name_bytes_allocated_per_pass={srmBytes}"));
        // Source line -> IL: up to 1,000 (document, line) queries taken from visible points, through
        // Lines into a reused buffer, against the only thing SRM offers without an index: a scan of
        // every method's points for those on the document and line (the naive form of SPEC.md 6.2).
        var lineQueries = new List<(string Path, DocumentHandle Doc, int Line)>();
        for (int row = 1; row <= maxRow && lineQueries.Count < 1000; row += Math.Max(1, maxRow / 1000))
        {
            var mdi = reader.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
            if (mdi.SequencePointsBlob.IsNil)
                continue;
            foreach (var sp in mdi.GetSequencePoints())
                if (!sp.IsHidden)
                {
                    lineQueries.Add((reader.GetString(reader.GetDocument(sp.Document).Name), sp.Document, sp.StartLine));
                    break;
                }
        }
        var bindings = new LineBinding[16];
        long IlmapLines()
        {
            long sum = 0;
            foreach (var (path, _, line) in lineQueries)
                sum += cache.Lines(path, line, bindings) + bindings[0].ILOffset;
            return sum;
        }
        long SrmScanLines()
        {
            long sum = 0;
            foreach (var (_, doc, line) in lineQueries)
            {
                int found = 0, il = int.MaxValue;
                for (int row = 1; row <= maxRow; row++)
                {
                    var mdi = reader.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
                    if (mdi.SequencePointsBlob.IsNil)
                        continue;
                    foreach (var sp in mdi.GetSequencePoints())
                        if (!sp.IsHidden && sp.StartLine == line && sp.Document == doc)
                        {
                            found++;
                            il = Math.Min(il, sp.Offset);
                            break;
                        }
                }
                sum += found + (found > 0 ? il : 0);
            }
            return sum;
        }
        if (lineQueries.Count > 0)
        {
            var lines = Measure(new Func<long>[] { IlmapLines, SrmScanLines }, Math.Min(repeat, 5), Math.Min(warmupMs, 500));
            Console.WriteLine(string.Create(Inv, $"line_queries={lineQueries.Count}"));
            Report("ilmap_lines_ns_per_query", lines[0] / lineQueries.Count);
            Report("srm_scan_lines_ns_per_query", lines[1] / lineQueries.Count);
        }
        var opens = Measure(new Func<long>[] { Open, OpenSrm }, repeat, Math.Min(warmupMs, 500));
        Report("ilmap_open_close_us", opens[0] / 1000);
        Report("srm_open_us", opens[1] / 1000);
        return 0;
    }

    static void Report(string key, double value) =>
        Console.WriteLine(string.Create(Inv, $"{key}={value:F1}"));

    /// <summary>
    /// Median wall time in ns of one call of each pass: each is warmed up for warmupMs (tiered JIT
    /// reaches its final code), then the passes run in turn, repeat rounds.
    /// </summary>
    static double[] Measure(Func<long>[] passes, int repeat, int warmupMs)
    {
        var reference = new long[passes.Length];
        for (int k = 0; k < passes.Length; k++)
        {
            reference[k] = passes[k]();
            var warm = Stopwatch.StartNew();
            do
            {
                if (passes[k]() != reference[k])
                    throw new InvalidOperationException("passes are not deterministic");
            } while (warm.ElapsedMilliseconds < warmupMs);
        }
        var times = new double[passes.Length][];
        for (int k = 0; k < passes.Length; k++)
            times[k] = new double[repeat];
        for (int i = 0; i < repeat; i++)
            for (int k = 0; k < passes.Length; k++)
            {
                long t0 = Stopwatch.GetTimestamp();
                long sum = passes[k]();
                times[k][i] = (Stopwatch.GetTimestamp() - t0) * 1e9 / Stopwatch.Frequency;
                if (sum != reference[k])
                    throw new InvalidOperationException("passes are not deterministic");
            }
        var medians = new double[passes.Length];
        for (int k = 0; k < passes.Length; k++)
        {
            Array.Sort(times[k]);
            medians[k] = times[k][repeat / 2];
        }
        return medians;
    }

    static bool SrmLookup(MetadataReader r, int maxRow, int row, int il, out int line, out int column, out DocumentHandle doc)
    {
        line = column = 0;
        doc = default;
        if (row < 1 || row > maxRow || il < 0)
            return false;
        var mdi = r.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
        if (mdi.SequencePointsBlob.IsNil)
            return false;
        bool found = false;
        foreach (var sp in mdi.GetSequencePoints())
        {
            if (sp.Offset > il)
                break;
            if (sp.StartLine != HiddenLine)
            {
                found = true;
                line = sp.StartLine;
                column = sp.StartColumn;
                doc = sp.Document;
            }
        }
        return found;
    }

    static (int[] Rows, int[] Ils) ReadQueries(string path)
    {
        var rows = new List<int>();
        var ils = new List<int>();
        int lineNo = 0;
        foreach (var line in File.ReadLines(path))
        {
            lineNo++;
            var parts = line.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length == 0)
                continue;
            if (parts.Length != 2 || !int.TryParse(parts[0], NumberStyles.None, Inv, out int row)
                || !int.TryParse(parts[1], NumberStyles.None, Inv, out int il))
                throw new FormatException($"{path}:{lineNo}: expected '<method row> <il offset>'");
            rows.Add(row);
            ils.Add(il);
        }
        if (rows.Count == 0)
            throw new FormatException($"{path}: no queries");
        return (rows.ToArray(), ils.ToArray());
    }

    static (int[] Rows, int[] Ils) MakeQueries(MetadataReader r)
    {
        var q = new List<(int, int)>();
        int maxRow = r.GetTableRowCount(TableIndex.MethodDebugInformation);
        for (int row = 1; row <= maxRow; row++)
        {
            var mdi = r.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
            if (mdi.SequencePointsBlob.IsNil)
                continue;
            foreach (var sp in mdi.GetSequencePoints())
                if (sp.StartLine != HiddenLine)
                    q.Add((row, sp.Offset + 1));
        }
        var rng = new Random(12345);
        var arr = q.ToArray();
        rng.Shuffle(arr);
        var rows = new int[arr.Length];
        var ils = new int[arr.Length];
        for (int i = 0; i < arr.Length; i++)
            (rows[i], ils[i]) = arr[i];
        return (rows, ils);
    }
}
