// SchemaCheck: which field of which table FlatCheck verifies as what (SPEC.md Appendix A, the
// schema; section 7 open step 11 for the payload, "Details" for the nested buffer). Field ids
// are the schema's; deprecated fields (Cache.method_offsets, Names.index) are not verified.
namespace Ilmap.Managed;

internal static class SchemaCheck
{
    /// <summary>The payload as a Cache buffer with file identifier ILMP.</summary>
    public static bool Cache(FlatCheck c, out int root)
    {
        if (!c.Root("ILMP", out root))
            return false;
        int t = root;
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.TableField(t, vt, 0, "identity", x => Identity(c, x))
            && c.VectorField(t, vt, 1, 20, "documents")
            && c.VectorField(t, vt, 2, 1, "strings")
            && c.VectorField(t, vt, 4, 1, "point_blocks")
            && c.ScalarField(t, vt, 5, 8, "point_count")
            && c.ScalarField(t, vt, 6, 8, "hidden_count")
            && c.VectorField(t, vt, 7, 1, "details")
            && c.TableField(t, vt, 8, "names", x => Names(c, x))
            && c.TableField(t, vt, 9, "lines", x => LineIndex(c, x))
            && c.ScalarField(t, vt, 10, 4, "method_rows")
            && c.VectorField(t, vt, 11, 8, "method_groups")
            && c.VectorField(t, vt, 12, 2, "block_ends")
            && c.VectorField(t, vt, 13, 2, "block_ends_high")
            && c.VectorField(t, vt, 14, 1, "strings_zstd")
            && c.VectorField(t, vt, 15, 1, "details_zstd")
            && c.VectorField(t, vt, 16, 8, "block_profiles")
            && c.VectorField(t, vt, 17, 1, "block_profile_index")
            && c.VectorField(t, vt, 18, 20, "hidden_points");
        c.EndTable();
        return ok;
    }

    static bool Identity(FlatCheck c, int t)
    {
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.VectorField(t, vt, 0, 1, "pdb_id")
            && c.ScalarField(t, vt, 1, 4, "entry_point")
            && c.StringField(t, vt, 2, "pdb_key")
            && c.StringField(t, vt, 3, "debug_id")
            && c.StringField(t, vt, 4, "pe_name")
            && c.ScalarField(t, vt, 5, 4, "pe_timestamp")
            && c.ScalarField(t, vt, 6, 4, "pe_size_of_image")
            && c.StringField(t, vt, 7, "pe_key")
            && c.StringField(t, vt, 8, "code_id")
            && c.StructField(t, vt, 9, 16, "mvid")
            && c.TableVectorField(t, vt, 10, "codeview", x => CodeView(c, x))
            && c.StringVectorField(t, vt, 11, "pdb_checksums")
            && c.ScalarField(t, vt, 12, 8, "source_xxh3")
            && c.ScalarField(t, vt, 13, 8, "source_size")
            && c.StringField(t, vt, 14, "compiler_version")
            && c.StringField(t, vt, 15, "source_name")
            && c.ScalarField(t, vt, 16, 1, "holds_embedded_sources")
            && c.VectorField(t, vt, 17, 1, "pdb_sha256")
            && c.ScalarField(t, vt, 18, 1, "package_source_urls");
        c.EndTable();
        return ok;
    }

    static bool CodeView(FlatCheck c, int t)
    {
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.StructField(t, vt, 0, 16, "guid")
            && c.ScalarField(t, vt, 1, 4, "age")
            && c.ScalarField(t, vt, 2, 4, "stamp")
            && c.StringField(t, vt, 3, "path")
            && c.ScalarField(t, vt, 4, 1, "portable");
        c.EndTable();
        return ok;
    }

    static bool Names(FlatCheck c, int t)
    {
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.StructField(t, vt, 0, 16, "mvid")
            && c.StringField(t, vt, 1, "assembly_name")
            && c.StringField(t, vt, 2, "module_name")
            && c.VectorField(t, vt, 3, 32, "methods")
            && c.VectorField(t, vt, 4, 1, "names.strings")
            && c.VectorField(t, vt, 6, 1, "names.strings_zstd")
            && c.VectorField(t, vt, 7, 1, "methods_zstd");
        c.EndTable();
        return ok;
    }

    static bool LineIndex(FlatCheck c, int t)
    {
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.VectorField(t, vt, 0, 4, "doc_blocks")
            && c.VectorField(t, vt, 1, 8, "blocks")
            && c.VectorField(t, vt, 2, 1, "data")
            && c.ScalarField(t, vt, 3, 8, "entry_count")
            && c.VectorField(t, vt, 4, 1, "index_zstd");
        c.EndTable();
        return ok;
    }

    /// <summary>The nested Details buffer (no file identifier).</summary>
    public static bool Details(FlatCheck c, out int root)
    {
        if (!c.Root(null, out root))
            return false;
        int t = root;
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.TableVectorField(t, vt, 0, "details.documents", x => DocumentDetails(c, x))
            && c.TableVectorField(t, vt, 1, "source_link", x => SourceLinkEntry(c, x))
            && c.TableVectorField(t, vt, 2, "embedded_sources", x => EmbeddedSource(c, x));
        c.EndTable();
        return ok;
    }

    static bool DocumentDetails(FlatCheck c, int t)
    {
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.StructField(t, vt, 0, 16, "language_guid")
            && c.ScalarField(t, vt, 1, 1, "hash_algorithm")
            && c.StructField(t, vt, 2, 16, "hash_algorithm_guid")
            && c.VectorField(t, vt, 3, 1, "hash");
        c.EndTable();
        return ok;
    }

    static bool SourceLinkEntry(FlatCheck c, int t)
    {
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.StringField(t, vt, 0, "key")
            && c.ScalarField(t, vt, 1, 1, "prefix")
            && c.StringField(t, vt, 2, "url")
            && c.StringField(t, vt, 3, "url_suffix");
        c.EndTable();
        return ok;
    }

    static bool EmbeddedSource(FlatCheck c, int t)
    {
        if (!c.Table(t, out int vt))
            return false;
        bool ok = c.ScalarField(t, vt, 0, 4, "document")
            && c.ScalarField(t, vt, 1, 8, "uncompressed_size")
            && c.VectorField(t, vt, 2, 1, "zstd");
        c.EndTable();
        return ok;
    }
}
