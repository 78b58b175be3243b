namespace Ilmap.Corpus.WindowsPaths
{
    // A document whose path has spaces (and, after PathMap, backslashes).
    public static class Spaced
    {
        public static string Join(string a, string b)
        {
            return a + " " + b;
        }
    }
}
