#include "AcceptNegotiation.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace ws {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

ServedEncoding negotiateEncoding(std::string_view accept, bool protobufAvailable) {
    accept = trim(accept);
    if (accept.empty())
        return ServedEncoding::Json; // no Accept: anything goes, JSON by default
    ServedEncoding best = ServedEncoding::NotAcceptable;
    double bestQ = 0;
    bool namesProtobuf = false;
    while (!accept.empty()) {
        const std::size_t comma = accept.find(',');
        std::string_view range = accept.substr(0, comma);
        accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
        const std::size_t semi = range.find(';');
        const std::string type = lower(trim(range.substr(0, semi)));
        double q = 1;
        for (std::string_view params = semi == std::string_view::npos ? std::string_view()
                                                                      : range.substr(semi + 1);
             !params.empty();) {
            const std::size_t next = params.find(';');
            const std::string_view p = trim(params.substr(0, next));
            params = next == std::string_view::npos ? std::string_view() : params.substr(next + 1);
            if (p.size() > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
                q = std::strtod(std::string(p.substr(2)).c_str(), nullptr);
        }
        ServedEncoding e = ServedEncoding::NotAcceptable;
        if (type == "application/vnd.kubernetes.protobuf") {
            namesProtobuf = true;
            e = protobufAvailable ? ServedEncoding::Protobuf : ServedEncoding::NotAcceptable;
        } else if (type == "application/json" || type == "application/*" || type == "*/*")
            e = ServedEncoding::Json;
        if (e != ServedEncoding::NotAcceptable && q > bestQ) {
            best = e;
            bestQ = q;
        }
    }
    // Types serve does not write at all (yaml, cbor, html) get JSON, as serve always answered
    // them; only a protobuf-only client of a resource without protobuf gets the 406.
    if (best == ServedEncoding::NotAcceptable && !namesProtobuf)
        return ServedEncoding::Json;
    return best;
}

} // namespace ws
