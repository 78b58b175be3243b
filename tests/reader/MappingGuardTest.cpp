// MappingGuardTest.cpp - files that change under a reader.
//
// An input truncated while mapped must not kill the process once the SIGBUS guard is
// installed (reads see zeros, changed() says so, Status-returning calls fail with kIo); a
// cache truncated or rewritten while open keeps answering from its bytes at open (its read
// lease) and never gives a wrong answer as a success; a Cache read into memory is immune; a rewritten file is noticed by file_changed(); FIFOs are
// refused without blocking; unknown first bytes are refused before mapping; IL offsets from
// 2^31 on (the runtime's -1) give no answer. The cache comes from a PDB built byte by byte
// (TestEncoders.h), written to a temporary directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/CacheBuilder.h"
#include "support/FileBytes.h"
#include "decode/PortablePdb.h"
#include "tests/common/TestEncoders.h"
#include "ilmap/cache.h"
#include "ilmap/ilmap.h"
#include "ilmap/mapping_guard.h"

namespace ilmap::test {
namespace {

// One document "/src/a.cs", one method with one point: IL 0 -> 4:5-4:8.
Bytes small_pdb() {
  MiniPdb p;
  p.add_document(p.add_name('/', {"", "src", "a.cs"}));
  SpBlob sp;
  sp.u(0).u(0).u(0).u(3).u(4).u(5);
  p.add_method(1, p.blobs.add(sp.b));
  return p.image().build();
}

Bytes small_cache() {
  static const Bytes pdb_bytes = small_pdb();
  auto pdb = PortablePdb::parse(pdb_bytes);
  EXPECT_TRUE(pdb) << pdb.error().message;
  CacheSource src;
  src.pdb = &*pdb;
  auto bytes = build_cache(src, CacheBuildOptions{});
  EXPECT_TRUE(bytes) << bytes.error().message;
  return Bytes(bytes->data(), bytes->data() + bytes->size());
}

class TempDir {
 public:
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "ilmap-guard.XXXXXX").string();
    path_ = ::mkdtemp(t.data()) ? t : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const Bytes& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

class MappingGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(install_mapping_guard());
    cache_path_ = dir_.file("c.ilmap");
    write_file(cache_path_, small_cache());
  }
  TempDir dir_;
  std::string cache_path_;
};

TEST_F(MappingGuard, TruncatedCacheKeepsAnsweringFromItsBytes) {
  auto c = Cache::open(cache_path_);
  ASSERT_TRUE(c) << c.error().message;
  auto r = c->lookup(0x06000001, 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->file, "/src/a.cs");
  EXPECT_FALSE(c->changed());
  ASSERT_EQ(::truncate(cache_path_.c_str(), 0), 0);
  // The truncate waited for the lease-break handler to copy the mapping: the bytes at open.
  r = c->lookup(0x06000001, 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->file, "/src/a.cs");
  EXPECT_EQ(r->line, 4u);
  EXPECT_FALSE(c->changed());
  EXPECT_TRUE(c->verify()) << c->verify().message();
  std::vector<CachePoint> pts;
  EXPECT_TRUE(c->points(1, pts));
  EXPECT_TRUE(c->file_changed());
}

TEST_F(MappingGuard, CacheReadIntoMemoryIsImmune) {
  CacheOpenOptions o;
  o.read_into_memory = true;
  auto c = Cache::open(cache_path_, o);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(::truncate(cache_path_.c_str(), 0), 0);
  auto r = c->lookup(0x06000001, 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->file, "/src/a.cs");
  EXPECT_EQ(r->line, 4u);
  EXPECT_FALSE(c->changed());
  EXPECT_TRUE(c->verify()) << c->verify().message();
}

TEST_F(MappingGuard, CApiOpenExReadModeAndChanged) {
  int err = -1;
  char msg[256];
  ilmap_cache* bad = ilmap_open_ex(cache_path_.c_str(), 0x80, &err, msg, sizeof msg);
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(err, ILMAP_E_USAGE);
  ilmap_cache* mem = ilmap_open_ex(cache_path_.c_str(), ILMAP_OPEN_READ, &err, msg, sizeof msg);
  ASSERT_NE(mem, nullptr) << msg;
  ilmap_cache* map = ilmap_open_ex(cache_path_.c_str(), ILMAP_OPEN_MAP, &err, msg, sizeof msg);
  ASSERT_NE(map, nullptr) << msg;
  EXPECT_EQ(ilmap_install_mapping_guard(), 1);
  ASSERT_EQ(::truncate(cache_path_.c_str(), 0), 0);
  ilmap_location loc{};
  EXPECT_EQ(ilmap_lookup(mem, 0x06000001, 0, &loc), 1);
  EXPECT_EQ(ilmap_changed(mem), 0);
  ASSERT_EQ(ilmap_lookup(map, 0x06000001, 0, &loc), 1);
  EXPECT_EQ(std::string(loc.file, loc.file_len), "/src/a.cs");
  EXPECT_EQ(ilmap_changed(map), 0);
  EXPECT_EQ(ilmap_file_changed(map), 1);
  ilmap_close(mem);
  ilmap_close(map);
}

// `methods` methods in one document `doc`; method i has points IL 0, 4, 10 on lines
// first_line + k*i .. +2. Two such caches with other documents and lines answer differently
// for every query.
Bytes many_methods_cache(const std::string& doc, std::uint32_t methods, std::uint32_t first_line, std::uint32_t k) {
  MiniPdb p;
  p.add_document(p.add_name('/', {"", "src", doc}));
  for (std::uint32_t i = 1; i <= methods; ++i) {
    SpBlob sp;
    sp.u(0);                                              // local signature
    sp.u(0).u(0).u(3).u(first_line + k * i).u(5);         // IL 0: line L, columns 5-8
    sp.u(4).u(0).u(3).s(1).s(4);                          // IL 4: line L+1, columns 9-12
    sp.u(6).u(0).u(1).s(1).s(-8);                         // IL 10: line L+2, columns 1-2
    p.add_method(1, p.blobs.add(sp.b));
  }
  auto pdb_bytes = p.image().build();
  auto pdb = PortablePdb::parse(pdb_bytes);
  EXPECT_TRUE(pdb) << pdb.error().message;
  if (!pdb) return {};
  CacheSource src;
  src.pdb = &*pdb;
  auto bytes = build_cache(src, CacheBuildOptions{});
  EXPECT_TRUE(bytes) << bytes.error().message;
  return bytes ? Bytes(bytes->data(), bytes->data() + bytes->size()) : Bytes{};
}

struct Sweep {
  static constexpr std::uint32_t kOffsets[] = {0, 3, 4, 9, 10, 50};
  std::uint32_t rows = 0;
  std::vector<std::string> reference;  // per (row, offset): "file:line:col", "" for none

  static std::string text(const ilmap_location& l) {
    return std::string(l.file, l.file_len) + ":" + std::to_string(l.line) + ":" + std::to_string(l.column);
  }
  explicit Sweep(const Bytes& cache) {
    ilmap_cache* c = ilmap_open_bytes(cache.data(), cache.size(), nullptr, nullptr, 0);
    EXPECT_NE(c, nullptr);
    if (!c) return;
    rows = ilmap_method_count(c);
    for (std::uint32_t r = 1; r <= rows; ++r)
      for (std::uint32_t il : kOffsets) {
        ilmap_location loc{};
        reference.push_back(ilmap_lookup_row(c, r, il, &loc) ? text(loc) : std::string());
      }
    ilmap_close(c);
  }
  // Every query once: counts answers given as a success that differ from the reference.
  void run(const ilmap_cache* c, std::uint64_t& wrong, std::uint64_t& right, std::string& example) const {
    std::size_t i = 0;
    for (std::uint32_t r = 1; r <= rows; ++r)
      for (std::uint32_t il : kOffsets) {
        ilmap_location loc{};
        const std::string& want = reference[i++];
        if (!ilmap_lookup_row(c, r, il, &loc)) continue;  // no answer (ilmap_changed may say why)
        const std::string got = text(loc);
        if (got == want) {
          ++right;
        } else {
          if (!wrong) example = "row " + std::to_string(r) + " IL " + std::to_string(il) + ": got '" + got +
                                "', want '" + want + "', ilmap_changed " + std::to_string(ilmap_changed(c));
          ++wrong;
        }
      }
  }
};

void overwrite(const std::string& path, const Bytes& b, bool truncate_first) {
  const int fd = ::open(path.c_str(), O_WRONLY | (truncate_first ? O_TRUNC : 0));
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, b.data(), b.size(), 0), static_cast<ssize_t>(b.size()));
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(b.size())), 0);
  ::close(fd);
}

// The C API never answers wrongly from a mapped cache that is truncated to sizes that are not
// page multiples (the tail of the last page reads as zeros, no SIGBUS) or rewritten with
// another cache's bytes (in place or after O_TRUNC), neither between lookups nor while
// lookups run on other threads: a success always carries the answer of the bytes at open.
TEST_F(MappingGuard, TruncateAndRewriteNeverGiveWrongAnswers) {
  const Bytes a = many_methods_cache("a.cs", 3000, 10, 3), b = many_methods_cache("b.cs", 3000, 20000, 5);
  ASSERT_GT(a.size(), 3u * 4096) << "the sweep needs a cache of several pages";
  const Sweep sweep(a);
  ASSERT_EQ(sweep.rows, 3000u);
  const std::string path = dir_.file("sweep.ilmap");
  std::uint64_t wrong = 0, right = 0;
  std::string example;
  // Sizes that are not page multiples, inside the last page and in earlier ones.
  std::vector<std::size_t> sizes;
  for (std::size_t s : {a.size() - 1, a.size() - 7, a.size() / 4096 * 4096 + 1, a.size() / 2 + 123, std::size_t(4097),
                        std::size_t(4095), std::size_t(33), std::size_t(1)})
    sizes.push_back(s);
  for (std::size_t s = 17; s < a.size(); s += 1531) sizes.push_back(s % 4096 ? s : s + 1);
  for (std::size_t size : sizes) {
    write_file(path, a);
    ilmap_cache* c = ilmap_open(path.c_str(), nullptr, nullptr, 0);
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size)), 0);
    sweep.run(c, wrong, right, example);
    overwrite(path, b, false);  // in place over the truncated file
    sweep.run(c, wrong, right, example);
    overwrite(path, a, true);
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size)), 0);
    overwrite(path, b, true);
    sweep.run(c, wrong, right, example);
    ilmap_close(c);
  }
  EXPECT_EQ(wrong, 0u) << "first wrong answer: " << example;
  EXPECT_GT(right, 0u);

  // Lookups on two threads while the file is truncated and rewritten, alternately with b's
  // and a's bytes.
  write_file(path, a);
  ilmap_cache* c = ilmap_open(path.c_str(), nullptr, nullptr, 0);
  ASSERT_NE(c, nullptr);
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> wrong_mt{0}, right_mt{0};
  std::string examples[2];
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t)
    readers.emplace_back([&, t] {
      while (!done.load()) {
        std::uint64_t w = 0, r = 0;
        sweep.run(c, w, r, examples[t]);
        wrong_mt += w;
        right_mt += r;
      }
    });
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(sizes[i])), 0);
    overwrite(path, i % 2 ? a : b, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  done = true;
  for (auto& t : readers) t.join();
  ilmap_close(c);
  EXPECT_EQ(wrong_mt.load(), 0u) << "first wrong answer: " << examples[0] << examples[1];
  EXPECT_GT(right_mt.load(), 0u);
}

TEST_F(MappingGuard, FileChangedNoticesRewriteAndReplace) {
  auto c = Cache::open(cache_path_);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->file_changed());
  // Same bytes written in place with another modification time.
  struct timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, cache_path_.c_str(), times, 0), 0);
  EXPECT_TRUE(c->file_changed());
  auto d = Cache::open(cache_path_);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->file_changed());
  // Replaced by rename (another inode).
  const std::string tmp = dir_.file("new.ilmap");
  write_file(tmp, small_cache());
  ASSERT_EQ(std::rename(tmp.c_str(), cache_path_.c_str()), 0);
  EXPECT_TRUE(d->file_changed());
  EXPECT_TRUE(d->lookup(0x06000001, 0)) << "a replaced file leaves the old mapping intact";
  // Deleted: not "changed" (the open Cache stays valid).
  auto e = Cache::open(cache_path_);
  ASSERT_TRUE(e);
  ASSERT_EQ(::unlink(cache_path_.c_str()), 0);
  EXPECT_FALSE(e->file_changed());
  EXPECT_TRUE(e->lookup(0x06000001, 0));
}

TEST_F(MappingGuard, IlOffsetsFrom2Pow31GiveNoAnswer) {
  auto c = Cache::open(cache_path_);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->lookup(0x06000001, 0x7FFFFFFF));
  EXPECT_TRUE(c->lookup_row(1, 0x7FFFFFFF));
  for (std::uint32_t il : {0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu}) {
    EXPECT_FALSE(c->lookup(0x06000001, il)) << il;
    EXPECT_FALSE(c->lookup_row(1, il)) << il;
  }
  ilmap_cache* h = ilmap_open(cache_path_.c_str(), nullptr, nullptr, 0);
  ASSERT_NE(h, nullptr);
  ilmap_location loc{};
  EXPECT_EQ(ilmap_lookup(h, 0x06000001, 0x7FFFFFFF, &loc), 1);
  EXPECT_EQ(ilmap_lookup(h, 0x06000001, 0xFFFFFFFF, &loc), 0);
  ilmap_close(h);
}

TEST_F(MappingGuard, FifoIsRefusedWithoutBlocking) {
  const std::string fifo = dir_.file("f.pdb");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ::alarm(20);  // a regression blocks in open(): fail instead of hanging
  auto c = Cache::open(fifo);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Errc::kIo);
  EXPECT_NE(c.error().message.find("not a regular file"), std::string::npos) << c.error().message;
  auto f = FileBytes::open(fifo);
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("not a regular file"), std::string::npos) << f.error().message;
  ::alarm(0);
}

TEST_F(MappingGuard, ShrunkInputIsChangedNotSigbus) {
  // A PDB of three pages (zero padding after the metadata is harmless to FileBytes).
  Bytes pdb = small_pdb();
  pdb.resize(3 * 4096 + 100, 0);
  const std::string path = dir_.file("in.pdb");
  write_file(path, pdb);
  auto f = FileBytes::open(path);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_TRUE(f->check());
  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  unsigned sum = 0;
  for (std::uint8_t b : f->bytes()) sum += b;  // every page past the new end faults
  EXPECT_EQ(sum, 0u);
  EXPECT_TRUE(f->changed());
  Status s = f->check();
  EXPECT_EQ(s.code(), Errc::kIo);
  EXPECT_NE(s.message().find("input file changed while being read"), std::string::npos) << s.message();
}

TEST_F(MappingGuard, ShrinkHookTruncatesAfterMapping) {
  Bytes pdb = small_pdb();
  pdb.resize(3 * 4096, 0x55);
  const std::string path = dir_.file("hook.pdb");
  write_file(path, pdb);
  ::setenv(FileBytes::kShrinkHookEnv, path.c_str(), 1);
  auto f = FileBytes::open(path);
  ::unsetenv(FileBytes::kShrinkHookEnv);
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->bytes()[0], 'B');
  EXPECT_FALSE(f->changed()) << "the first page is still in the file";
  EXPECT_EQ(f->bytes()[2 * 4096], 0);
  EXPECT_TRUE(f->changed());
}

TEST_F(MappingGuard, UnknownFirstBytesAreRefusedBeforeMapping) {
  // 3 GB sparse file of zeros: refused from its first bytes.
  const std::string big = dir_.file("garbage.bin");
  {
    const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, off_t(3) << 30), 0);
    ::close(fd);
  }
  auto f = FileBytes::open(big);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code, Errc::kBadMagic);
  EXPECT_NE(f.error().message.find("first bytes unrecognised"), std::string::npos) << f.error().message;
  auto c = Cache::open(big);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Errc::kBadMagic);
  const std::string empty = dir_.file("empty.pdb");
  write_file(empty, {});
  auto e = FileBytes::open(empty);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("first bytes missing"), std::string::npos) << e.error().message;
}

// A SIGBUS outside every registered mapping keeps its default action.
TEST(MappingGuardDeathTest, UnregisteredMappingStillDiesBySigbus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  const std::string path = dir.file("plain.bin");
  write_file(path, Bytes(8192, 1));
  EXPECT_EXIT(
      {
        // The handler before the guard is the default one (a sanitizer's own SIGBUS handler
        // would otherwise get the fault and exit instead).
        std::signal(SIGBUS, SIG_DFL);
        install_mapping_guard();
        const int fd = ::open(path.c_str(), O_RDONLY);
        void* p = ::mmap(nullptr, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
        if (::truncate(path.c_str(), 0) != 0) std::_Exit(3);
        volatile const std::uint8_t* b = static_cast<const std::uint8_t*>(p);
        std::_Exit(b[4096] == 0 ? 4 : 5);
      },
      ::testing::KilledBySignal(SIGBUS), "");
}

}  // namespace
}  // namespace ilmap::test
