// What the native reader does to the process that hosts it (docs/library.md "In a host
// process"): opening with IlmapOpenMode.Read installs no SIGRTMIN+6 handler and takes no lease;
// a mapped open does both. Checked in a fresh process (this assembly run with `dotnet exec`,
// Program.Main), since other tests of this run open mapped caches in the test host, and read from
// the kernel: /proc/self/status SigCgt (the signals the process catches) and /proc/locks.
using System;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using Xunit;

namespace Ilmap.Tests;

public static partial class HostProcessProbe
{
    public const string Verb = "host-process-probe";

    [LibraryImport("libc", EntryPoint = "__libc_current_sigrtmin")]
    private static partial int CurrentSigRtMin();

    /// <summary>"caught=C leases=N": whether SIGRTMIN+6 is caught, and the leases this process holds.</summary>
    static string State()
    {
        int signal = CurrentSigRtMin() + 6;
        ulong caught = 0;
        foreach (var line in File.ReadLines("/proc/self/status"))
            if (line.StartsWith("SigCgt:", StringComparison.Ordinal))
                caught = ulong.Parse(line.AsSpan(7).Trim(), NumberStyles.HexNumber, CultureInfo.InvariantCulture);
        string pid = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
        int leases = 0;
        foreach (var line in File.ReadLines("/proc/locks"))
        {
            var f = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (f.Length > 4 && f[1] == "LEASE" && f[4] == pid)
                leases++;
        }
        return $"caught={(caught >> (signal - 1)) & 1} leases={leases}";
    }

    static bool AnswersSomething(IlmapCache cache)
    {
        for (int row = 1; row <= cache.MethodCount; row++)
            if (cache.TryLookupRow(row, 0, out _))
                return true;
        return false;
    }

    /// <summary>Prints the state at start, after a native open with Read, then after a mapped one.</summary>
    public static int Run(string path)
    {
        Console.WriteLine("start " + State());
        using var read = IlmapCache.Open(path, IlmapReader.Native, IlmapOpenMode.Read);
        if (!AnswersSomething(read))
            return 3;
        Console.WriteLine("read " + State());
        using var mapped = IlmapCache.Open(path, IlmapReader.Native, IlmapOpenMode.Map);
        if (!AnswersSomething(mapped))
            return 3;
        Console.WriteLine("mapped " + State());
        return 0;
    }
}

/// <summary>The entry point of this assembly (GenerateProgramFile is off): the test host never
/// calls it; HostProcessTests runs it with `dotnet exec` for a fresh process.</summary>
public static class Program
{
    public static int Main(string[] args) =>
        args.Length == 2 && args[0] == HostProcessProbe.Verb ? HostProcessProbe.Run(args[1]) : 0;
}

public class HostProcessTests
{
    [Fact]
    public void NativeReadModeInstallsNoSignalHandlerAndTakesNoLease()
    {
        string dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host ? host : "dotnet";
        string assembly = typeof(HostProcessProbe).Assembly.Location;
        var (code, stdout, stderr) = Corpus.Run(dotnet, "exec", assembly, HostProcessProbe.Verb, Corpus.CachePath("cs-frames"));
        Assert.True(code == 0, $"probe exited {code}: {stderr}");
        var lines = stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        Assert.Equal(new[] { "start caught=0 leases=0", "read caught=0 leases=0", "mapped caught=1 leases=1" }, lines);
    }
}
