// The module identity, documents and embedded sources of a cache against what
// System.Reflection.Metadata reads from the PDB and the PE themselves.
using System;
using System.Buffers.Binary;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using Xunit;

namespace Ilmap.Tests;

public class IdentityTests
{
    static readonly Guid EmbeddedSourceKind = new("0e8a571b-6926-466e-b4ad-8ab04611f5fe");

    // What a symbol-store client computes from the PDB id (SSQP "Portable PDB" key; debug id as Sentry's).
    static (string DebugId, string PdbKey) Keys(string pdbPath, byte[] id)
    {
        var guid = new Guid(id.AsSpan(0, 16));
        uint stamp = BinaryPrimitives.ReadUInt32LittleEndian(id.AsSpan(16));
        string file = Path.GetFileName(pdbPath).ToLowerInvariant();
        return ($"{guid:D}-{stamp:x8}", $"{file}/{guid:N}FFFFFFFF/{file}");
    }

    [Theory]
    [MemberData(nameof(Corpus.NameData), MemberType = typeof(Corpus))]
    public void PdbIdentityIsThePdbs(string name)
    {
        using var srm = new SrmPdb(Corpus.PdbPath(name));
        byte[] id = srm.Reader.DebugMetadataHeader!.Id.ToArray();
        Assert.Equal(20, id.Length);
        var (debugId, pdbKey) = Keys(Corpus.PdbPath(name), id);
        using var cache = IlmapCache.Open(Corpus.CachePath(name));
        Assert.Equal(id, cache.PdbId.ToArray());
        Assert.Equal(debugId, cache.DebugId);
        Assert.Equal(pdbKey, cache.PdbKey);
        Assert.StartsWith($"ilmap {Corpus.IlmapVersion()}/format ", cache.CompilerVersion);
        // Compiled from the PDB: no PE identity.
        Assert.Null(cache.PeName);
        Assert.Null(cache.PeKey);
        Assert.Null(cache.CodeId);
    }

    [Theory]
    [MemberData(nameof(Corpus.NameData), MemberType = typeof(Corpus))]
    public void PeIdentityIsThePes(string name)
    {
        string pePath = Corpus.PePath(name);
        using var pe = new PEReader(File.OpenRead(pePath));
        var md = pe.GetMetadataReader();
        Guid mvid = md.GetGuid(md.GetModuleDefinition().Mvid);
        string codeId = $"{pe.PEHeaders.CoffHeader.TimeDateStamp:X8}{pe.PEHeaders.PEHeader!.SizeOfImage:x}";
        string file = Path.GetFileName(pePath);
        using var srm = new SrmPdb(Corpus.PdbPath(name));
        byte[] id = srm.Reader.DebugMetadataHeader!.Id.ToArray();

        using var cache = IlmapCache.Open(Corpus.CachePath(name, fromPe: true));
        Assert.Equal(file, cache.PeName);
        Assert.Equal(codeId, cache.CodeId);
        Assert.Equal($"{file.ToLowerInvariant()}/{codeId}/{file.ToLowerInvariant()}", cache.PeKey);
        Assert.Equal(mvid, cache.Mvid);
        Assert.Equal(id, cache.PdbId.ToArray());
        Assert.Equal(Keys(Corpus.PdbPath(name), id).DebugId, cache.DebugId);
    }

    [Theory]
    [InlineData("cs-embedded-sources")]
    [InlineData("cs-frames")]
    public void DocumentsAndEmbeddedSourcesAreThePdbs(string name)
    {
        using var srm = new SrmPdb(Corpus.PdbPath(name));
        var r = srm.Reader;
        using var cache = IlmapCache.Open(Corpus.CachePath(name, embedSources: true));
        Assert.Equal(r.Documents.Count, cache.DocumentCount);
        int withSource = 0;
        foreach (DocumentHandle h in r.Documents)
        {
            int index = MetadataTokens.GetRowNumber(h) - 1;
            Assert.Equal(r.GetString(r.GetDocument(h).Name), cache.DocumentPath(index));
            byte[]? want = EmbeddedSource(r, h);
            Assert.Equal(want, cache.EmbeddedSourceBytes(index));
            if (want == null)
            {
                Assert.Null(cache.EmbeddedSource(index));
                continue;
            }
            withSource++;
            using var text = new StreamReader(new MemoryStream(want), detectEncodingFromByteOrderMarks: true);
            Assert.Equal(text.ReadToEnd(), cache.EmbeddedSource(index));
        }
        Assert.Equal(name == "cs-embedded-sources", withSource > 0);
        Assert.Throws<ArgumentOutOfRangeException>(() => cache.DocumentPath(cache.DocumentCount));
        Assert.Throws<ArgumentOutOfRangeException>(() => cache.EmbeddedSourceBytes(-1));
        // Without --embed-sources the cache holds none.
        using var plain = IlmapCache.Open(Corpus.CachePath(name));
        for (int i = 0; i < plain.DocumentCount; i++)
            Assert.Null(plain.EmbeddedSourceBytes(i));
    }

    // The EmbeddedSource custom debug information of a document (Portable PDB spec): an int32
    // format (0 = stored as is, else the size deflated from), then the bytes.
    static byte[]? EmbeddedSource(MetadataReader r, DocumentHandle document)
    {
        foreach (var h in r.GetCustomDebugInformation(document))
        {
            var cdi = r.GetCustomDebugInformation(h);
            if (r.GetGuid(cdi.Kind) != EmbeddedSourceKind)
                continue;
            byte[] blob = r.GetBlobBytes(cdi.Value);
            int format = BinaryPrimitives.ReadInt32LittleEndian(blob);
            if (format == 0)
                return blob[4..];
            var output = new byte[format];
            using var inflate = new DeflateStream(new MemoryStream(blob, 4, blob.Length - 4), CompressionMode.Decompress);
            inflate.ReadExactly(output);
            return output;
        }
        return null;
    }
}
