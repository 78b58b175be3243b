// SweepTest.cpp - truncate/flip sweeps over real inputs: standalone PDBs, PEs with an embedded
// PDB, a PE with a sibling PDB, and a cache compiled from a PDB. Every mutant goes through the
// whole in-process path (HostileSupport.h); every outcome must be success or a clean Error.
// Large files get a dense sample (all header bytes, an even spread of the rest) so each test
// stays well under two minutes in the ASan+UBSan build.
#include <chrono>

#include "HostileSupport.h"
#include "compiler/NamesSection.h"

namespace ilmap::hostile {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = ILMAP_HOSTILE_CORPUS;       // corpus/out
const fs::path kShared = ILMAP_HOSTILE_SHARED;       // ../shared (may be absent)

constexpr std::size_t kBudget = 16384;  // positions per kind (truncate, flip) per file: every byte of files up to 16 KiB

enum class Kind { kPdb, kPe, kCache };

struct SweepStats {
  std::size_t mutants = 0, succeeded = 0;
};

bool run_one(Kind kind, std::span<const std::uint8_t> b, const Bytes* sibling, const std::string& where) {
  switch (kind) {
    case Kind::kPdb: return exercise_pdb_bytes(b, where);
    case Kind::kPe: return exercise_pe_bytes(b, sibling, where);
    case Kind::kCache: return exercise_cache(b, where);
  }
  return false;
}

SweepStats sweep(Kind kind, const Bytes& original, const std::string& name, const Bytes* sibling = nullptr) {
  SweepStats st;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(run_one(kind, original, sibling, name + " (intact)")) << name << ": the intact input must work";
  for (std::size_t n : sweep_positions(original.size(), kBudget)) {
    st.succeeded += run_one(kind, std::span(original).first(n), sibling, name + " truncated to " + std::to_string(n));
    ++st.mutants;
    if (::testing::Test::HasFailure()) return st;
  }
  Bytes m = original;
  for (std::size_t i : sweep_positions(original.size(), kBudget)) {
    for (std::uint8_t x : {std::uint8_t(0xFF), std::uint8_t(0x01)}) {
      m[i] ^= x;
      st.succeeded += run_one(kind, m, sibling, name + " byte " + std::to_string(i) + " ^= " + std::to_string(x));
      m[i] ^= x;
      ++st.mutants;
    }
    if (::testing::Test::HasFailure()) return st;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %zu bytes, %zu mutants, %zu succeeded, %.1f s\n", name.c_str(), original.size(),
              st.mutants, st.succeeded, secs);
  return st;
}

Bytes load_or_skip(const fs::path& p) {
  if (!fs::exists(p)) return {};
  return read_file(p);
}

#define LOAD(var, path)                                        \
  const Bytes var = load_or_skip(path);                        \
  if (var.empty()) GTEST_SKIP() << "missing " << (path);

TEST(Sweep, StandalonePdbFrames) {
  LOAD(b, kCorpus / "cs-frames/Ilmap.Corpus.Frames.pdb");
  sweep(Kind::kPdb, b, "cs-frames.pdb");
}

TEST(Sweep, StandalonePdbSourceLinkAndEmbeddedSources) {
  LOAD(a, kCorpus / "cs-sourcelink/Ilmap.Corpus.Shapes.pdb");
  sweep(Kind::kPdb, a, "cs-sourcelink.pdb");
  LOAD(b, kCorpus / "cs-embedded-sources/Ilmap.Corpus.EmbeddedSources.pdb");
  sweep(Kind::kPdb, b, "cs-embedded-sources.pdb");
}

TEST(Sweep, StandalonePdbFSharpAndVb) {
  LOAD(a, kCorpus / "fs-basic/Ilmap.Corpus.FsBasic.pdb");
  sweep(Kind::kPdb, a, "fs-basic.pdb");
  LOAD(b, kCorpus / "vb-basic/Ilmap.Corpus.VbBasic.pdb");
  sweep(Kind::kPdb, b, "vb-basic.pdb");
}

TEST(Sweep, PublicCorpusPdbs) {
  const fs::path dir = kShared / "corpus-public";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no " << dir;
  // A few small ones with different producers (Cecil, AsmResolver, AltCover test assets).
  std::vector<fs::path> picks;
  for (const char* d : {"asmresolver_TheAnswer", "cecil_DocumentsTestTarget", "altcover_Sample6Classic",
                        "cecil_EmbeddedCompressedPdbTarget"}) {
    if (!fs::is_directory(dir / d)) continue;
    for (const auto& e : fs::directory_iterator(dir / d))
      if (e.path().extension() == ".pdb") picks.push_back(e.path());
  }
  if (picks.empty()) GTEST_SKIP() << "none of the picked corpus-public PDBs present";
  for (const fs::path& p : picks) {
    sweep(Kind::kPdb, read_file(p), p.filename().string());
    if (HasFailure()) return;
  }
}

TEST(Sweep, PeWithEmbeddedPdb) {
  LOAD(a, kCorpus / "cs-embedded-all/Ilmap.Corpus.EmbeddedAll.dll");
  sweep(Kind::kPe, a, "cs-embedded-all.dll");
}

TEST(Sweep, PeWithSiblingPdb) {
  LOAD(pe, kCorpus / "cs-sourcelink/Ilmap.Corpus.Shapes.dll");
  LOAD(pdb, kCorpus / "cs-sourcelink/Ilmap.Corpus.Shapes.pdb");
  sweep(Kind::kPe, pe, "cs-sourcelink.dll (+ sibling)", &pdb);
}

TEST(Sweep, CacheCompiledFromPdb) {
  LOAD(b, kCorpus / "cs-sourcelink/Ilmap.Corpus.Shapes.pdb");
  auto pdb = PortablePdb::parse(b);
  ASSERT_TRUE(pdb.ok());
  CacheSource cs;
  cs.pdb = &*pdb;
  cs.source_name = "Ilmap.Corpus.Shapes.pdb";
  auto cache = build_cache(cs, CacheBuildOptions{});
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  const SweepStats st = sweep(Kind::kCache, cache->to_vector(), "cs-sourcelink.ilmap");
  // Every flip inside the payload must be caught by verify (checksum): only the truncation to
  // the full size, and flips in header fields verify does not cover, may pass.
  EXPECT_LE(st.succeeded, 64u) << "verify() accepted too many corrupted caches";
}

// The same with method names (compiled with its PE, as `ilmap compile` does with the DLL beside):
// flips reach the packed method refs and texts and the derived name index.
TEST(Sweep, CacheCompiledWithNames) {
  LOAD(pe, kCorpus / "cs-sourcelink/Ilmap.Corpus.Shapes.dll");
  LOAD(b, kCorpus / "cs-sourcelink/Ilmap.Corpus.Shapes.pdb");
  auto pdb = PortablePdb::parse(b);
  ASSERT_TRUE(pdb.ok());
  auto names = build_names_section_from_pe(pe);
  ASSERT_TRUE(names.ok()) << names.error().message;
  CacheSource cs;
  cs.pdb = &*pdb;
  cs.names = &*names;
  cs.source_name = "Ilmap.Corpus.Shapes.pdb";
  auto cache = build_cache(cs, CacheBuildOptions{});
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  const SweepStats st = sweep(Kind::kCache, cache->to_vector(), "cs-sourcelink.ilmap (names)");
  EXPECT_LE(st.succeeded, 64u) << "verify() accepted too many corrupted caches";
}

}  // namespace
}  // namespace ilmap::hostile
