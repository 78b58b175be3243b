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
    }

    public static class Program
    {
        public static int Main()
        {
            for (int which = 0; which < 5; which++)
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
                    default: new BufferedSink().Write(new MemoryStream()); break;
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
