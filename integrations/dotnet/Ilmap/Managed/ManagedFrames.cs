// ManagedFrames: a stack frame's answer with the state-machine fallback, SPEC.md 6.4 steps 1-5.
// CoreCLR prints a frame of an async or iterator method's state machine under the kickoff
// method's token with the IL offset of the state machine's MoveNext, which the kickoff
// method's own points (section 6) do not cover. The state machine's methods are found by name
// (6.1): each has an alias entry in the name index under its kickoff method's key, which is
// the kickoff's CoreCLR text cut as step 3 says. The same rule as the C++ reader's
// Cache::lookup_frame (the agreement tests compare them at every offset of every method).
using System;
using System.Collections.Generic;

namespace Ilmap.Managed;

internal sealed partial class ManagedCache
{
    // Per thread, reused: a frame lookup allocates nothing once they grew.
    [ThreadStatic]
    static List<uint>? t_frameTokens;

    [ThreadStatic]
    static byte[]? t_frameKey;

    public override bool TryLookupFrame(uint token, uint ilOffset, ReadOnlySpan<byte> printed, out SourceLocation location,
                                        out uint stateMachineMethod)
    {
        Alive();
        stateMachineMethod = 0;
        // Step 1: the frame's own answer, when there is one.
        if (TryLookup(token, ilOffset, out location))
            return true;
        // Step 2: the token's names must be readable and it must not itself be a state machine's
        // method. (A row from a token is below 2^24.)
        NameTables? t;
        try
        {
            t = Names();
        }
        catch (IlmapException)
        {
            return false; // the names do not unpack: no method has names
        }
        int own = t == null ? -1 : RefIndex(t, token);
        if (own < 0 || !NameRangesValid(t!, own, 2) || Kickoff(t!, own) != 0)
            return false;
        // Step 3: n, and S = the methods name lookup finds for n whose names read and whose
        // kickoff is the token (kept in name lookup's ascending order), narrowed by the printed text.
        NameText(t!, own, 0, out ReadOnlySpan<byte> text);
        byte[] buffer = t_frameKey is { } b && b.Length >= text.Length ? b : (t_frameKey = new byte[Math.Max(text.Length, 256)]);
        ReadOnlySpan<byte> key = buffer.AsSpan(0, FrameKey(text, buffer));
        List<uint> found = t_frameTokens ??= new List<uint>();
        FindMethods(t!, key, found);
        int answerDocument = -1;
        foreach (uint u in found)
        {
            int m = RefIndex(t!, u);
            if (m < 0 || !NameRangesValid(t!, m, 2) || Kickoff(t!, m) != token)
                continue;
            if (!printed.IsEmpty && !(NameText(t!, m, 0, out ReadOnlySpan<byte> coreclr) && coreclr.SequenceEqual(printed)))
                continue;
            // Step 4: the first answer wins; a later one with another document path, start line
            // or start column means the methods disagree, and there is no answer.
            if (!LookupRow(u & 0xFFFFFF, ilOffset, out SourceLocation answer, out int document))
                continue;
            if (answerDocument < 0)
            {
                location = answer;
                answerDocument = document;
                stateMachineMethod = u;
            }
            else if (answer.Line != location.Line || answer.Column != location.Column
                     || (document != answerDocument && !DocumentPathBytes(document).SequenceEqual(DocumentPathBytes(answerDocument))))
            {
                location = default;
                stateMachineMethod = 0;
                return false;
            }
        }
        // Step 5: no method answered, no answer.
        return answerDocument >= 0;
    }

    /// <summary>
    /// Step 3's name n of a CoreCLR text, written to <paramref name="output"/> (at least the text's
    /// length): the text cut before its first '(' (and one space before the cut, if any), every
    /// bracketed part "[…]" removed (nested brackets counted; a ']' without its '[' dropped, and
    /// everything after an unclosed '['), each '+' replaced by '.'. Returns the length written.
    /// </summary>
    internal static int FrameKey(ReadOnlySpan<byte> text, Span<byte> output)
    {
        int paren = text.IndexOf((byte)'(');
        if (paren >= 0)
        {
            text = text[..paren];
            if (!text.IsEmpty && text[^1] == (byte)' ')
                text = text[..^1];
        }
        int length = 0, depth = 0;
        foreach (byte c in text)
        {
            if (c == (byte)'[')
                depth++;
            else if (c == (byte)']')
                depth = depth > 0 ? depth - 1 : 0;
            else if (depth == 0)
                output[length++] = c == (byte)'+' ? (byte)'.' : c;
        }
        return length;
    }
}
