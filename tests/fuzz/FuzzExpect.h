#pragma once

#include <QString>
#include <cstddef>
#include <cstdio>
#include <string_view>

namespace ws::fuzz {

// What every parser promises about bad input: a refusal says why, in one non-empty line. A
// broken promise stops the fuzzer like a crash does, with the input that broke it.
inline void expectOneLine(const QString& error) {
    if (error.isEmpty() || error.contains(u'\n') || error.contains(u'\r')) {
        std::fprintf(stderr, "not one line: \"%s\"\n", qPrintable(error));
        __builtin_trap();
    }
}

// Reads every byte of a view the parser handed out, so that ASan sees a view into freed or
// foreign memory.
inline volatile unsigned g_sink = 0;
inline void touch(const char* p, std::size_t n) {
    unsigned sum = 0;
    for (std::size_t i = 0; i < n; ++i)
        sum += static_cast<unsigned char>(p[i]);
    g_sink = g_sink + sum;
}
inline void touch(std::string_view v) {
    touch(v.data(), v.size());
}

} // namespace ws::fuzz
