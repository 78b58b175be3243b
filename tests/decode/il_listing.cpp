// il_listing.cpp - test helper: prints the instruction boundaries of every method body of a PE
// as decode/MethodBody decodes them, for comparison with Mono.Cecil (tests/oracle-cecil,
// CecilOracle --il): one line per MethodDef with an IL body, in token order,
//   0x06000001 CODE_SIZE OFFSET OFFSET ...
// (the offset of each instruction, prefixes as instructions of their own, as Cecil lists them),
// or "0x06000001 error" for a body that does not decode.
//   ilmap_il_listing PE [TOKEN OFFSET...]
// With (TOKEN, OFFSET) pairs (hex), one line per pair instead: "TOKEN OFFSET boundary|inside|none
// OPCODE_AT OPCODE_BEFORE CALLEE_BEFORE" - what is at a runtime frame's IL offset (the instruction
// starting there, the one ending there and the method it calls), to study the offsets runtimes print.
//   ilmap_il_listing --bodies PE
// One line per IL body instead: "TOKEN FILE_OFFSET SIZE" (decimal; header and code), for tests
// that damage bodies in place (tests/symbolicate/ground-truth.sh).
// Exit 0 ok, 1 usage, 2 unreadable or not a managed PE.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "decode/MethodBody.h"
#include "decode/PeFile.h"
#include "support/FileBytes.h"

int main(int argc, char** argv) {
  const bool bodies = argc == 3 && std::string_view(argv[1]) == "--bodies";
  if (bodies) ++argv, --argc;
  if (argc < 2 || argc % 2 != 0) {
    std::fprintf(stderr, "usage: ilmap_il_listing PE [TOKEN OFFSET...]\n");
    return 1;
  }
  auto file = ilmap::FileBytes::open(argv[1]);
  if (!file) {
    std::fprintf(stderr, "ilmap_il_listing: error: %s\n", file.error().message.c_str());
    return 2;
  }
  auto pe = ilmap::PeFile::parse(file->bytes());
  if (!pe || !pe->metadata()) {
    std::fprintf(stderr, "ilmap_il_listing: error: %s: %s\n", argv[1], pe ? "not a managed PE" : pe.error().message.c_str());
    return 2;
  }
  std::string out;
  std::vector<ilmap::Instruction> code;
  char buf[32];
  for (int a = 2; a + 1 < argc; a += 2) {
    const auto token = static_cast<std::uint32_t>(std::strtoul(argv[a], nullptr, 16));
    const auto offset = static_cast<std::uint32_t>(std::strtoul(argv[a + 1], nullptr, 16));
    auto body = ilmap::method_body_of(*pe, token);
    if (!body || !ilmap::decode_instructions(body->code, code)) {
      std::printf("0x%08x 0x%x none\n", token, offset);
      continue;
    }
    const ilmap::Instruction* at = ilmap::instruction_at(code, offset);
    const ilmap::Instruction* before = nullptr;
    for (const auto& i : code)
      if (i.offset + i.size == offset) before = &i;
    std::printf("0x%08x 0x%x %s %s%x %s%x %s\n", token, offset, at ? "boundary" : "inside", at ? "0x" : "-",
                at ? unsigned(at->opcode) : 0u, before ? "0x" : "-", before ? unsigned(before->opcode) : 0u,
                before && before->is_call() ? std::string(ilmap::called_method_name(*pe, before->token)).c_str() : "-");
  }
  if (argc > 2) return 0;
  if (bodies) {
    for (std::uint32_t rid = 1; rid <= pe->metadata()->rows(ilmap::kMethodDef); ++rid) {
      auto body = ilmap::method_body_of(*pe, 0x06000000u | rid);
      if (!body) continue;
      const auto at = static_cast<std::size_t>(body->code.data() - pe->bytes().data()) - body->header.header_size;
      std::printf("0x%08x %zu %u\n", 0x06000000u | rid, at, body->header.header_size + body->header.code_size);
    }
    return 0;
  }
  const std::uint32_t rows = pe->metadata()->rows(ilmap::kMethodDef);
  for (std::uint32_t rid = 1; rid <= rows; ++rid) {
    const std::uint32_t token = 0x06000000u | rid;
    auto body = ilmap::method_body_of(*pe, token);
    if (!body && body.error().code == ilmap::Errc::kNotFound) continue;  // no IL body
    std::snprintf(buf, sizeof buf, "0x%08x", token);
    out += buf;
    if (!body || !ilmap::decode_instructions(body->code, code)) {
      out += " error\n";
      continue;
    }
    std::snprintf(buf, sizeof buf, " %u", body->header.code_size);
    out += buf;
    for (const auto& i : code) {
      std::snprintf(buf, sizeof buf, " %u", i.offset);
      out += buf;
    }
    out += '\n';
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
