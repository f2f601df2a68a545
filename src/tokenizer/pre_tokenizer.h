// tokenizer.json "pre_tokenizer": Sequence, Split (PCRE2 regex or literal, all five behaviors,
// invert), ByteLevel (prefix space, GPT-2 regex) and Metaspace.
//
// Byte-level BPE is run on raw bytes rather than on the GPT-2 alphabet (the mapping is a bijection,
// see byte_level.h), so ByteLevel here only splits; it must be the last step of the chain.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/tokenizer_json.h"

namespace ninfer::tokenizer {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits every piece further (empty pieces are dropped). `at_text_start`: pieces[0] begins at
  // offset 0 of the text being encoded (Metaspace prepend_scheme "first").
  virtual void apply(std::vector<std::string>& pieces, bool at_text_start) const = 0;
};

// Builds the pre-tokenizer at `site` (null -> nullptr). Sets *byte_level when a ByteLevel step is
// present. Unknown types -> Unsupported.
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonSite& site, bool* byte_level);

}  // namespace ninfer::tokenizer
