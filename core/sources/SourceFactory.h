#pragma once

#include "engine/Source.h"
#include "engine/SourceSpec.h"

#include <memory>
#include <vector>

namespace ws {

// The one place that knows every kind of source: turns a SourceSpec into its Sources (one, or
// several for the apiservers of one cluster). Pair it with Session::prepared():
//   auto session = Session::prepared(SourceFactory::create(spec, &error), spec, outputs, &error);
class SourceFactory {
public:
    // Empty, and one clear line in *error, for a kind this build cannot run yet.
    static std::vector<std::unique_ptr<Source>> create(const SourceSpec& spec, QString* error);
};

} // namespace ws
