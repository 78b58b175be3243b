namespace Ilmap.Corpus.EmbeddedSources { public static class Tiny { public static int One() { return 1; } } }
