// Breakpoint binding cases. Each "[name]" marker in a comment names its line;
// tests/breakpoints/expected.tsv lists where a breakpoint set on a marked line binds.
// Keep every marker on its own physical line: the tests look lines up by marker.
using System;
using System.Collections.Generic;

namespace Ilmap.Corpus.Breakpoints
{
    class Counter
    {
        int seed = 7; // [field]

        public Counter()
        {
            int k = seed + 1; // [ctor-body]
            Console.WriteLine(k);
        }

        public Counter(int k)
        {
            Console.WriteLine(k + seed);
        }
    }

    public static class Program
    {
        public static void Run(string[] args)
        {
// [gap-a]
// [gap-b]
            Console.WriteLine( // [two-line]
                "first statement"); // [two-line-second]

// [comment-only]
            /* a block comment */
            Console.WriteLine("after the comments"); // [after-comments]

            Console.WriteLine( // [two-line-b]
                "third statement"); // [two-line-b-second]

            Elsewhere.Program.Work();

            // [before-local1]
            void Local1()
            { // [local1-open]
                Console.WriteLine("local 1");
                // [local1-blank]
            } // [local1-close]
            Local1();

            // [before-local2]
            void Local2()
            { // [local2-open]
                Console.WriteLine("local 2"); // [local2-stmt]
            }
            Local2();

            // [before-stmt]
            Console.WriteLine("main again"); // [stmt]

            void Local3()
            {
                Console.WriteLine("local 3"); // [local3-stmt]
            }
            Local3();

            void Local4() { }; void Local5() { }; // [two-locals]
            Local4();

            void Local6() {
            }; void Local7() { }; // [close-then-local]
            Local6();

            void Local8() { }; void Local9() {
            }; void Local10() { }; // [close-then-local-b]
            Local9();

            void Local11() { void Local12() { void Local13() {
                // [deep-blank]
            }; // [deep-close]
            Local13(); };
            Local12(); };
            Local11();

            Console.WriteLine("before"); void Local14() { // [stmt-then-local]
            Console.WriteLine("inside");
            }; // [local14-close]
            Local14(); // [local14-call]

            List<string> items = new List<string>();
            items.Add("1");
            items.Add("2");

            items.ForEach((string item) => { // [lambda-line]
                Console.WriteLine(item); // [lambda-body]
            }); // [lambda-close]

            items.ForEach(delegate (string item) { // [delegate-line]
                // [delegate-blank]
                Console.WriteLine(item); // [delegate-body]
            }); // [delegate-close]

            int plain = 23; // [plain]
            Counter a = new Counter();
            Counter b = new Counter(plain);

            while (true) // [loop]
            {
                break; // [loop-break]
            }
        }
    }
}
