#include "ListThrottle.h"

#include <algorithm>

namespace ws {

bool ListThrottle::admit(int server, const HttpRequest& request) {
    if (m_waiting.empty() && static_cast<int>(m_inFlight.size()) < kMaxInFlight) {
        m_inFlight.insert(request.id);
        return true;
    }
    m_waiting.push_back({server, request});
    return false;
}

bool ListThrottle::forget(int id) {
    if (m_inFlight.erase(id) > 0)
        return false;
    const auto it = std::find_if(m_waiting.begin(), m_waiting.end(),
                                 [id](const Waiting& w) { return w.request.id == id; });
    if (it == m_waiting.end())
        return false;
    m_waiting.erase(it);
    return true;
}

std::vector<ListThrottle::Waiting> ListThrottle::due() {
    std::vector<Waiting> out;
    while (!m_waiting.empty() && static_cast<int>(m_inFlight.size()) < kMaxInFlight) {
        m_inFlight.insert(m_waiting.front().request.id);
        out.push_back(std::move(m_waiting.front()));
        m_waiting.pop_front();
    }
    return out;
}

} // namespace ws
