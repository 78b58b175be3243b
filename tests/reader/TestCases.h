// TestCases.h - the parameter of the per-input GoogleTest suites (LookupTest, ParallelTest):
// an input named by its case, never by its path. gtest prints a parameter in "GetParam() = ..."
// (test lists, failures) and the test name ends in the case name; an absolute path there made
// every ctest name and log line 300 characters long (tests/meta/check-test-names.sh checks).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "CacheTestSupport.h"

namespace ilmap::test {

struct Case {
  TestInput input;
  std::string name;  // gtest-safe
};

inline void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// all_inputs() with shorter names: a shared input whose folder name ends in its file's stem
// (symbolic_Sentry.Samples.Maui/Sentry.Samples.Maui.pdb) is named after the folder alone.
inline std::vector<Case> cases() {
  std::vector<Case> out;
  for (TestInput& t : all_inputs()) {
    std::string name = t.name;
    const std::filesystem::path p(t.path);
    const std::string folder = gtest_safe(p.parent_path().filename().string());
    const std::string stem = gtest_safe(p.stem().string());
    const std::string full = "shared_" + folder + "_" + stem;
    if (name == full && folder.size() > stem.size() &&
        folder.compare(folder.size() - stem.size(), stem.size(), stem) == 0)
      name = "shared_" + folder;
    out.push_back({std::move(t), std::move(name)});
  }
  return out;
}

inline std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

}  // namespace ilmap::test
