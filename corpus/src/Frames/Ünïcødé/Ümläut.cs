namespace Ilmap.Corpus.Frames
{
    public static class Ümläut
    {
        public static void Wirf(int n)
        {
            string grüße = "Grüße " + n;
            Scenarios.Fail(grüße);
        }
    }
}
