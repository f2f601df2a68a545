#include "cli/prompt_attention_flag.h"

#include <map>
#include <string>

namespace ninfer::cli {

void add_prompt_attention_flag(CLI::App& cmd, PromptAttention& products) {
  const std::map<std::string, PromptAttention> names = {
      {"auto", PromptAttention::Auto},
      {"exact", PromptAttention::Exact},
      {"bf16", PromptAttention::Bf16},
      {"int8", PromptAttention::Int8}};
  cmd.add_option("--prompt-attention", products,
                 "products of the prompt's attention: exact (fp32 over the f16 KV cache), bf16 (queries, keys, values "
                 "and weights rounded to bf16, ~2x faster on long prompts where the CPU has AVX512_BF16), int8 (as "
                 "bf16 but queries and keys rounded to int8, one scale per head: ~15% faster again) or auto (int8 for "
                 "Q8_0 weights, else exact)")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case))
      ->default_str("auto");
}

}  // namespace ninfer::cli
