namespace Ilmap.Corpus.WindowsPaths
{
    public static class Calculator
    {
        public static int Gcd(int a, int b)
        {
            while (b != 0)
            {
                int t = a % b;
                a = b;
                b = t;
            }
            return a;
        }

        public static long Factorial(int n)
        {
            return n <= 1 ? 1 : n * Factorial(n - 1);
        }
    }
}
