// Lowering of character automata into byte-level automata for the grammar IR: each character
// range becomes the byte sequences that spell it under an Encoding.
#pragma once

#include <cstdint>
#include <vector>

#include "grammar/grammar_ir.h"
#include "grammar/utf8_ranges.h"
#include "text/char_automaton.h"
#include "text/range_dfa.h"

namespace ninfer::text {

// Appends the byte-range rectangles whose union spells exactly the characters lo..hi (scalar
// values) under `encoding`; rectangles that differ only in a contiguous last byte are merged.
void encoded_sequences(uint32_t lo, uint32_t hi, Encoding encoding, std::vector<std::vector<grammar::ByteRange>>& out);

// The minimal deterministic byte automaton for the encoded language of `dfa`, canonically
// numbered (equal languages give identical automata, hence identical grammar text). Size is
// about (states of dfa) x (distinct pending UTF-8 tails / escape prefixes), e.g. at most ~8 byte
// states per character state for Raw "any character" edges.
grammar::ByteAutomaton lower_to_bytes(const RangeDfa& dfa, Encoding encoding);

}  // namespace ninfer::text
