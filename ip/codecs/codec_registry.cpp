#include "ip/codecs/codec_registry.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "ip/codecs/builtin_codecs.h"

namespace trainvp::codecs {

namespace {

std::string number(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

}  // namespace

codec_registry& codec_registry::global() {
    static codec_registry* r = [] {
        auto* reg = new codec_registry();  // never destroyed: plugins' entries outlive exit
        register_builtin_codecs(*reg);
        return reg;
    }();
    return *r;
}

void codec_registry::add(codec_info info) {
    if (info.name.empty()) throw std::logic_error("a codec needs a name");
    if (!info.make) throw std::logic_error("codec '" + info.name + "' has no factory");
    if (find(info.name) != nullptr) {
        throw std::logic_error("codec '" + info.name + "' is already registered (" +
                               origin(info.name) + ")");
    }
    for (const auto& p : info.params) {
        if (!(p.min <= p.default_value && p.default_value <= p.max)) {
            throw std::logic_error("codec '" + info.name + "': the default of " + p.name +
                                   " is outside its range");
        }
    }
    entry e;
    e.origin = m_loading ? "from plugin " + m_loading_origin : "built in";
    if (m_loading) m_report.added.push_back(info.name);
    e.info = std::make_shared<const codec_info>(std::move(info));
    m_entries.push_back(std::move(e));
}

const codec_info* codec_registry::find(const std::string& name) const {
    for (const auto& e : m_entries) {
        if (e.info->name == name) return e.info.get();
    }
    return nullptr;
}

std::vector<std::string> codec_registry::names() const {
    std::vector<std::string> out;
    for (const auto& e : m_entries) out.push_back(e.info->name);
    return out;
}

std::unique_ptr<codec> codec_registry::make(const std::string& name, const codec_args& args) const {
    const codec_info* c = find(name);
    if (c == nullptr) {
        std::string known;
        for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
        throw std::invalid_argument("no codec '" + name + "'; registered: " + known);
    }
    codec_args full;
    for (const auto& p : c->params) full[p.name] = p.default_value;
    for (const auto& arg : args) {
        // Not a structured binding: C++17 lambdas cannot capture one (clang refuses).
        const std::string& key = arg.first;
        const double value = arg.second;
        const auto it = std::find_if(c->params.begin(), c->params.end(),
                                     [&key](const codec_param& p) { return p.name == key; });
        if (it == c->params.end()) {
            std::string known;
            for (const auto& p : c->params) known += (known.empty() ? "" : ", ") + p.name;
            throw std::invalid_argument("codec " + name + " has no param '" + key + "'" +
                                        (known.empty() ? "" : "; its params: " + known));
        }
        if (!(it->min <= value && value <= it->max)) {
            throw std::invalid_argument("codec " + name + ": " + key + " = " + number(value) +
                                        " is outside [" + number(it->min) + ", " + number(it->max) +
                                        "]");
        }
        if (it->integer && std::floor(value) != value) {
            throw std::invalid_argument("codec " + name + ": " + key + " = " + number(value) +
                                        " is not an integer");
        }
        full[key] = value;
    }
    return c->make(full);
}

std::string codec_registry::origin(const std::string& name) const {
    for (const auto& e : m_entries) {
        if (e.info->name == name) return e.origin;
    }
    return "";
}

void codec_registry::begin_load(const std::string& origin) {
    m_loading = true;
    m_loading_origin = origin;
    m_report = load_report{};
}

codec_registry::load_report codec_registry::end_load() {
    m_loading = false;
    load_report r = std::move(m_report);
    m_report = load_report{};
    if (!r.errors.empty()) {
        m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(),
                                       [&r](const entry& e) {
                                           return std::find(r.added.begin(), r.added.end(),
                                                            e.info->name) != r.added.end() &&
                                                  e.origin != "built in";
                                       }),
                        m_entries.end());
    }
    return r;
}

void codec_registry::defer_error(const std::string& e) {
    if (m_loading) {
        m_report.errors.push_back(e);
    } else {
        m_deferred.push_back(e);
    }
}

void codec_registry::count_registration() {
    if (m_loading) ++m_report.registrations;
}

std::unique_ptr<codec> make_codec(const std::string& name, const codec_args& args) {
    return codec_registry::global().make(name, args);
}

codec_registrar::codec_registrar(codec_info (*make_info)()) noexcept {
    try {
        codec_registry& r = codec_registry::global();
        r.count_registration();
        try {
            r.add(make_info());
        } catch (const std::exception& e) {
            r.defer_error(e.what());
        }
    } catch (...) {
        // Out of memory while registering or reporting: nothing is registered.
    }
}

}  // namespace trainvp::codecs
