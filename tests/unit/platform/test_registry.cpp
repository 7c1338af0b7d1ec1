// The registry: declarations are complete, duplicates and reserved param names are errors,
// and describe/reference output comes from the declarations.
#include <gtest/gtest.h>

#include <sstream>

#include "platform/registry.h"
#include "sc_main/trainvp_cli.h"

namespace trainvp {
namespace {

TEST(registry, built_in_types_are_registered_with_full_declarations) {
    const registry& r = registry::global();
    EXPECT_TRUE(r.deferred_errors().empty());
    for (const char* name : {"memory", "traffic.generator"}) {
        const type_info* t = r.find(name);
        ASSERT_NE(t, nullptr) << name;
        EXPECT_FALSE(t->description.empty());
        EXPECT_TRUE(static_cast<bool>(t->create));
        for (const auto& p : t->params) {
            EXPECT_FALSE(p.description.empty()) << name << "." << p.name;
            EXPECT_TRUE(p.required || !p.default_text.empty()) << name << "." << p.name;
        }
        for (const auto& s : t->stats) {
            EXPECT_FALSE(s.unit.empty()) << name << "." << s.name;
            EXPECT_FALSE(s.description.empty()) << name << "." << s.name;
        }
        for (const auto& p : t->ports) EXPECT_FALSE(p.protocol.empty());
    }
}

TEST(registry, duplicate_type_is_an_error) {
    registry r;
    type_info a;
    a.name = "x.block";
    r.add(a);
    try {
        r.add(a);
        FAIL() << "expected an error";
    } catch (const std::logic_error& e) {
        EXPECT_STREQ(e.what(), "IP type 'x.block' is registered twice");
    }
}

TEST(registry, param_named_like_a_structure_key_is_an_error) {
    registry r;
    type_info a;
    a.name = "x.block";
    param_decl p;
    p.name = "count";
    a.params.push_back(p);
    try {
        r.add(a);
        FAIL() << "expected an error";
    } catch (const std::logic_error& e) {
        EXPECT_STREQ(e.what(),
                     "IP type 'x.block' declares a param named 'count', which configs use for "
                     "structure");
    }
}

TEST(registry, describe_memory_lists_every_param_with_unit_default_and_description) {
    std::ostringstream out, err;
    trainvp_cli cli(registry::global(), out, err);
    ASSERT_EQ(cli.main({"describe", "memory"}), 0) << err.str();
    const std::string text = out.str();
    for (const auto& p : registry::global().find("memory")->params) {
        const auto line_start = text.find("\n  " + p.name + " ");
        ASSERT_NE(line_start, std::string::npos) << p.name;
        const std::string line =
            text.substr(line_start + 1, text.find('\n', line_start + 1) - line_start - 1);
        EXPECT_NE(line.find(p.unit_text()), std::string::npos) << line;
        EXPECT_NE(line.find(p.default_text), std::string::npos) << line;
        EXPECT_NE(line.find(p.description), std::string::npos) << line;
    }
    EXPECT_NE(text.find("target[i]       target     mem"), std::string::npos) << text;
    EXPECT_NE(text.find("utilisation"), std::string::npos);
}

TEST(registry, describe_unknown_type_suggests) {
    std::ostringstream out, err;
    trainvp_cli cli(registry::global(), out, err);
    EXPECT_EQ(cli.main({"describe", "memroy"}), 2);
    EXPECT_NE(err.str().find("command line: error: memroy: unknown IP type (did you mean "
                             "'memory'?)"),
              std::string::npos)
        << err.str();
}

}  // namespace
}  // namespace trainvp
