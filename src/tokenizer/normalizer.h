// tokenizer.json "normalizer": Sequence, NFC, NFD, NFKC, NFKD (utf8proc), Prepend, Replace, Strip.
#pragma once

#include <memory>
#include <string>

#include "tokenizer/tokenizer_json.h"

namespace ninfer::tokenizer {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // `text` is valid UTF-8 and stays so.
  virtual void normalize(std::string& text) const = 0;
};

// Builds the normalizer described at `site` (null -> nullptr). Unknown types -> Unsupported.
std::unique_ptr<Normalizer> make_normalizer(const JsonSite& site);

}  // namespace ninfer::tokenizer
