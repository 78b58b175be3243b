using System;

namespace Ilmap.Corpus.Features
{
    public static class LineDirectives
    {
        // One method whose sequence points come from three documents.
        public static int SeveralDocuments(int x)
        {
            int y = x + 1;
#line 10 "Generated/Template.tt"
            y = y * 2;
            y = y - 3;
#line 500 "Other.cs"
            y = y ^ 0x55;
#line default
            return y;
        }

        // Hidden sequence points inside a method body.
        public static int HiddenRegion(int x)
        {
            int y = x;
#line hidden
            y += 10;
            y *= 3;
#line default
            y -= 1;
            return y;
        }

        // Line numbers above 100000.
        public static int HighLines(int x)
        {
#line 100001
            int y = x + 100001;
#line 123456
            y = y * 7;
#line 16000000
            y = y - 1;
#line default
            return y;
        }

        // C# 10 span form of #line: maps a span of this line to (3,1)-(3,40) of a "razor" file,
        // with a character offset.
        public static string SpanLine(string s)
        {
#line (3, 1) - (3, 40) 13 "Views/Page.razor"
            string t = s.ToUpperInvariant();
#line default
            return t;
        }
    }
}
