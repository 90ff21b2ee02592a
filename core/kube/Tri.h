#pragma once

namespace ws {

// A yes/no that may not be decidable from what is known ("1.28" without its patch number).
enum class Tri { No, Yes, Unknown };

inline Tri tri(bool value) {
    return value ? Tri::Yes : Tri::No;
}

} // namespace ws
