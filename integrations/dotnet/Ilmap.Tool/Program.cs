// ilmap as a .NET tool: a launcher of the native ilmap program packed beside it, in
// native/RID/ilmap for the machine's RID (linux-x64, linux-arm64, and native/win-x64/ilmap.exe on
// Windows; a package for another RID only needs its program there). It passes the arguments unchanged, leaves standard input, output and error
// to the program, and returns its exit code; a terminal's Ctrl-C reaches the program directly,
// SIGTERM and SIGHUP sent to the launcher are handed on to it. Without a program for this machine
// it prints one line and exits 1, as ilmap does for a usage error.
using System;
using System.ComponentModel;
using System.Diagnostics;
using System.IO;
using System.Runtime.InteropServices;

namespace Ilmap.Tool;

static partial class Program
{
    const int ExitUsage = 1;

    static int Main(string[] args)
    {
        string rid = HostRid();
        string exe = Path.Combine(AppContext.BaseDirectory, "native", rid, OperatingSystem.IsWindows() ? "ilmap.exe" : "ilmap");
        if (!File.Exists(exe))
            return Fail($"this package has no ilmap program for {rid} (it carries: {Carried()}); build ilmap from source for this machine");
        if (!OperatingSystem.IsWindows() && !MakeExecutable(exe, out string? why))
            return Fail($"{exe} is not executable and cannot be made so: {why}");

        var start = new ProcessStartInfo(exe) { UseShellExecute = false };
        foreach (string a in args)
            start.ArgumentList.Add(a);
        // Ctrl-C and Ctrl-\ go to the whole foreground process group, the program too: the
        // launcher stays to return the program's exit code.
        Console.CancelKeyPress += (_, e) => e.Cancel = true;
        Process child;
        try
        {
            child = Process.Start(start)!;
        }
        catch (Win32Exception e)
        {
            return Fail($"cannot run {exe}: {e.Message}");
        }
        using (child)
        using (Forward(PosixSignal.SIGTERM, 15, child))
        using (Forward(PosixSignal.SIGHUP, 1, child))
        {
            child.WaitForExit();
            return child.ExitCode; // 128 + N when the program died of signal N
        }
    }

    static int Fail(string message)
    {
        Console.Error.WriteLine($"ilmap: error: {message}");
        return ExitUsage;
    }

    /// <summary>The machine as a RID: linux-x64, linux-arm64, linux-musl-x64, osx-arm64, win-x64, ...</summary>
    static string HostRid()
    {
        string os = OperatingSystem.IsLinux() ? (RuntimeInformation.RuntimeIdentifier.Contains("musl") ? "linux-musl" : "linux")
                  : OperatingSystem.IsMacOS() ? "osx"
                  : OperatingSystem.IsWindows() ? "win"
                  : OperatingSystem.IsFreeBSD() ? "freebsd"
                  : "unknown";
        return $"{os}-{RuntimeInformation.OSArchitecture.ToString().ToLowerInvariant()}";
    }

    /// <summary>The RIDs this package has a program for.</summary>
    static string Carried()
    {
        string native = Path.Combine(AppContext.BaseDirectory, "native");
        string[] rids = Directory.Exists(native) ? Directory.GetDirectories(native) : [];
        for (int i = 0; i < rids.Length; i++)
            rids[i] = Path.GetFileName(rids[i]);
        Array.Sort(rids, StringComparer.Ordinal);
        return rids.Length == 0 ? "none" : string.Join(", ", rids);
    }

    /// <summary>NuGet does not keep the executable bit of the files it extracts: set it again.</summary>
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    static bool MakeExecutable(string path, out string? why)
    {
        why = null;
        const UnixFileMode execute = UnixFileMode.UserExecute | UnixFileMode.GroupExecute | UnixFileMode.OtherExecute;
        try
        {
            UnixFileMode mode = File.GetUnixFileMode(path);
            if ((mode & UnixFileMode.UserExecute) == 0)
                File.SetUnixFileMode(path, mode | execute);
            return true;
        }
        catch (Exception e) when (e is UnauthorizedAccessException or IOException)
        {
            why = e.Message;
            return false;
        }
    }

    /// <summary>Hands the signal on to the program (kill(2) with its number) instead of ending the launcher.</summary>
    static IDisposable? Forward(PosixSignal signal, int number, Process child)
    {
        if (OperatingSystem.IsWindows())
            return null;
        return PosixSignalRegistration.Create(signal, context =>
        {
            context.Cancel = true;
            _ = Kill(child.Id, number);
        });
    }

    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static partial int Kill(int pid, int signal);
}
