// AotLib.cs - a library that tests/symbolicate/aot.sh compiles ahead of time in a run of its
// own (its .msym under its own AOT id), called by AotApp.cs (another run): the runtime prints
// the program's AOT id in this library's frames too (docs/msym.md section 3).
using System;

namespace Ilmap.AotLib
{
    public static class Thrower
    {
        public static void Go(int n)
        {
            var message = "lib " + n;
            if (n > 0)
                throw new InvalidOperationException(message);
        }

        public static T Pass<T>(T value, int n) where T : class
        {
            Go(n);
            return value;
        }
    }
}
