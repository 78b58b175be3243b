// Test inputs: the corpus PDBs and the ilmap program that compiles them, as test.sh passes them
// (ILMAP_EXE, ILMAP_LIBRARY, ILMAP_CORPUS_DIR), and an SRM reader of a PDB with the runtime rule
// (SPEC.md section 6) as the oracle.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using Xunit;

namespace Ilmap.Tests;

/// <summary>The expected answer of one query, from SRM.</summary>
readonly record struct Expected(string File, string Language, int Line, int Column, int EndLine, int EndColumn, int ILOffset);

static class Corpus
{
    /// <summary>The corpus folders (corpus/out/NAME) that hold a standalone Portable PDB.</summary>
    public static readonly string[] Names =
    {
        "cs-bigmethod", "cs-embedded-sources", "cs-features", "cs-frames", "cs-manymethods",
        "cs-sourcelink", "cs-windows-paths", "fs-basic", "vb-basic",
    };

    public static IEnumerable<object[]> NameData()
    {
        foreach (var n in Names)
            yield return new object[] { n };
    }

    static string Env(string name) =>
        Environment.GetEnvironmentVariable(name) is { Length: > 0 } v
            ? v : throw new InvalidOperationException($"{name} is not set (run integrations/dotnet/test.sh)");

    public static string PdbPath(string name)
    {
        var dir = Path.Combine(Env("ILMAP_CORPUS_DIR"), "out", name);
        var pdbs = Directory.GetFiles(dir, "*.pdb");
        Assert.Single(pdbs);
        return pdbs[0];
    }

    /// <summary>The PE beside the corpus PDB NAME.</summary>
    public static string PePath(string name)
    {
        var pes = Directory.GetFiles(Path.GetDirectoryName(PdbPath(name))!, "*.dll");
        Assert.Single(pes);
        return pes[0];
    }

    static readonly object CompileLock = new();
    static readonly Dictionary<string, string> Compiled = new();
    static readonly string WorkDir = MakeWorkDir();

    static string MakeWorkDir()
    {
        var dir = Directory.CreateTempSubdirectory("ilmap-dotnet-tests-").FullName;
        AppDomain.CurrentDomain.ProcessExit += (_, _) =>
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { } catch (UnauthorizedAccessException) { }
        };
        return dir;
    }

    /// <summary>
    /// Compiles the corpus PDB NAME (or, <paramref name="fromPe"/>, the PE beside it, whose
    /// identity the cache then records) with the built ilmap program, once per run and options.
    /// </summary>
    public static string CachePath(string name, bool fromPe = false, bool embedSources = false)
    {
        var key = name + (fromPe ? ".pe" : "") + (embedSources ? ".sources" : "");
        lock (CompileLock)
        {
            if (Compiled.TryGetValue(key, out var done))
                return done;
            var output = Path.Combine(WorkDir, key + ".ilmap");
            var args = new List<string> { "compile", fromPe ? PePath(name) : PdbPath(name), "-o", output, "-q" };
            if (embedSources)
                args.Add("--embed-sources");
            var (code, _, stderr) = Run(Env("ILMAP_EXE"), args.ToArray());
            Assert.True(code == 0, $"ilmap compile {key} failed ({code}): {stderr}");
            Compiled[key] = output;
            return output;
        }
    }

    /// <summary>The version the built ilmap program prints ("0.2.0").</summary>
    public static string IlmapVersion()
    {
        var (code, stdout, _) = Run(Env("ILMAP_EXE"), "--version");
        Assert.Equal(0, code);
        var words = stdout.Trim().Split(' ');
        Assert.Equal(2, words.Length);
        return words[1];
    }

    public static string TempFile(string fileName) => Path.Combine(WorkDir, fileName);

    public static (int Code, string Stdout, string Stderr) Run(string exe, params string[] args)
    {
        var psi = new ProcessStartInfo(exe) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var a in args)
            psi.ArgumentList.Add(a);
        using var p = Process.Start(psi)!;
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEnd();
        p.WaitForExit();
        return (p.ExitCode, stdout.Result, stderr);
    }
}

/// <summary>A Portable PDB read with System.Reflection.Metadata.</summary>
sealed class SrmPdb : IDisposable
{
    const int HiddenLine = 0xfeefee;
    static readonly Guid CSharp = new("3f5162f8-07c6-11d3-9053-00c04fa302a1");
    static readonly Guid VisualBasic = new("3a12d0b8-c26c-11d0-b442-00a0244a1dd2");
    static readonly Guid FSharp = new("ab4f38c9-b6e6-43ba-be3b-58080b2ccce3");
    static readonly Guid SourceLinkKind = new("cc110556-a091-4d38-9fec-25ab9a351a6a");

    readonly MetadataReaderProvider _provider;

    public SrmPdb(string path)
    {
        _provider = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(path));
        Reader = _provider.GetMetadataReader();
    }

    public MetadataReader Reader { get; }

    public int MethodCount => Reader.GetTableRowCount(TableIndex.MethodDebugInformation);

    public bool HasSourceLink
    {
        get
        {
            foreach (var h in Reader.GetCustomDebugInformation(EntityHandle.ModuleDefinition))
                if (Reader.GetGuid(Reader.GetCustomDebugInformation(h).Kind) == SourceLinkKind)
                    return true;
            return false;
        }
    }

    public List<SequencePoint> Points(int row)
    {
        var mdi = Reader.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
        var list = new List<SequencePoint>();
        if (!mdi.SequencePointsBlob.IsNil)
            list.AddRange(mdi.GetSequencePoints());
        return list;
    }

    /// <summary>The runtime rule: walk in PDB order, stop at the first point past x, answer the last visible one seen.</summary>
    public Expected? Lookup(List<SequencePoint> points, long x)
    {
        if (x < 0)
            return null;
        SequencePoint? best = null;
        foreach (var sp in points)
        {
            if (sp.Offset > x)
                break;
            if (sp.StartLine != HiddenLine)
                best = sp;
        }
        if (best is not SequencePoint b)
            return null;
        var doc = Reader.GetDocument(b.Document);
        return new Expected(Reader.GetString(doc.Name), Language(doc), b.StartLine, b.StartColumn,
                            b.EndLine, b.EndColumn, b.Offset);
    }

    string Language(Document doc)
    {
        if (doc.Language.IsNil)
            return "unknown";
        var g = Reader.GetGuid(doc.Language);
        if (g == Guid.Empty)
            return "unknown";
        return g == CSharp ? "C#" : g == VisualBasic ? "VB" : g == FSharp ? "F#" : "other";
    }

    public void Dispose() => _provider.Dispose();
}
