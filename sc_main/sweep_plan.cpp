#include "sc_main/sweep_plan.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace trainvp {

namespace fs = std::filesystem;

namespace {
std::string absolute_of(const std::string& p) {
    std::error_code ec;
    fs::path a = fs::absolute(fs::path(p), ec);
    return (ec ? fs::path(p) : a).lexically_normal().string();
}
}  // namespace

sweep_plan::sweep_plan(const sweep_spec& spec, const std::string& dir)
    : m_sweep(absolute_of(spec.file())),
      m_base(absolute_of(spec.base())),
      m_dir(absolute_of(dir)),
      m_description(spec.description()),
      m_paths(spec.paths()),
      m_points(spec.points()) {}

std::string sweep_plan::json() const {
    nlohmann::ordered_json j;
    j["sweep"] = m_sweep;
    j["description"] = m_description;
    j["base"] = m_base;
    j["paths"] = m_paths;
    nlohmann::ordered_json pts = nlohmann::ordered_json::array();
    for (const auto& p : m_points) {
        nlohmann::ordered_json o;
        o["name"] = p.name;
        o["values"] = p.values;
        o["sets"] = p.sets;
        o["fingerprint"] = p.fingerprint;
        pts.push_back(o);
    }
    j["points"] = pts;
    return j.dump(2) + "\n";
}

sweep_plan sweep_plan::read(const std::string& dir) {
    const std::string file = (fs::path(dir) / k_plan_file).string();
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        throw input_error(source_loc{file, 0, 0}, "",
                          "cannot open the sweep plan; is '" + dir +
                              "' the output folder of `trainvp sweep` (or --emit-jobs)?");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    sweep_plan p;
    try {
        auto j = nlohmann::json::parse(ss.str());
        p.m_sweep = j.at("sweep").get<std::string>();
        p.m_description = j.at("description").get<std::string>();
        p.m_base = j.at("base").get<std::string>();
        p.m_paths = j.at("paths").get<std::vector<std::string>>();
        std::size_t i = 0;
        for (const auto& o : j.at("points")) {
            sweep_point pt;
            pt.index = i++;
            pt.name = o.at("name").get<std::string>();
            pt.values = o.at("values").get<std::vector<std::string>>();
            pt.sets = o.at("sets").get<std::vector<std::string>>();
            pt.fingerprint = o.at("fingerprint").get<std::string>();
            p.m_points.push_back(std::move(pt));
        }
    } catch (const nlohmann::json::exception& e) {
        throw input_error(source_loc{file, 0, 0}, "", std::string("bad sweep plan: ") + e.what());
    }
    // The folder may have moved since the plan was written: the points are where it is now.
    p.m_dir = absolute_of(dir);
    return p;
}

std::string sweep_plan::point_dir(const sweep_point& p) const {
    return (fs::path(m_dir) / p.name).string();
}

std::vector<std::string> sweep_plan::run_argv(const sweep_point& p,
                                              const std::string& binary) const {
    std::vector<std::string> argv{binary, "run", m_base};
    for (const auto& s : p.sets) {
        argv.push_back("--set");
        argv.push_back(s);
    }
    argv.push_back("--out");
    argv.push_back(point_dir(p));
    argv.push_back("--force");
    argv.push_back("--quiet");
    return argv;
}

std::string shell_quote(const std::string& w) {
    bool plain = !w.empty();
    for (char c : w) {
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) ||
                        std::string("/._-+=:,@%").find(c) != std::string::npos;
        plain = plain && ok;
    }
    if (plain) return w;
    std::string out = "'";
    for (char c : w) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string sweep_plan::shell_command(const sweep_point& p, const std::string& binary) const {
    const std::string d = point_dir(p);
    const std::string exit_file = shell_quote((fs::path(d) / k_exit_file).string());
    std::string run;
    for (const auto& a : run_argv(p, binary)) run += (run.empty() ? "" : " ") + shell_quote(a);
    return "rm -rf " + shell_quote(d) + " && mkdir -p " + shell_quote(d) + " && { " + run +
           " >/dev/null 2>" + shell_quote((fs::path(d) / k_err_file).string()) + "; echo $? >" +
           exit_file + ".tmp && mv " + exit_file + ".tmp " + exit_file + "; }";
}

int read_exit_code(const std::string& point_dir) {
    std::ifstream in(fs::path(point_dir) / sweep_plan::k_exit_file);
    int code = -1;
    if (!(in >> code)) return -1;
    return code;
}

bool sweep_plan::has_result(const sweep_point& p) const {
    const int code = read_exit_code(point_dir(p));
    return code >= 0 && code <= 2;
}

}  // namespace trainvp
