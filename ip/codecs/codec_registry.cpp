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
    if (!info.name.empty() && !info.make) {
        throw std::logic_error("codec '" + info.name + "' has no factory");
    }
    if (!info.name.empty() && find(info.name) == nullptr) {
        for (const auto& p : info.params) {
            if (!(p.min <= p.default_value && p.default_value <= p.max)) {
                throw std::logic_error("codec '" + info.name + "': the default of " + p.name +
                                       " is outside its range");
            }
        }
    }
    name_registry::add(std::move(info));
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

std::unique_ptr<codec> make_codec(const std::string& name, const codec_args& args) {
    return codec_registry::global().make(name, args);
}

codec_registrar::codec_registrar(codec_info (*make_info)()) noexcept {
    try {
        register_noexcept(codec_registry::global(), make_info);
    } catch (...) {
        // Out of memory making the registry: nothing is registered.
    }
}

}  // namespace trainvp::codecs
