// Library.cs - the library half of tests/symbolicate/callee.sh: overloads of one name that call
// another overload of that name (Reader.M), and overloads that call a method of one name on their
// own type or on its base type (BufferedSink.Write -> BufferedSink.Send / Sink.Send). A caller
// frame of these is told apart only by WHICH method it calls, not by the name it calls.
// The overload pairs have the same IL shape, so the IL offset Mono prints for a caller is an
// instruction start in each of them; the throwing methods are longer than their callers, so the
// throw's offset is in no caller's body.
using System;
using System.IO;
using System.Runtime.CompilerServices;

namespace Ilmap.Callee
{
    public sealed class Options
    {
        public static readonly Options Default = new Options();
        public int Limit = 3;
    }

    public static class Reader
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int M(string path)
        {
            return M(Open(path));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int M(Stream stream)
        {
            return M(stream, Defaults());
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int M(Stream stream, Options options)
        {
            int total = 0;
            for (int i = 0; i < options.Limit; i++)
                total += stream.ReadByte() + 1;
            throw new InvalidOperationException("M(Stream, Options) read " + total);
        }

        // Generic methods of one name, called through MethodSpecs (App.cs, Client.All).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Each<T>(T item, string path)
        {
            return M(path);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Each<T>(T item, Stream stream)
        {
            return M(stream);
        }

        // Overloads whose statements have one span (#line, as generated code has): a frame of
        // either gives that span, so it resolves without saying which of the two it was, and its
        // caller (App.cs, Client.Pair) must not be decided by a guess.
#line 200
        [MethodImpl(MethodImplOptions.NoInlining)] public static int Two(long x) { return M(x.ToString()); }
#line 200
        [MethodImpl(MethodImplOptions.NoInlining)] public static int Two(char x) { return M(x.ToString()); }
#line default

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static Stream Open(string path)
        {
            return new MemoryStream(new byte[path.Length]);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static Options Defaults()
        {
            return Options.Default;
        }
    }

    // Overloads of a generic type calling its other overloads: MemberRefs whose parent is the
    // TypeSpec Box`1<!0>, compared by the generic type definition.
    public class Box<T>
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Put(T item, string tag)
        {
            return Put(item, Parse(tag));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Put(T item, Stream stream)
        {
            return Put(item, Count(stream));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Put(T item, Options options)
        {
            int total = 0;
            for (int i = 0; i < options.Limit; i++)
                total += item.GetHashCode() & 1;
            throw new ArgumentException("Box.Put(T, Options) " + total);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Put(T item, int count)
        {
            int total = 0;
            for (int i = 0; i < count; i++)
                total += item.GetHashCode() & 1;
            total += count;
            throw new ArgumentOutOfRangeException("count", "Box.Put(T, Int32) " + total);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static Options Parse(string tag)
        {
            return tag.Length > 0 ? Options.Default : null;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Count(Stream stream)
        {
            return (int)stream.Length + 2;
        }
    }

    public class Sink
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Send(Stream stream, Options options)
        {
            int total = 0;
            for (int i = 0; i < options.Limit; i++)
                total += stream.ReadByte() + 1;
            throw new NotSupportedException("Sink.Send read " + total);
        }

        // Overridden by BufferedSink: a caller's callvirt names this method, the frame above is
        // the override (another token, another type): the call is judged by its name.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public virtual int Flush(Stream stream)
        {
            return 0;
        }
    }

    public class BufferedSink : Sink
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Write(string text)
        {
            Send(Reader.Open(text), Reader.Defaults());
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public void Write(Stream stream)
        {
            base.Send(Wrap(stream), Reader.Defaults());
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public new void Send(Stream stream, Options options)
        {
            int total = 0;
            for (int i = 0; i < options.Limit; i++)
                total += stream.ReadByte() + 2;
            throw new NotImplementedException("BufferedSink.Send read " + total);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public override int Flush(Stream stream)
        {
            int total = 0;
            for (int i = 0; i < 4; i++)
                total += stream.ReadByte() + 3;
            throw new IOException("BufferedSink.Flush read " + total);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static Stream Wrap(Stream stream)
        {
            return stream;
        }
    }
}
