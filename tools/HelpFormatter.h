// HelpFormatter.h - `--help` layout for the ilmap CLI.
//
// CLI11 2.1 prints an option's description on one line however long it is and shows a size
// option's type as its validators' raw text ("UINT:SIZE [b, kb(=1024b), ...]:UINT in [...]").
// This formatter wraps descriptions at kHelpWidth columns under the description column, and
// show_as_size() makes a size option read `--max-decompressed SIZE`.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <string_view>

namespace ilmap::cli {

inline constexpr std::size_t kHelpWidth = 100;

// Word-wraps `text` to lines of at most `width` columns (a longer word is broken after a comma
// when it has one, else stays whole); existing line breaks are kept. Continuation lines start
// with `indent` spaces.
inline std::string wrap_text(std::string_view text, std::size_t indent, std::size_t width) {
  std::string out;
  std::size_t col = indent;
  const std::size_t room = width > indent + 20 ? width : indent + 20;
  bool line_start = true;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\n') {
      out += '\n';
      out.append(indent, ' ');
      col = indent;
      line_start = true;
      ++i;
      continue;
    }
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\n') ++j;
    if (!line_start && col + 1 + (j - i) > room) {
      out += '\n';
      out.append(indent, ' ');
      col = indent;
      line_start = true;
    }
    // A word longer than a line (a JSON key list) is broken after its last fitting comma.
    if (line_start && indent + (j - i) > room) {
      const std::size_t comma = text.substr(i, room - indent).rfind(',');
      if (comma != std::string_view::npos) j = i + comma + 1;
    }
    const std::size_t len = j - i;
    if (!line_start) {
      out += ' ';
      ++col;
    }
    out.append(text.substr(i, len));
    col += len;
    line_start = false;
    i = j;
  }
  return out;
}

class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(30); }
  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    std::string name = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
    const std::string desc = make_option_desc(opt);
    const std::size_t col = get_column_width();
    if (desc.empty()) return name + "\n";
    if (name.size() >= col) {
      name += '\n';
      name.append(col, ' ');
    } else {
      name.append(col - name.size(), ' ');
    }
    return name + wrap_text(desc, col, kHelpWidth) + "\n";
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap_text(CLI::Formatter::make_description(app), 0, kHelpWidth);
  }
  // A command in the list of commands: its description as one wrapped paragraph.
  std::string make_subcommand(const CLI::App* sub) const override {
    std::string desc = sub->get_description();
    std::replace(desc.begin(), desc.end(), '\n', ' ');
    std::string name = "  " + sub->get_display_name(true);
    const std::size_t col = get_column_width();
    if (name.size() >= col) name += '\n', name.append(col, ' ');
    else name.append(col - name.size(), ' ');
    return name + wrap_text(desc, col, kHelpWidth) + "\n";
  }
};

// CLI11's AsSizeValue (units 1024-based: 64KiB, 512MiB), built when an option's value is
// first converted: building its unit table takes about a tenth of the instructions of a short
// `ilmap compile`, and most runs give no size. Use with show_as_size for the help text.
inline CLI::Validator size_value() {
  return CLI::Validator(
      [](std::string& text) {
        static const CLI::AsSizeValue sizes(false);
        return sizes(text);
      },
      "SIZE");
}

// Shows `opt` (a size_value option) as SIZE in --help, without its validators' raw text.
inline void show_as_size(CLI::Option* opt) {
  opt->type_name("SIZE");
  for (int i = 0;; ++i) {
    try {
      opt->get_validator(i)->description("");
    } catch (const CLI::OptionNotFound&) {
      break;
    }
  }
}

}  // namespace ilmap::cli
