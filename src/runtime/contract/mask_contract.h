// The mask data contract between the Engine (which owns the matchers) and Program / sampling ops
// (which own the buffers and consume them): DESIGN.md section 7.
//
// Layout: mask[row, position, word], ceil(V/32) words per position (V = token domain, not the padded
// logits width), bit t%32 of word t/32 = token t legal, bits past V zero. Fixed stride: the logical
// position of (row, i) is row × (K+1) + i. Each row carries its real extent; nothing may infer it
// from the stride.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ninfer::runtime {

enum class PositionState : uint8_t {
  Ready,        // the prefix up to here is legal and the mask holds its allowed set
  DeadEnd,      // this hypothetical prefix has no legal next token (a failure only if verification reaches it)
  Unreachable,  // an earlier draft was illegal or EOS was accepted: safe placeholder, never committed
};

struct MaskLayout {
  int rows = 0;                // B: capacity in rows
  int positions_per_row = 1;   // K + 1
  int words_per_position = 0;  // ceil(V / 32)
  int32_t domain_size = 0;     // V

  size_t position_index(int row, int position) const { return size_t(row) * positions_per_row + position; }
  size_t word_offset(int row, int position) const { return position_index(row, position) * words_per_position; }
  size_t total_words() const { return size_t(rows) * positions_per_row * words_per_position; }
};

// One row's slice of the batch buffers, lent to a provider for one fill.
struct MaskRowSlice {
  uint32_t* words = nullptr;       // positions_per_row × words_per_position words
  PositionState* states = nullptr; // positions_per_row entries
  int words_per_position = 0;
  int max_positions = 1;           // K + 1

  uint32_t* position_words(int i) const { return words + size_t(i) * words_per_position; }
};

// Per-row descriptor the sampler reads: a disabled row takes the unconstrained path and no all-ones
// mask is ever materialised for it.
struct RowMaskDescriptor {
  bool enabled = false;
  int extent = 0;  // positions whose state was written (1..K+1 for an enabled row)
};

// Implemented by the Engine over the batch's OutputSessions; borrowed by Program for one decode call,
// on the worker thread. `drafts` are the row's new proposals only (never the already-accepted anchor).
class MaskProvider {
 public:
  virtual ~MaskProvider() = default;
  virtual bool row_constrained(int row) const = 0;
  // Fills positions 0..extent-1 of the row and returns the extent written.
  virtual int fill_row(int row, std::span<const int32_t> drafts, const MaskRowSlice& out) = 0;
};

}  // namespace ninfer::runtime
