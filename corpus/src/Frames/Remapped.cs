namespace Ilmap.Corpus.Frames
{
    public static class Remapped
    {
        public static int Run(int x)
        {
            int y = x + 1;
#line 300 "Templates/Remapped.tt"
            y = y * 3;
            Scenarios.Fail("remapped " + y);
#line default
            return y;
        }

        public static int HighLine(int x)
        {
#line 100001
            int y = x + 2;
            Scenarios.Fail("high line " + y);
#line default
            return y;
        }

        public static int LongLine(int x)
        {
            int y0 = x; int y1 = y0 + 1; int y2 = y1 + 2; int y3 = y2 + 3; int y4 = y3 + 4; int y5 = y4 + 5; int y6 = y5 + 6; int y7 = y6 + 7; int y8 = y7 + 8; int y9 = y8 + 9; int y10 = y9 + 10; int y11 = y10 + 11; int y12 = y11 + 12; int y13 = y12 + 13; int y14 = y13 + 14; int y15 = y14 + 15; int y16 = y15 + 16; int y17 = y16 + 17; int y18 = y17 + 18; int y19 = y18 + 19; int y20 = y19 + 20; int y21 = y20 + 21; int y22 = y21 + 22; int y23 = y22 + 23; int y24 = y23 + 24; int y25 = y24 + 25; int y26 = y25 + 26; int y27 = y26 + 27; int y28 = y27 + 28; int y29 = y28 + 29; int y30 = y29 + 30; if (y30 > 0) Scenarios.Fail("long line"); return y30;
        }
    }
}
