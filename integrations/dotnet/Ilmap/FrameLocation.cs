// The answer to a stack frame (SPEC.md 6.4): the source span, and which method's points gave
// it, since an async or iterator frame is answered from its state machine's methods rather than
// the kickoff method's token the runtime printed.
namespace Ilmap;

/// <summary>The answer of <see cref="IlmapCache.TryLookupFrame"/>.</summary>
public readonly struct FrameLocation
{
    internal FrameLocation(in SourceLocation location, int stateMachineMethod)
    {
        Location = location;
        StateMachineMethod = stateMachineMethod;
    }

    /// <summary>The source span that answers the frame.</summary>
    public SourceLocation Location { get; }

    /// <summary>
    /// The MethodDef token of the state machine's method (an async method's <c>MoveNext</c>, an
    /// iterator's <c>MoveNext</c> or another of its methods) whose points answered, or 0 when the
    /// frame's own token answered.
    /// </summary>
    public int StateMachineMethod { get; }

    /// <summary>"file:line:column", as <see cref="SourceLocation.ToString"/>.</summary>
    public override string ToString() => Location.ToString();
}
