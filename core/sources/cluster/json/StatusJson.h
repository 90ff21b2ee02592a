#pragma once

#include "kube/ApiStatus.h"

#include <QString>
#include <optional>
#include <string_view>

namespace ws {

// A metav1.Status from its JSON, as the apiserver sends it as the body of a failed list, get or
// watch request ({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
// "message":...,"reason":...,"details":{"causes":[...],"retryAfterSeconds":N},"code":N}).
// code, reason, message, the first cause and retryAfterSeconds are kept. Nothing when the body
// is not JSON, not an object of kind Status, or has a member of the wrong type; *error (may be
// null) says why. A proxy's HTML error page is such a body: the caller keeps the HTTP status.
std::optional<ApiStatus> parseStatusJson(std::string_view body, QString* error);

} // namespace ws
