// P/Invoke declarations of include/ilmap/ilmap.h, and where the native library comes from.
// The library is "ilmap", which the runtime's probing turns into each platform's file name:
// libilmap.so on Linux, ilmap.dll on Windows, beside the application or under
// runtimes/RID/native (the NuGet layout), else the installed libilmap.so.1 (its SONAME), or the
// file named by the ILMAP_LIBRARY environment variable when that is set. Where none of these loads
// (the package carries the library for linux-x64, linux-arm64 and win-x64), the native reader
// throws PlatformNotSupportedException.
using System;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Ilmap;

/// <summary>Mirror of <c>ilmap_location</c> (sequential layout, 64 bytes on 64-bit).</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct NativeLocation
{
    public byte* File;
    public nuint FileLength;
    public byte* Url;
    public nuint UrlLength;
    public byte* Language; // NUL-terminated, static in the library
    public uint Line, Column, EndLine, EndColumn;
    public uint ILOffset;
}

/// <summary>Mirror of <c>ilmap_line_match</c> (sequential layout, 48 bytes on 64-bit).</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct NativeLineMatch
{
    public uint Token, ILOffset, Document;
    public uint Line, Column, EndLine, EndColumn;
    public byte* File;
    public nuint FileLength;
}

internal static unsafe partial class Native
{
    internal const string Library = "ilmap";
    internal const string EnvironmentVariable = "ILMAP_LIBRARY";

    static Native()
    {
        NativeLibrary.SetDllImportResolver(typeof(Native).Assembly, Resolve);
    }

    static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? searchPath)
    {
        if (name != Library)
            return IntPtr.Zero;
        string? explicitPath = Environment.GetEnvironmentVariable(EnvironmentVariable);
        if (!string.IsNullOrEmpty(explicitPath))
            return NativeLibrary.Load(explicitPath); // a wrong path is an error, not a fallback
        if (NativeLibrary.TryLoad(name, assembly, searchPath, out IntPtr handle))
            return handle;
        if (NativeLibrary.TryLoad("libilmap.so.1", assembly, searchPath, out handle))
            return handle;
        return IntPtr.Zero; // the runtime reports DllNotFoundException
    }

    /// <summary>Runs the static constructor (installs the resolver) before the first call.</summary>
    internal static void EnsureResolver() { }

    /// <summary>
    /// What a first call that could not load libilmap throws: PlatformNotSupportedException, saying
    /// which platform and what to do, unless ILMAP_LIBRARY named the file (then that file is at
    /// fault, and the loader's own DllNotFoundException says why).
    /// </summary>
    internal static Exception NotLoaded(DllNotFoundException e) =>
        NotLoaded(e, Environment.GetEnvironmentVariable(EnvironmentVariable));

    internal static Exception NotLoaded(DllNotFoundException e, string? explicitPath)
    {
        if (!string.IsNullOrEmpty(explicitPath))
            return e;
        return new PlatformNotSupportedException(
            $"Ilmap: the native reader needs libilmap, which the Ilmap package carries for linux-x64, linux-arm64 and win-x64 only, and none " +
            $"could be loaded on {RuntimeInformation.RuntimeIdentifier}: install libilmap.so.1, set {EnvironmentVariable} " +
            "to its path, or use IlmapReader.Managed", e);
    }

    [LibraryImport(Library, EntryPoint = "ilmap_open_ex2")]
    internal static partial IntPtr OpenEx2(byte* path, uint flags, int* err, int* structure, byte* msg, nuint msgSize);

    [LibraryImport(Library, EntryPoint = "ilmap_close")]
    internal static partial void Close(IntPtr cache);

    // Status results (ILMAP_OK, ILMAP_E_NOT_FOUND, ILMAP_E_IO when the file changed): ilmap.h's one convention.
    [LibraryImport(Library, EntryPoint = "ilmap_locate")]
    internal static partial int Locate(IntPtr cache, uint token, uint ilOffset, NativeLocation* location);

    [LibraryImport(Library, EntryPoint = "ilmap_locate_row")]
    internal static partial int LocateRow(IntPtr cache, uint row, uint ilOffset, NativeLocation* location);

    [LibraryImport(Library, EntryPoint = "ilmap_locate_frame")]
    internal static partial int LocateFrame(IntPtr cache, uint token, uint ilOffset, byte* printed, nuint printedLength,
                                            NativeLocation* location, uint* stateMachineMethod);

    [LibraryImport(Library, EntryPoint = "ilmap_verify_ex")]
    internal static partial int VerifyEx(IntPtr cache, int* structure, byte* msg, nuint msgSize);

    [LibraryImport(Library, EntryPoint = "ilmap_method_count")]
    internal static partial uint MethodCount(IntPtr cache);

    [LibraryImport(Library, EntryPoint = "ilmap_point_count")]
    internal static partial ulong PointCount(IntPtr cache);

    [LibraryImport(Library, EntryPoint = "ilmap_install_mapping_guard")]
    internal static partial int InstallMappingGuard();

    [LibraryImport(Library, EntryPoint = "ilmap_changed")]
    internal static partial int Changed(IntPtr cache);

    [LibraryImport(Library, EntryPoint = "ilmap_file_changed")]
    internal static partial int FileChanged(IntPtr cache);

    [LibraryImport(Library, EntryPoint = "ilmap_lines_rule")]
    internal static partial int LinesRule(IntPtr cache, byte* document, nuint documentLength, uint line, uint column, int rule,
                                          NativeLineMatch* output, nuint capacity, nuint* count, byte* msg, nuint msgSize);

    [LibraryImport(Library, EntryPoint = "ilmap_method_name")]
    internal static partial int MethodName(IntPtr cache, uint token, int flavor, byte** text, nuint* length);

    [LibraryImport(Library, EntryPoint = "ilmap_pdb_id")]
    internal static partial int PdbId(IntPtr cache, byte* output);

    [LibraryImport(Library, EntryPoint = "ilmap_mvid")]
    internal static partial int Mvid(IntPtr cache, byte* output);

    [LibraryImport(Library, EntryPoint = "ilmap_debug_id")]
    internal static partial byte* DebugId(IntPtr cache, nuint* length);

    [LibraryImport(Library, EntryPoint = "ilmap_pdb_key")]
    internal static partial byte* PdbKey(IntPtr cache, nuint* length);

    [LibraryImport(Library, EntryPoint = "ilmap_pe_name")]
    internal static partial byte* PeName(IntPtr cache, nuint* length);

    [LibraryImport(Library, EntryPoint = "ilmap_pe_key")]
    internal static partial byte* PeKey(IntPtr cache, nuint* length);

    [LibraryImport(Library, EntryPoint = "ilmap_code_id")]
    internal static partial byte* CodeId(IntPtr cache, nuint* length);

    [LibraryImport(Library, EntryPoint = "ilmap_compiler_version")]
    internal static partial byte* CompilerVersion(IntPtr cache, nuint* length);

    [LibraryImport(Library, EntryPoint = "ilmap_document_count")]
    internal static partial uint DocumentCount(IntPtr cache);

    [LibraryImport(Library, EntryPoint = "ilmap_document_path")]
    internal static partial byte* DocumentPath(IntPtr cache, uint document, nuint* length);

    [LibraryImport(Library, EntryPoint = "ilmap_embedded_source")]
    internal static partial int EmbeddedSource(IntPtr cache, uint document, byte* output, nuint capacity, nuint* size,
                                               byte* msg, nuint msgSize);
}
