// pdb_probe.cpp - test helper: finds byte offsets inside a Portable PDB with ilmap's own decoder
// so that CLI tests can truncate or patch a copy at a meaningful place.
//
//   ilmap_test_pdb_probe PDB
// prints, one key=value per line (all offsets absolute in the file, decimal):
//   blob_heap_offset, blob_heap_size  - the #Blob stream
//   method_rid                        - a MethodDebugInformation row with sequence points whose
//                                       #Blob offset no other row uses (so patching its blob
//                                       breaks exactly one method); the median such row
//   sp_blob_offset, sp_blob_length    - the bytes of that row's sequence-points blob
// Exit 0 on success, 2 if the file cannot be read or has no such method.
#include <cstdio>
#include <map>
#include <vector>

#include "decode/PortablePdb.h"

int main(int argc, char** argv) {
  using namespace ilmap;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PDB\n", argv[0]);
    return 1;
  }
  std::FILE* f = std::fopen(argv[1], "rb");
  if (!f) {
    std::perror(argv[1]);
    return 2;
  }
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[1 << 16];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.insert(bytes.end(), buf, buf + n);
  std::fclose(f);
  auto pdb = PortablePdb::parse(bytes);
  if (!pdb) {
    std::fprintf(stderr, "%s: %s\n", argv[1], pdb.error().message.c_str());
    return 2;
  }
  const Metadata& md = pdb->metadata();
  std::printf("blob_heap_offset=%zu\nblob_heap_size=%zu\n", md.blob_heap_offset(),
              md.stream_size("#Blob"));
  std::map<std::uint32_t, unsigned> uses;
  for (std::uint32_t rid = 1; rid <= pdb->method_count(); ++rid)
    ++uses[md.column(kMethodDebugInformation, rid, 1)];
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t rid = 1; rid <= pdb->method_count(); ++rid) {
    const std::uint32_t off = md.column(kMethodDebugInformation, rid, 1);
    std::vector<SequencePoint> pts;
    if (off != 0 && uses[off] == 1 && pdb->sequence_points(rid, pts) && !pts.empty())
      candidates.push_back(rid);
  }
  if (candidates.empty()) {
    std::fprintf(stderr, "%s: no method with a sequence-points blob of its own\n", argv[1]);
    return 2;
  }
  const std::uint32_t rid = candidates[candidates.size() / 2];
  auto blob = md.blob(md.column(kMethodDebugInformation, rid, 1));
  if (!blob) return 2;
  std::printf("method_rid=%u\nsp_blob_offset=%zu\nsp_blob_length=%zu\n", rid,
              static_cast<std::size_t>(blob->data() - bytes.data()), blob->size());
  return 0;
}
