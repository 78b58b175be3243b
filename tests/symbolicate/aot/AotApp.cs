// AotApp.cs - the program of tests/symbolicate/aot.sh's two-run case: calls into AotLib.cs
// (compiled ahead of time separately) and prints each exception as the runtime formats it.
using System;

namespace Ilmap.AotApp
{
    public static class Program
    {
        public static int Main()
        {
            try
            {
                Ilmap.AotLib.Thrower.Go(3);
                return 1;
            }
            catch (Exception e)
            {
                Console.WriteLine("== lib");
                Console.WriteLine(e.ToString());
            }
            try
            {
                Ilmap.AotLib.Thrower.Pass("x", 5);
                return 1;
            }
            catch (Exception e)
            {
                Console.WriteLine("== lib-generic");
                Console.WriteLine(e.ToString());
            }
            return 0;
        }
    }
}
