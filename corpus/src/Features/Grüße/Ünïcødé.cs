namespace Ilmap.Corpus.Features
{
    // A document whose path has non-ASCII characters (folder and file name).
    public static class Grüße
    {
        public static string Hallo(string wer)
        {
            string gruß = "Grüß Gott, " + wer;
            return gruß + " — ½ € ✓";
        }

        public static int Zähle(int n)
        {
            int summe = 0;
            for (int i = 0; i < n; i++)
            {
                summe += i;
            }
            return summe;
        }
    }
}
