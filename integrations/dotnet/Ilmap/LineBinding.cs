// A binding of a source line (SPEC.md 6.2): where a debugger puts a breakpoint set at a line. A
// plain struct whose File string comes from the cache's string table (IlmapCache), so filling
// a caller's span allocates nothing once the document was seen.
namespace Ilmap;

/// <summary>One (method, IL offset, span) that a breakpoint at a source line binds to.</summary>
public readonly record struct LineBinding(int Token, int ILOffset, string File, int Line, int Column, int EndLine, int EndColumn)
{
    /// <summary>"0x06000002 IL_000F file:line:column".</summary>
    public override string ToString() => $"0x{Token:x8} IL_{ILOffset:X4} {File}:{Line}:{Column}";
}

/// <summary>Which runtime's frame text <see cref="IlmapCache.MethodName"/> returns.</summary>
public enum MethodNameFlavor
{
    /// <summary>CoreCLR's: <c>NS.C.M(Int32 x)</c>, state-machine methods as their kickoff method.</summary>
    CoreClr = 0,
    /// <summary>Mono's: <c>NS.C.M (System.Int32 x)</c>.</summary>
    Mono = 1,
}
