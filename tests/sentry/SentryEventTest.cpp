// placeholder
#include <gtest/gtest.h>
TEST(Sentry, Placeholder) {}
