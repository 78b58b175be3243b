// DocumentsWriter.h - the documents of a cache: the hot part at the root (path, URL, language),
// the rest in the nested Details buffer.
//
// Implements SPEC.md 3.3 (DocumentRef: offsets into the deduplicated strings), 3.4 (Details:
// each document's language and hash GUIDs and hash, the SourceLink entries, embedded sources)
// and the URL side of 3.5 (each document's URL resolved at compile time: SourceLink, else the
// Windows PDB's srcsrv stream, else a package's source-store URL).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "compiler/CacheBuilder.h"
#include "decode/Guids.h"
#include "decode/PortablePdb.h"
#include "decode/SourceLink.h"
#include "ilmap/status.h"
#include "ilmap_generated.h"

namespace ilmap {

// The schema's Guid struct from a decoded GUID.
inline fb::Guid to_fb(const Guid& g) { return fb::Guid(flatbuffers::span<const std::uint8_t, 16>(g.data(), 16)); }

// The hot part of the documents: one DocumentRef per document, in document order, and the
// paths and URLs they point into, each distinct text stored once (first use first).
struct DocumentTable {
  std::vector<fb::DocumentRef> refs;
  std::vector<std::uint8_t> strings;
  bool package_urls = false;  // some URL came from `package_urls` (Identity.package_source_urls)
};

// The document table of `docs`. Each document's URL: `sourcelink` mapping its path, else its
// entry of `srcsrv_urls`, else its entry of `package_urls` (null: none; "" entries: none). The
// URLs share `name_budget` (bytes): every URL repeats its entry's URL prefix, so a large prefix
// times many documents could otherwise grow without bound.
Result<DocumentTable> build_document_table(const std::vector<Document>& docs, const SourceLinkMap* sourcelink,
                                           const std::vector<std::string>& srcsrv_urls,
                                           const std::vector<std::string>* package_urls, std::size_t name_budget);

// The nested Details buffer: cold per-document data, SourceLink entries, and with
// opt.embed_sources the embedded sources of `pdb` (null for a Windows PDB: it has none).
// `holds_sources` tells whether it holds any; `stats` (may be null) gets the embedded source
// counters.
Result<std::vector<std::uint8_t>> build_details(const PortablePdb* pdb, const std::vector<Document>& docs,
                                                const SourceLinkMap* sourcelink, const CacheBuildOptions& opt,
                                                bool& holds_sources, CacheStats* stats);

}  // namespace ilmap
