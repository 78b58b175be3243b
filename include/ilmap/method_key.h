// method_key.h - the name-index key (SPEC.md 6.1) of a method name as a runtime prints it in a
// stack frame, for Cache::find_methods.
#pragma once

#include <string>
#include <string_view>

namespace ilmap {

// "NS.Outer`1+Inner[T].M[U](Int32 x)" (CoreCLR), "NS.Outer`1+Inner[T].M[U] (System.Int32 x)"
// (Mono) or "NS.Outer`1+Inner.M" (.NET for Android) -> "NS.Outer`1.Inner.M": the text before
// the parameter list (its '(' and the space Mono prints before it), generic arguments in "[..]"
// left out, '.' for the nested-type '+'.
std::string method_name_key(std::string_view printed);

}  // namespace ilmap
