// ProfilePlanner.cpp - the profile table and each block's profile (see ProfilePlanner.h).
//
// SPEC.md 5.1, "what ilmap writes", steps 1-3: ranking by weight, folding into one of the 32
// heaviest profiles, the table of the heaviest plus the fieldwise maximum of the rest, and the
// table in order of first use by ascending row. Profiles are compared field by field in 6-bit
// lanes, so that one subtraction tells whether one profile dominates another.
#include "compiler/ProfilePlanner.h"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

#include "format/ilmap_format.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

// A profile's six widths and four length codes in 6-bit lanes (the value in the low 5 bits, a
// guard bit above), so that one subtraction compares all ten fields.
constexpr std::uint64_t kLaneGuards = [] {
  std::uint64_t g = 0;
  for (unsigned i = 0; i < 10; ++i) g |= std::uint64_t(1) << (6 * i + 5);
  return g;
}();
std::uint64_t profile_lanes(std::uint64_t p) {
  std::uint64_t x = 0;
  for (unsigned i = 0; i < 6; ++i) x |= (p >> (5 * i) & 31) << (6 * i);
  for (unsigned i = 0; i < 4; ++i) x |= (p >> (32 + 2 * i) & 3) << (6 * (6 + i));
  return x;
}
std::uint64_t lanes_profile(std::uint64_t x) {
  std::uint64_t p = 0;
  for (unsigned i = 0; i < 6; ++i) p |= (x >> (6 * i) & 31) << (5 * i);
  for (unsigned i = 0; i < 4; ++i) p |= (x >> (6 * (6 + i)) & 3) << (32 + 2 * i);
  return p;
}
// True when a block of profile b can be written in profile a: every width and code of a is at
// least b's (each lane of (a | guards) - b keeps its guard bit exactly when a's field >= b's).
bool dominates(std::uint64_t lanes_a, std::uint64_t lanes_b) {
  return (((lanes_a | kLaneGuards) - lanes_b) & kLaneGuards) == kLaneGuards;
}
// Bits that n blocks with v visible and h hidden points in all take in profile p (header
// values and records; the rounding of each block to a byte left out).
std::uint64_t profile_bits(std::uint64_t p, std::uint64_t n, std::uint64_t v, std::uint64_t h) {
  f::BlockHeader w;
  set_profile_widths(w, p);
  return n * profile_header_bytes(p) * 8 + v * (w.il_bytes() * 8 + w.rest_bits()) + h * w.hidden_bits();
}

// Profiles a folded profile may be written in: the heaviest ones.
constexpr std::size_t kFoldHeads = 32;

// One distinct own profile: its blocks and their points, and the candidate table entry they are
// written in.
struct Use {
  std::uint32_t count = 0;
  std::uint64_t visible = 0, hidden = 0;
  int target = -1;  // the candidate entry the blocks are written in; -1: their own, in front
};

// The distinct profiles of the blocks.
struct ProfileUses {
  std::vector<std::uint64_t> order;      // distinct profiles in order of first use
  std::vector<Use> uses;                 // in the same order
  std::vector<std::uint32_t> block_use;  // per block, in row order: position in uses
};

// Profiles with their uses, heaviest first.
using Ranked = std::vector<std::pair<std::uint64_t, Use*>>;

// The distinct profiles of the blocks of `chunks` in order of first use, found through an
// open-addressing table whose slots hold a profile (40 bits) and 1 + its position in `uses`
// (above bit 40); a profile is never 0 (V + H >= 1 gives a nonzero length code). The table
// grows with the distinct profiles (a few hundred in large PDBs), not with the blocks: sized
// for every block distinct, it was 8 bytes per block, zeroed (64 MiB for 3.5M methods).
ProfileUses find_profiles(const std::vector<BlockChunk>& chunks) {
  ProfileUses r;
  std::size_t nblocks = 0;
  for (const BlockChunk& c : chunks) nblocks += c.profiles.size();
  r.block_use.reserve(nblocks);
  constexpr std::uint64_t kProfile = (std::uint64_t(1) << 40) - 1;
  unsigned bits = 10;
  std::vector<std::uint64_t> table(std::size_t(1) << bits, 0);
  auto slot_of = [&](std::uint64_t p) {
    const std::size_t mask = table.size() - 1;
    std::size_t h = static_cast<std::size_t>((p * 0x9E3779B97F4A7C15ull) >> (64 - bits));
    while (table[h] != 0 && (table[h] & kProfile) != p) h = (h + 1) & mask;
    return h;
  };
  std::uint64_t last = 0;
  std::uint32_t last_use = 0;
  for (const BlockChunk& c : chunks) {
    for (std::size_t j = 0; j < c.profiles.size(); ++j) {
      const std::uint64_t p = c.profiles[j];
      if (p != last) {
        std::size_t h = slot_of(p);
        if (table[h] == 0) {
          if (2 * (r.uses.size() + 1) > table.size()) {  // at most half full: twice the slots
            std::vector<std::uint64_t> old(std::size_t(1) << ++bits, 0);
            old.swap(table);
            for (const std::uint64_t e : old)
              if (e != 0) table[slot_of(e & kProfile)] = e;
            h = slot_of(p);
          }
          table[h] = p | std::uint64_t(r.uses.size() + 1) << 40;
          r.uses.push_back({});
          r.order.push_back(p);
        }
        last = p;
        last_use = static_cast<std::uint32_t>((table[h] >> 40) - 1);
      }
      Use& u = r.uses[last_use];
      ++u.count;
      u.visible += static_cast<std::uint32_t>(c.counts[j]);
      u.hidden += c.counts[j] >> 32;
      r.block_use.push_back(last_use);
    }
  }
  return r;
}

// The profiles by descending weight, equal weights in order of first use. Kept in blocks
// (`rare_in_blocks`), a profile saves 5 bytes per block over its 8 in the table: by count, and
// only profiles used twice or more. Rewritten in a wider entry, a profile costs bits in every
// record of its blocks: by records plus 8 per block (measured against count alone and against
// the bits lost to the fieldwise maximum: Mono.Cecil 158,560 and 153,664 bytes, this 153,080
// before folding; docs/benchmarks-history.md).
Ranked rank_profiles(ProfileUses& pu, bool rare_in_blocks) {
  // One 64-bit key per profile: the weight (below 2^40: at most the points, counted in 32 bits,
  // plus 8 per block) inverted above its position in `uses` (below 2^24, a block per row), so
  // that ascending keys give descending weights, earlier first use first.
  constexpr std::uint64_t kMaxWeight = (std::uint64_t(1) << 40) - 1;
  std::vector<std::uint64_t> by_weight;
  by_weight.reserve(pu.uses.size());
  for (std::uint32_t i = 0; i < pu.uses.size(); ++i) {
    const Use& u = pu.uses[i];
    if (rare_in_blocks && u.count < 2) continue;
    const std::uint64_t weight = rare_in_blocks ? std::uint64_t(u.count) : u.visible + u.hidden + 8 * std::uint64_t(u.count);
    by_weight.push_back((kMaxWeight - std::min(weight, kMaxWeight)) << 24 | i);
  }
  std::sort(by_weight.begin(), by_weight.end());
  Ranked ranked;
  ranked.reserve(by_weight.size());
  for (const std::uint64_t key : by_weight) {
    const std::uint32_t i = static_cast<std::uint32_t>(key & 0xFFFFFF);
    ranked.emplace_back(pu.order[i], &pu.uses[i]);
  }
  return ranked;
}

// Folding (SPEC.md 5.1 step 1): a profile whose blocks one of the kFoldHeads heaviest profiles
// dominates, at fewer extra bits than a table entry takes (64), is written in that one (the
// cheapest; equal: the heavier) and needs no entry of its own. Small PDBs get fewer entries,
// full tables room. Removes the folded profiles from `ranked`; returns each with the profile it
// is written in, and counts their blocks in `rewritten`.
std::vector<std::pair<Use*, Use*>> fold_profiles(Ranked& ranked, std::uint64_t& rewritten) {
  std::vector<std::pair<Use*, Use*>> folded;  // (profile, the heavier profile it is written in)
  const std::size_t heads = std::min<std::size_t>(ranked.size(), kFoldHeads);
  struct Head {
    std::uint64_t lanes, visible_bits, hidden_bits, header_bits;
    bool folded;
  };
  std::vector<Head> head(heads);
  for (std::size_t j = 0; j < heads; ++j) {
    const std::uint64_t p = ranked[j].first;
    head[j] = {profile_lanes(p), profile_bits(p, 0, 1, 0), profile_bits(p, 0, 0, 1), profile_bits(p, 1, 0, 0), false};
  }
  Ranked kept;
  kept.reserve(ranked.size());
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto [p, u] = ranked[i];
    const std::uint64_t l = i < heads ? head[i].lanes : profile_lanes(p);
    const std::uint64_t own = profile_bits(p, u->count, u->visible, u->hidden);
    std::uint64_t best = 64;
    std::size_t into = heads;
    for (std::size_t j = 0; j < std::min(i, heads); ++j) {  // without branches on the data
      const Head& h = head[j];
      const std::uint64_t extra = u->count * h.header_bits + u->visible * h.visible_bits + u->hidden * h.hidden_bits - own;
      const std::uint64_t e = !h.folded && dominates(h.lanes, l) ? extra : UINT64_MAX;
      into = e < best ? j : into;
      best = e < best ? e : best;
    }
    if (into < heads) {
      folded.emplace_back(u, ranked[into].second);
      if (i < heads) head[i].folded = true;
      rewritten += u->count;
    } else {
      kept.push_back(ranked[i]);
    }
  }
  ranked.swap(kept);
  return folded;
}

// SPEC.md 5.1 step 2 with more profiles than `limit` entries: the limit - 1 heaviest as they
// are, the fieldwise maximum of the rest as the last (it dominates every profile of the rest,
// so each has an entry). Each profile of the rest is written in the first entry that dominates
// it in order of bits per visible record, then per hidden record, then header bits, then rank
// (an ordering that spares a search of all entries per profile). Appends the entries to
// `candidates` and counts the blocks of the rest in `rewritten`.
void share_entries(const Ranked& ranked, std::size_t limit, std::vector<std::uint64_t>& candidates,
                   std::uint64_t& rewritten) {
  struct Entry {
    std::uint64_t lanes, visible_bits, hidden_bits, header_bits;
    int rank;  // index in candidates
  };
  std::vector<Entry> entries;
  auto add = [&](std::uint64_t p, std::uint64_t l) {
    entries.push_back({l, profile_bits(p, 0, 1, 0), profile_bits(p, 0, 0, 1), profile_bits(p, 1, 0, 0),
                       static_cast<int>(candidates.size())});
    candidates.push_back(p);
  };
  for (std::size_t i = 0; i + 1 < limit; ++i) {
    ranked[i].second->target = static_cast<int>(candidates.size());
    add(ranked[i].first, profile_lanes(ranked[i].first));
  }
  std::uint64_t top = 0;
  for (std::size_t i = limit - 1; i < ranked.size(); ++i) {
    const std::uint64_t l = profile_lanes(ranked[i].first);
    for (unsigned lane = 0; lane < 10; ++lane) {
      const std::uint64_t m = std::uint64_t(63) << (6 * lane);
      if ((l & m) > (top & m)) top = (top & ~m) | (l & m);
    }
  }
  add(lanes_profile(top), top);
  // Each field below 2^8 (bits per visible record at most 4 * 8 + 5 * 31, per hidden record
  // 62, header bits 128; rank below 255): one 32-bit key.
  auto entry_key = [](const Entry& e) {
    return static_cast<std::uint32_t>(e.visible_bits << 24 | e.hidden_bits << 16 | e.header_bits << 8 | std::uint64_t(e.rank));
  };
  std::sort(entries.begin(), entries.end(), [&](const Entry& x, const Entry& y) { return entry_key(x) < entry_key(y); });
  for (std::size_t i = limit - 1; i < ranked.size(); ++i) {
    Use* u = ranked[i].second;
    const std::uint64_t l = profile_lanes(ranked[i].first);
    // An entry that dominates takes at least as many bits per visible record: skip the others.
    const std::uint64_t own = profile_bits(ranked[i].first, 0, 1, 0);
    const auto from = std::partition_point(entries.begin(), entries.end(), [&](const Entry& e) { return e.visible_bits < own; });
    for (auto e = from; e != entries.end(); ++e) {
      if (dominates(e->lanes, l)) {
        u->target = e->rank;
        break;
      }
    }
    rewritten += u->count;
  }
}

// SPEC.md 5.1 step 3: each block's written profile and row index, and the table in order of
// first use of its entries by ascending row.
void place_blocks(const std::vector<BlockChunk>& chunks, const ProfileUses& pu,
                  const std::vector<std::uint64_t>& candidates, ProfilePlan& plan) {
  std::array<int, f::kMaxProfiles> slot;
  slot.fill(0);
  plan.written.reserve(pu.block_use.size());
  std::size_t k = 0;
  for (const BlockChunk& c : chunks) {
    std::uint32_t prev = 0;
    for (std::uint32_t i = 0; i < c.ends.size(); ++i) {
      if (c.ends[i] == prev) continue;
      prev = c.ends[i];
      const int t = pu.uses[pu.block_use[k++]].target;
      if (t < 0) {
        plan.written.push_back(0);
        ++plan.inline_blocks;
        continue;
      }
      plan.written.push_back(candidates[t]);
      if (slot[t] == 0) {
        plan.table.push_back(candidates[t]);
        slot[t] = static_cast<int>(plan.table.size());
      }
      plan.index[c.first - 1 + i] = static_cast<std::uint8_t>(slot[t]);
    }
  }
}

}  // namespace

ProfilePlan plan_profiles(const std::vector<BlockChunk>& chunks, std::uint32_t methods, bool rare_in_blocks,
                          unsigned table_entries) {
  const std::size_t limit = std::clamp<unsigned>(table_entries, 1, f::kMaxProfiles);
  ProfilePlan plan;
  plan.index.assign(methods, 0);
  ProfileUses uses = find_profiles(chunks);
  Ranked ranked = rank_profiles(uses, rare_in_blocks);
  std::vector<std::pair<Use*, Use*>> folded;
  if (!rare_in_blocks) folded = fold_profiles(ranked, plan.rewritten);
  std::vector<std::uint64_t> candidates;  // table entries, before ordering by first use
  if (rare_in_blocks || ranked.size() <= limit) {
    if (ranked.size() > limit) ranked.resize(limit);
    for (const auto& [p, u] : ranked) {
      u->target = static_cast<int>(candidates.size());
      candidates.push_back(p);
    }
  } else {
    share_entries(ranked, limit, candidates, plan.rewritten);
  }
  for (const auto& [u, into] : folded) u->target = into->target;  // into was kept: it has one
  place_blocks(chunks, uses, candidates, plan);
  return plan;
}

}  // namespace ilmap
