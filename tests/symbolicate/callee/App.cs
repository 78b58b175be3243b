// App.cs - the caller half of tests/symbolicate/callee.sh, in another assembly: overloads of
// Client.Load, each calling another overload of the library's Reader.M (through MemberRefs of
// this module, compared with the library's MethodDefs by type, name and signature), and the
// scenarios that throw through them; each exception printed as the runtime formats it.
using System;
using System.IO;
using System.Runtime.CompilerServices;
using Ilmap.Callee;

namespace Ilmap.Callee.App
{
    public static class Client
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Load(string path)
        {
            return Reader.M(path);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Load(Stream stream)
        {
            return Reader.M(stream);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Load(Stream stream, Options options)
        {
            return Reader.M(stream, options);
        }

        // Box<int>.Put overloads: MemberRefs on the TypeSpec Box`1<int> of the library's type.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fill(string tag)
        {
            return new Box<int>().Put(1, tag);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fill(Stream stream)
        {
            return new Box<int>().Put(1, stream);
        }

        // Reader.Each<int> overloads: MethodSpecs of the library's generic methods.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int All(string path)
        {
            return Reader.Each<int>(1, path);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int All(Stream stream)
        {
            return Reader.Each<int>(1, stream);
        }

        // Sink.Flush by callvirt (the override in BufferedSink throws) vs a call of another name.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Drain(Sink sink)
        {
            return sink.Flush(Stream.Null);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Drain(Stream stream)
        {
            return stream.ReadByte();
        }

        // Reader.Two overloads, which share a line: undecidable (the frame above is either).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Pair(char x)
        {
            return Reader.Two(x);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Pair(long x)
        {
            return Reader.Two(x);
        }
    }

    public static class Program
    {
        public static int Main()
        {
            for (int which = 0; which < 11; which++)
                Run(which);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Run(int which)
        {
            try
            {
                switch (which)
                {
                    case 0: Client.Load("data.bin"); break;
                    case 1: Client.Load(new MemoryStream()); break;
                    case 2: Client.Load(new MemoryStream(), Options.Default); break;
                    case 3: new BufferedSink().Write("text"); break;
                    case 4: new BufferedSink().Write(new MemoryStream()); break;
                    case 5: Client.Fill("tag"); break;
                    case 6: Client.Fill(new MemoryStream()); break;
                    case 7: Client.All("data.bin"); break;
                    case 8: Client.All(new MemoryStream()); break;
                    case 9: Client.Drain(new BufferedSink()); break;
                    default: Client.Pair('c'); break;
                }
                Console.WriteLine("== " + which + ": did not throw");
            }
            catch (Exception e)
            {
                Console.WriteLine("== " + which);
                Console.WriteLine(e.ToString());
            }
        }
    }
}
