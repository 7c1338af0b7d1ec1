// The registry: declarations are complete, duplicates and reserved param names are errors,
// and describe/reference output comes from the declarations.
#include <gtest/gtest.h>

#include <sstream>

#include "kit/registry.h"
#include "kit/sim_context.h"
#include "sc_main/trainvp_cli.h"
#include "tests/support/test_blocks.h"
#include "workloads/drivers/section_registry.h"

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

// What plugin_loader relies on while a plugin's static initialisers run: each registration is
// counted, a clash or a foreign ABI tag is an error of the load (not a deferred startup error),
// and a failed load takes back the types it had added, so no type of a refused plugin remains.
TEST(registry, a_failed_plugin_load_takes_back_the_types_it_added) {
    registry& r = registry::global();
    r.begin_load("fake.so");
    { registrar<test::eth_endpoint> a("test.rollback_a", TRAINVP_ABI_TAG); }
    { registrar<test::eth_endpoint> b("memory", TRAINVP_ABI_TAG); }
    const registry::load_report rep = r.end_load();
    EXPECT_EQ(rep.registrations, 2);
    EXPECT_EQ(rep.added, std::vector<std::string>{"test.rollback_a"});
    ASSERT_EQ(rep.errors.size(), 1u);
    EXPECT_EQ(rep.errors[0], "IP type 'memory' is already registered (built in)");
    EXPECT_EQ(r.find("test.rollback_a"), nullptr);
    EXPECT_NE(r.find("memory"), nullptr);
    EXPECT_TRUE(r.deferred_errors().empty());
}

TEST(registry, a_registration_stamped_with_another_abi_tag_is_refused) {
    registry& r = registry::global();
    r.begin_load("old.so");
    { registrar<test::eth_endpoint> a("test.old", "trainvp 0.0.1 abi 0"); }
    const registry::load_report rep = r.end_load();
    EXPECT_EQ(rep.registrations, 1);
    EXPECT_TRUE(rep.added.empty());
    ASSERT_EQ(rep.errors.size(), 1u);
    EXPECT_EQ(rep.errors[0], std::string("IP type 'test.old' was built against trainvp 0.0.1 abi "
                                         "0, but this is ") +
                                 registry::abi_tag() + "; rebuild it against this trainvp");
    EXPECT_EQ(r.find("test.old"), nullptr);
    // A successful load records where each type came from.
    r.begin_load("good.so");
    { registrar<test::eth_endpoint> b("test.good", TRAINVP_ABI_TAG); }
    EXPECT_TRUE(r.end_load().errors.empty());
    EXPECT_EQ(r.origin("test.good"), "from plugin good.so");
    EXPECT_EQ(r.origin("memory"), "built in");
}

}  // namespace
}  // namespace trainvp

namespace trainvp {
namespace {

// Issue 31, class 3: a value legal for its type can be meaningless for its role (a stall
// timeout of 0s, a negative node id, a header of a megabyte).  Every declared param of a
// number or quantity kind, of every block, the simulation settings and every workload section,
// has a declared range: zero is in it only where it has a documented meaning.
void expect_ranges(const std::vector<param_decl>& decls, const std::string& owner,
                   std::vector<std::string>& missing) {
    for (const param_decl& d : decls) {
        if (d.kind == param_kind::GROUP || d.kind == param_kind::GROUP_LIST) {
            expect_ranges(d.fields, owner + "." + d.name, missing);
            continue;
        }
        const bool number = d.kind == param_kind::INT || d.kind == param_kind::REAL;
        if ((number || is_quantity(d.kind)) && (!d.min || !d.max)) {
            missing.push_back(owner + "." + d.name);
        }
    }
}

TEST(registry, every_number_and_quantity_param_has_a_range) {
    std::vector<std::string> missing;
    const registry& r = registry::global();
    for (const std::string& name : r.names()) {
        if (name.rfind("test.", 0) == 0) continue;  // tests/support's blocks
        expect_ranges(r.find(name)->params, name, missing);
    }
    expect_ranges(sim_settings::decls(), "simulation", missing);
    for (const auto& kv : drivers::section_registry::global().sections()) {
        expect_ranges(kv.second.params, "workload." + kv.first, missing);
    }
    std::string list;
    for (const auto& m : missing) list += "\n  " + m;
    EXPECT_TRUE(missing.empty()) << "params without a declared range:" << list;
}

}  // namespace
}  // namespace trainvp
