// HostProcessTest.cpp - what opening caches does to a host process (docs/library.md "In a host
// process"): the lease signal SIGRTMIN+6 and its handler, leases and descriptors held, and the
// fallback of reading into memory.
//
// Each TEST runs in a process of its own (gtest_discover_tests), so each starts with the signal's
// default disposition and no lease. What a test observes is the process's real state: the
// signal's disposition (sigaction), the leases the kernel lists for this process (/proc/locks)
// and its open descriptors (/proc/self/fd). Tests that need what this machine may lack (root for
// an overlayfs mount, /dev/shm) skip with a reason, and CTest reports them as skipped.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <string>
#include <thread>
#include <vector>

#include "compiler/CacheBuilder.h"
#include "decode/PortablePdb.h"
#include "ilmap/cache.h"
#include "ilmap/ilmap.h"
#include "ilmap/mapping_guard.h"
#include "tests/common/TestEncoders.h"

namespace ilmap::test {
namespace {

constexpr std::uint32_t kToken = 0x06000001;
// docs/library.md "In a host process" states this bound.
static_assert(GuardedRange::kMaxRanges == 1024);

// One document "/src/a.cs", one method with one point: IL 0 -> line:5-line:8.
Bytes cache_with_line(std::uint32_t line) {
  MiniPdb p;
  p.add_document(p.add_name('/', {"", "src", "a.cs"}));
  SpBlob sp;
  sp.u(0).u(0).u(0).u(3).u(line).u(5);
  p.add_method(1, p.blobs.add(sp.b));
  const Bytes pdb_bytes = p.image().build();
  auto pdb = PortablePdb::parse(pdb_bytes);
  EXPECT_TRUE(pdb) << pdb.error().message;
  CacheSource src;
  src.pdb = &*pdb;
  auto bytes = build_cache(src, CacheBuildOptions{});
  EXPECT_TRUE(bytes) << bytes.error().message;
  return Bytes(bytes->data(), bytes->data() + bytes->size());
}

// Caches i and i + 1 answer different lines, so an answer from the wrong cache shows.
constexpr int kVariants = 8;
std::uint32_t line_of(int i) { return 4 + static_cast<std::uint32_t>(i % kVariants); }

class TempDir {
 public:
  explicit TempDir(const std::string& parent = std::filesystem::temp_directory_path().string()) {
    std::string t = parent + "/ilmap-host.XXXXXX";
    path_ = ::mkdtemp(t.data()) ? t : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  bool ok() const { return !path_.empty(); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_file(const std::string& path, const Bytes& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Writes `n` caches (variant i % kVariants) under `dir`; returns their paths.
std::vector<std::string> write_caches(const TempDir& dir, int n) {
  std::vector<Bytes> variants;
  for (int v = 0; v < kVariants; ++v) variants.push_back(cache_with_line(line_of(v)));
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    std::string name = "c";  // appended, not `"c" + ...`: GCC 12's -Wrestrict misfires on that
    name += std::to_string(i);
    name += ".ilmap";
    paths.push_back(dir.file(name));
    write_file(paths.back(), variants[static_cast<std::size_t>(i % kVariants)]);
  }
  return paths;
}

// The leases the kernel lists for this process ("1: LEASE  ACTIVE    READ <pid> ..."). The
// kernel walks its lock list once per read(), and other processes' locks come and go between
// reads: one large read, repeated until two agree, so that no entry is skipped or counted twice.
int count_leases_once() {
  const int fd = ::open("/proc/locks", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  std::string text(std::size_t(4) << 20, '\0');
  std::size_t got = 0;
  for (ssize_t r; got < text.size() && (r = ::read(fd, text.data() + got, text.size() - got)) > 0;) got += static_cast<std::size_t>(r);
  ::close(fd);
  text.resize(got);
  // Fields split by hand, not with istringstream: under UBSan's vptr check a stream read near
  // the descriptor limit (AtTheDescriptorLimitOpenFailsClearly) was reported as a member access
  // through an invalid vptr in <istream>.
  const std::string pid = std::to_string(::getpid());
  int n = 0;
  std::string_view rest(text);
  while (!rest.empty()) {
    const std::size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    std::string_view field[5];
    for (std::string_view& f : field) {
      const std::size_t start = line.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      line.remove_prefix(start);
      const std::size_t end = line.find(' ');
      f = line.substr(0, end);
      line.remove_prefix(end == std::string_view::npos ? line.size() : end);
    }
    if (field[1] == "LEASE" && field[4] == pid) ++n;
  }
  return n;
}

int leases_held() {
  for (int last = count_leases_once();;) {
    const int now = count_leases_once();
    if (now == last) return now;
    last = now;
  }
}

int open_descriptors() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

struct sigaction lease_disposition() {
  struct sigaction sa {};
  ::sigaction(mapping_lease_signal(), nullptr, &sa);
  return sa;
}

bool is_default(const struct sigaction& sa) {
  return !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL;
}

// Answers the one lookup of cache `i`: true when it is the line written.
::testing::AssertionResult answers(const Cache& c, int i) {
  auto r = c.lookup(kToken, 0);
  if (!r) return ::testing::AssertionFailure() << "cache " << i << ": no answer, changed()=" << c.changed();
  if (r->file != "/src/a.cs" || r->line != line_of(i))
    return ::testing::AssertionFailure() << "cache " << i << ": " << r->file << ":" << r->line << ", expected line " << line_of(i);
  return ::testing::AssertionSuccess();
}

// The host's handler of the lease signal: counts what it gets; chains to `g_host_previous` for
// the kernel's lease-break notices when `g_host_chains`.
std::atomic<int> g_host_signals{0}, g_host_notices{0};
std::atomic<bool> g_host_chains{false};
struct sigaction g_host_previous {};

void host_handler(int sig, siginfo_t* si, void* context) {
  g_host_signals.fetch_add(1);
  if (si && si->si_code == POLL_MSG) {
    g_host_notices.fetch_add(1);
    if (g_host_chains.load() && (g_host_previous.sa_flags & SA_SIGINFO) && g_host_previous.sa_sigaction)
      g_host_previous.sa_sigaction(sig, si, context);
  }
}

void install_host_handler(bool chains) {
  g_host_chains = chains;
  struct sigaction sa {};
  sa.sa_sigaction = host_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(::sigaction(mapping_lease_signal(), &sa, &g_host_previous), 0);
}

bool is_host_handler(const struct sigaction& sa) {
  return (sa.sa_flags & SA_SIGINFO) && sa.sa_sigaction == host_handler;
}

template <class Pred>
bool wait_for(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// ---- the read flag -----------------------------------------------------------------------

TEST(HostProcess, ReadFlagTakesNoLeaseAndInstallsNoHandler) {
  TempDir dir;
  const auto paths = write_caches(dir, 2);
  ASSERT_TRUE(is_default(lease_disposition()));
  const int fds = open_descriptors();
  CacheOpenOptions o;
  o.read_into_memory = true;
  auto c = Cache::open(paths[0], o);
  ASSERT_TRUE(c) << c.error().message;
  int err = -1;
  char msg[256] = "";
  ilmap_cache* capi = ilmap_open_ex(paths[1].c_str(), ILMAP_OPEN_READ, &err, msg, sizeof msg);
  ASSERT_NE(capi, nullptr) << msg;
  EXPECT_TRUE(is_default(lease_disposition())) << "a read open installed a SIGRTMIN+6 handler";
  EXPECT_EQ(leases_held(), 0);
  EXPECT_EQ(open_descriptors(), fds) << "a cache read into memory keeps no descriptor";
  EXPECT_TRUE(answers(*c, 0));
  ilmap_location loc{};
  ASSERT_EQ(ilmap_lookup(capi, kToken, 0, &loc), 1);
  EXPECT_EQ(loc.line, line_of(1));
  // The contrast: a mapped open installs ilmap's handler and takes a lease on its descriptor.
  auto mapped = Cache::open(paths[0]);
  ASSERT_TRUE(mapped) << mapped.error().message;
  EXPECT_FALSE(is_default(lease_disposition()));
  EXPECT_EQ(leases_held(), 1);
  EXPECT_EQ(open_descriptors(), fds + 1);
  // A SIGRTMIN+6 that is no lease-break notice goes to the disposition before ilmap's (the
  // default): ignored, where the default action would have ended the process.
  EXPECT_EQ(mapping_lease_signal(), SIGRTMIN + 6);
  ASSERT_EQ(::raise(mapping_lease_signal()), 0);
  EXPECT_TRUE(answers(*mapped, 0));
  ilmap_close(capi);
}

// ---- a host's own handler ----------------------------------------------------------------

TEST(HostProcess, HostHandlerInstalledBeforeFirstOpenIsKept) {
  TempDir dir;
  const auto paths = write_caches(dir, 1);
  install_host_handler(false);
  int err = -1;
  char msg[256] = "";
  ilmap_cache* c = ilmap_open(paths[0].c_str(), &err, msg, sizeof msg);
  ASSERT_NE(c, nullptr) << msg;
  EXPECT_TRUE(is_host_handler(lease_disposition())) << "ilmap replaced the host's SIGRTMIN+6 handler";
  EXPECT_EQ(leases_held(), 0) << "a lease would send its break to the host's handler";
  // The fallback: read into memory, so a truncate cannot reach the answers.
  ASSERT_EQ(::truncate(paths[0].c_str(), 0), 0);
  ilmap_location loc{};
  ASSERT_EQ(ilmap_lookup(c, kToken, 0, &loc), 1);
  EXPECT_EQ(loc.line, line_of(0));
  EXPECT_EQ(ilmap_changed(c), 0);
  // The host's handler still gets its signals.
  ASSERT_EQ(::raise(mapping_lease_signal()), 0);
  EXPECT_EQ(g_host_signals.load(), 1);
  ilmap_close(c);
  EXPECT_TRUE(is_host_handler(lease_disposition()));
}

TEST(HostProcess, HostHandlerInstalledAfterOpenThatChainsKeepsTheGuarantee) {
  TempDir dir;
  const auto paths = write_caches(dir, 1);
  auto c = Cache::open(paths[0]);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(leases_held(), 1);
  install_host_handler(true);
  // Blocks until the break notice, passed on by the host's handler, let ilmap copy and release.
  ASSERT_EQ(::truncate(paths[0].c_str(), 0), 0);
  EXPECT_GE(g_host_notices.load(), 1);
  EXPECT_TRUE(answers(*c, 0));
  EXPECT_FALSE(c->changed());
  EXPECT_EQ(leases_held(), 0);
  EXPECT_TRUE(is_host_handler(lease_disposition()));
}

// A host handler that does not chain: the notice of a break reaches the host, not ilmap, so
// the writer waits in the kernel (up to lease-break-time) and the cache's bytes stay as they
// were. The next mapped open notices that the handler is no longer ilmap's: it releases every
// lease (so the writer goes on), takes none (that cache is read into memory) and leaves the
// host's handler alone. The first cache then answers from its bytes at open, or not at all
// with changed() - never the writer's bytes.
TEST(HostProcess, HostHandlerInstalledAfterOpenWithoutChainingGetsTheSignalHandedOver) {
  TempDir dir;
  const auto paths = write_caches(dir, 3);
  auto first = Cache::open(paths[0]);
  ASSERT_TRUE(first) << first.error().message;
  auto idle = Cache::open(paths[2]);  // no writer comes for it before the handover
  ASSERT_TRUE(idle) << idle.error().message;
  ASSERT_EQ(leases_held(), 2);
  install_host_handler(false);
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) _exit(::truncate(paths[0].c_str(), 0) == 0 ? 0 : 1);
  ASSERT_TRUE(wait_for([] { return g_host_notices.load() > 0; })) << "no lease-break notice reached the host";
  int status = 0;
  EXPECT_EQ(::waitpid(writer, &status, WNOHANG), 0) << "the writer did not wait for the lease";
  EXPECT_TRUE(answers(*first, 0));
  EXPECT_FALSE(first->changed());

  auto second = Cache::open(paths[1]);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_TRUE(is_host_handler(lease_disposition())) << "ilmap replaced the host's SIGRTMIN+6 handler";
  EXPECT_EQ(leases_held(), 0) << "a lease whose break only the host sees was kept or taken";
  ASSERT_TRUE(wait_for([&] { return ::waitpid(writer, &status, WNOHANG) == writer; })) << "the writer still waits";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st {};
  ASSERT_EQ(::stat(paths[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  if (auto r = first->lookup(kToken, 0)) {
    EXPECT_EQ(r->line, line_of(0));
    EXPECT_FALSE(first->changed());
  } else {
    EXPECT_TRUE(first->changed()) << "no answer, and changed() does not say why";
  }
  // The second cache was read into memory, the idle one's mapping became a private copy at the
  // handover: a truncate reaches neither.
  ASSERT_EQ(::truncate(paths[1].c_str(), 0), 0);
  ASSERT_EQ(::truncate(paths[2].c_str(), 0), 0);
  EXPECT_TRUE(answers(*second, 1));
  EXPECT_FALSE(second->changed());
  EXPECT_TRUE(answers(*idle, 2));
  EXPECT_FALSE(idle->changed());
  EXPECT_EQ(g_host_notices.load(), 1) << "a lease was still held when the idle cache's file was truncated";
}

// ---- many caches -------------------------------------------------------------------------

TEST(HostProcess, SixHundredMappedCachesEachHoldALeaseAndADescriptor) {
  constexpr int kCaches = 600;
  TempDir dir;
  const auto paths = write_caches(dir, kCaches);
  const int fds = open_descriptors();
  std::vector<Cache> caches;
  for (int i = 0; i < kCaches; ++i) {
    auto c = Cache::open(paths[static_cast<std::size_t>(i)]);
    ASSERT_TRUE(c) << i << ": " << c.error().message;
    caches.push_back(std::move(*c));
  }
  EXPECT_EQ(leases_held(), kCaches);
  EXPECT_EQ(open_descriptors(), fds + kCaches);
  for (int i = 0; i < kCaches; ++i) ASSERT_TRUE(answers(caches[static_cast<std::size_t>(i)], i));
  ASSERT_EQ(::truncate(paths[17].c_str(), 0), 0);
  EXPECT_TRUE(answers(caches[17], 17));
  EXPECT_FALSE(caches[17].changed());
  EXPECT_EQ(leases_held(), kCaches - 1);
  for (int i = 0; i < kCaches; ++i) ASSERT_TRUE(answers(caches[static_cast<std::size_t>(i)], i));
  caches.clear();
  EXPECT_EQ(leases_held(), 0);
  EXPECT_EQ(open_descriptors(), fds);
}

// Past GuardedRange::kMaxRanges leased caches, open reads the file into memory instead (and
// keeps no descriptor for it).
TEST(HostProcess, CachesPastTheLeaseRegistryAreReadIntoMemory) {
  constexpr int kExtra = 16, kCaches = GuardedRange::kMaxRanges + kExtra;
  struct rlimit lim {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &lim), 0);
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < static_cast<rlim_t>(kCaches + 64))
    GTEST_SKIP() << "RLIMIT_NOFILE's hard limit " << lim.rlim_max << " is below the " << kCaches + 64 << " descriptors this needs";
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < static_cast<rlim_t>(kCaches + 64)) {
    lim.rlim_cur = static_cast<rlim_t>(kCaches + 64);
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lim), 0);
  }
  TempDir dir;
  const auto paths = write_caches(dir, kCaches);
  const int fds = open_descriptors();
  std::vector<Cache> caches;
  for (int i = 0; i < kCaches; ++i) {
    auto c = Cache::open(paths[static_cast<std::size_t>(i)]);
    ASSERT_TRUE(c) << i << ": " << c.error().message;
    caches.push_back(std::move(*c));
  }
  EXPECT_EQ(leases_held(), GuardedRange::kMaxRanges);
  EXPECT_EQ(open_descriptors(), fds + GuardedRange::kMaxRanges);
  // One leased cache and one read into memory, both truncated: both keep their answers. The
  // leased one's lease is broken and released (its slot stays taken until it is closed).
  ASSERT_EQ(::truncate(paths[3].c_str(), 0), 0);
  ASSERT_EQ(::truncate(paths[kCaches - 1].c_str(), 0), 0);
  EXPECT_EQ(leases_held(), GuardedRange::kMaxRanges - 1);
  for (int i = 0; i < kCaches; ++i) {
    ASSERT_TRUE(answers(caches[static_cast<std::size_t>(i)], i));
    ASSERT_FALSE(caches[static_cast<std::size_t>(i)].changed()) << i;
  }
  // A closed cache frees its slot: the next open takes a lease again.
  caches.erase(caches.begin());
  EXPECT_EQ(leases_held(), GuardedRange::kMaxRanges - 2);
  auto again = Cache::open(paths[1]);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(leases_held(), GuardedRange::kMaxRanges - 1);
}

// At the process's descriptor limit, open fails with kIo and a message naming the limit; the
// caches already open keep answering, and closing one lets the next open succeed.
TEST(HostProcess, AtTheDescriptorLimitOpenFailsClearly) {
  constexpr rlim_t kLimit = 64;
  TempDir dir;
  const auto paths = write_caches(dir, 2 * kLimit);
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  struct rlimit low = saved;
  low.rlim_cur = kLimit;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<Cache> caches;
  std::string failure;
  std::size_t i = 0;
  for (; i < paths.size(); ++i) {
    auto c = Cache::open(paths[i]);
    if (!c) {
      EXPECT_EQ(c.error().code, Errc::kIo);
      failure = c.error().message;
      break;
    }
    caches.push_back(std::move(*c));
  }
  ASSERT_FALSE(failure.empty()) << "opened " << i << " caches under a limit of " << kLimit << " descriptors";
  EXPECT_NE(failure.find("RLIMIT_NOFILE"), std::string::npos) << failure;
  EXPECT_NE(failure.find(paths[i]), std::string::npos) << failure;
  EXPECT_LT(i, kLimit);
  // Reading into memory needs a descriptor for the read too: the same clear error.
  int err = -1;
  char msg[512] = "";
  EXPECT_EQ(ilmap_open_ex(paths[i].c_str(), ILMAP_OPEN_READ, &err, msg, sizeof msg), nullptr);
  EXPECT_EQ(err, ILMAP_E_IO);
  EXPECT_NE(std::string(msg).find("RLIMIT_NOFILE"), std::string::npos) << msg;
  for (std::size_t k = 0; k < caches.size(); ++k) ASSERT_TRUE(answers(caches[k], static_cast<int>(k)));
  caches.pop_back();
  // (Reading /proc/locks needs a descriptor too: counted once one is free.)
  EXPECT_EQ(leases_held(), static_cast<int>(i) - 1);
  auto next = Cache::open(paths[i]);
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_TRUE(answers(*next, static_cast<int>(i)));
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
}

// ---- file systems ------------------------------------------------------------------------

// Opens `path` mapped, truncates it, and checks the answers; returns whether a lease was taken.
bool open_truncate_and_answer(const std::string& path, int i) {
  const int before = leases_held();
  auto c = Cache::open(path);
  EXPECT_TRUE(c) << path << ": " << c.error().message;
  if (!c) return false;
  const bool leased = leases_held() == before + 1;
  EXPECT_EQ(::truncate(path.c_str(), 0), 0) << path;
  EXPECT_TRUE(answers(*c, i)) << path;
  EXPECT_FALSE(c->changed()) << path;
  return leased;
}

TEST(HostProcess, TmpfsFilesAreLeased) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm (tmpfs) here";
  TempDir dir("/dev/shm");
  ASSERT_TRUE(dir.ok());
  const auto paths = write_caches(dir, 1);
  EXPECT_TRUE(open_truncate_and_answer(paths[0], 0)) << "tmpfs refused the lease";
}

// overlayfs: a file of the lower layer (a truncate through the overlay copies it up first) and
// one written through the overlay (in the upper layer). Needs root for the mount.
TEST(HostProcess, OverlayfsFilesKeepTheirAnswers) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting overlayfs needs root";
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  for (const char* d : {"lower", "upper", "work", "merged"}) ASSERT_EQ(::mkdir(dir.file(d).c_str(), 0755), 0);
  write_file(dir.file("lower/c0.ilmap"), cache_with_line(line_of(0)));
  const std::string options = "lowerdir=" + dir.file("lower") + ",upperdir=" + dir.file("upper") + ",workdir=" + dir.file("work");
  const std::string merged = dir.file("merged");
  if (::mount("overlay", merged.c_str(), "overlay", 0, options.c_str()) != 0)
    GTEST_SKIP() << "cannot mount overlayfs: " << std::strerror(errno);
  struct Unmount {
    std::string at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{merged};
  write_file(merged + "/c1.ilmap", cache_with_line(line_of(1)));
  const bool lower = open_truncate_and_answer(merged + "/c0.ilmap", 0);
  const bool upper = open_truncate_and_answer(merged + "/c1.ilmap", 1);
  // Either way the answers held; the lease (or its refusal) is recorded for docs/library.md.
  std::printf("overlayfs leases: lower file %s, upper file %s\n", lower ? "leased" : "read", upper ? "leased" : "read");
}

// A file system or file that refuses the lease (here: the file is open for writing elsewhere,
// EAGAIN, as NFS and FUSE refuse with EINVAL): open reads the file into memory, so writes
// through that other descriptor do not reach the answers.
TEST(HostProcess, RefusedLeaseFallsBackToReadingIntoMemory) {
  TempDir dir;
  const auto paths = write_caches(dir, 1);
  const int writer = ::open(paths[0].c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(writer, 0);
  const int fds = open_descriptors();
  auto c = Cache::open(paths[0]);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(leases_held(), 0);
  EXPECT_EQ(open_descriptors(), fds);
  const Bytes other = cache_with_line(line_of(1));
  ASSERT_EQ(::pwrite(writer, other.data(), other.size(), 0), static_cast<ssize_t>(other.size()));
  EXPECT_TRUE(answers(*c, 0));
  ASSERT_EQ(::ftruncate(writer, 0), 0);
  EXPECT_TRUE(answers(*c, 0));
  EXPECT_FALSE(c->changed());
  ::close(writer);
}

}  // namespace
}  // namespace ilmap::test
