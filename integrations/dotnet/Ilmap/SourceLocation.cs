// The answer of a lookup: a plain struct whose strings come from the cache's per-document
// string table (IlmapCache), so filling one allocates nothing once a document was seen.
namespace Ilmap;

/// <summary>The source span of the sequence point that answers an (method, IL offset) query.</summary>
public readonly struct SourceLocation
{
    internal SourceLocation(string file, string? url, string language, int line, int column,
                            int endLine, int endColumn, int ilOffset)
    {
        File = file;
        Url = url;
        Language = language;
        Line = line;
        Column = column;
        EndLine = endLine;
        EndColumn = endColumn;
        ILOffset = ilOffset;
    }

    /// <summary>The document path as the PDB stores it.</summary>
    public string File { get; }

    /// <summary>The SourceLink URL of the document, or null when the PDB has none for it.</summary>
    public string? Url { get; }

    /// <summary>"C#", "VB", "F#", "other" or "unknown".</summary>
    public string Language { get; }

    /// <summary>Start line (1-based).</summary>
    public int Line { get; }

    /// <summary>Start column (1-based).</summary>
    public int Column { get; }

    /// <summary>End line.</summary>
    public int EndLine { get; }

    /// <summary>End column (exclusive).</summary>
    public int EndColumn { get; }

    /// <summary>IL offset of the sequence point that answered (at or before the queried offset).</summary>
    public int ILOffset { get; }

    /// <summary>"file:line:column".</summary>
    public override string ToString() => $"{File}:{Line}:{Column}";
}
