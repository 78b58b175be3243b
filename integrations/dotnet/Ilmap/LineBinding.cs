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

/// <summary>
/// How <see cref="IlmapCache.Lines(string, int, int, LineRule)"/> chooses the methods a source line
/// binds (SPEC.md 6.2; the values are the C API's ILMAP_LINES_*).
/// </summary>
public enum LineRule
{
    /// <summary>
    /// The debugger's choice (the default), as netcoredbg binds a <c>file:line</c> breakpoint: the
    /// innermost method whose code spans the line (a line without code binds the method's next
    /// statement, a second line of a statement binds the statement), a field initializer in every
    /// constructor, a lambda only when the line starts inside it.
    /// </summary>
    Debugger = 0,
    /// <summary>
    /// Every method whose code starts on the first line with code at or after the line (ilmap
    /// 0.2.0's rule, <c>ilmap lines --all-methods</c>).
    /// </summary>
    AllMethods = 1,
}

/// <summary>Which runtime's frame text <see cref="IlmapCache.MethodName"/> returns.</summary>
public enum MethodNameFlavor
{
    /// <summary>CoreCLR's: <c>NS.C.M(Int32 x)</c>, state-machine methods as their kickoff method.</summary>
    CoreClr = 0,
    /// <summary>Mono's: <c>NS.C.M (System.Int32 x)</c>.</summary>
    Mono = 1,
}
