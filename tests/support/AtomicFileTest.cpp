// AtomicFileTest.cpp - the output rules of AtomicFile.h below the CLI: temporary names (short
// and hashed), stale-temporary removal that respects a live writer's lock, classification of
// targets (symlinks, devices, directories), modes kept on replacement.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "support/AtomicFile.h"

namespace ilmap {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ilmap-atomic.XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (fs::path(dir_) / name).string(); }
  static void touch(const std::string& p) { std::ofstream(p) << "x"; }
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::string dir_;
};

const std::vector<std::uint8_t> kBytes = {'c', 'a', 'c', 'h', 'e'};

TEST_F(AtomicFileTest, TemporaryNameIsReadableWhenItFitsElseHashed) {
  EXPECT_EQ(temp_name_prefix("d/app.ilmap"), "app.ilmap.tmp-");
  const std::string fits(244, 'n');  // 244 + ".tmp-" + 6 = 255
  EXPECT_EQ(temp_name_prefix(fits), fits + ".tmp-");
  const std::string longer(245, 'n');
  const std::string hashed = temp_name_prefix("d/" + longer);
  EXPECT_EQ(hashed.rfind(".ilmap-tmp-", 0), 0u) << hashed;
  EXPECT_EQ(hashed.size(), 28u) << hashed;  // ".ilmap-tmp-" + 16 hex + "-"
  EXPECT_NE(hashed, temp_name_prefix(std::string(246, 'n')));
}

TEST_F(AtomicFileTest, StaleTemporariesRemovedUnlessLocked) {
  const std::string out = path("app.ilmap");
  touch(path("app.ilmap.tmp-stale1"));
  touch(path("app.ilmap.tmp-held01"));
  touch(path("app.ilmap.tmp-toolong"));  // 7 characters: not this naming
  touch(path("other.ilmap.tmp-abcdef"));
  const int fd = ::open(path("app.ilmap.tmp-held01").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  EXPECT_EQ(remove_stale_temps(out), 1u);
  EXPECT_FALSE(fs::exists(path("app.ilmap.tmp-stale1")));
  EXPECT_TRUE(fs::exists(path("app.ilmap.tmp-held01")));
  EXPECT_TRUE(fs::exists(path("app.ilmap.tmp-toolong")));
  EXPECT_TRUE(fs::exists(path("other.ilmap.tmp-abcdef")));
  ::close(fd);
}

TEST_F(AtomicFileTest, ClassifiesTargetsWithoutOpeningThem) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  auto fifo = resolve_output(path("fifo"));  // must not block
  ASSERT_TRUE(fifo.ok());
  EXPECT_EQ(fifo->kind, OutputKind::kWriteThrough);
  auto null = resolve_output("/dev/null");
  ASSERT_TRUE(null.ok());
  EXPECT_EQ(null->kind, OutputKind::kWriteThrough);
  EXPECT_EQ(resolve_output("-")->kind, OutputKind::kStdout);
  EXPECT_EQ(resolve_output(dir_)->kind, OutputKind::kDirectory);
  EXPECT_EQ(resolve_output(path("none"))->kind, OutputKind::kMissing);
  fs::create_directory(path("real"));
  fs::create_symlink("real/target", path("link"));
  auto link = resolve_output(path("link"));
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(link->kind, OutputKind::kMissing);
  EXPECT_EQ(link->path, path("real/target"));
}

TEST_F(AtomicFileTest, SymlinkTargetReplacedLinkKept) {
  fs::create_symlink("target.ilmap", path("link.ilmap"));
  ASSERT_TRUE(write_file_atomically(path("link.ilmap"), kBytes, false).ok());
  EXPECT_TRUE(fs::is_symlink(path("link.ilmap")));
  EXPECT_EQ(read(path("target.ilmap")), "cache");
}

TEST_F(AtomicFileTest, ReplacementKeepsModeNewFileUsesUmask) {
  touch(path("old.ilmap"));
  ASSERT_EQ(::chmod(path("old.ilmap").c_str(), 0600), 0);
  ASSERT_TRUE(write_file_atomically(path("old.ilmap"), kBytes, false).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path("old.ilmap").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(read(path("old.ilmap")), "cache");
  ASSERT_TRUE(write_file_atomically(path("new.ilmap"), kBytes, false).ok());
  ASSERT_EQ(::stat(path("new.ilmap").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, new_file_mode());
  // No temporary file remains.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 2u);
}

}  // namespace
}  // namespace ilmap
