#pragma once

#include "AuditCaller.h"

#include <QStringList>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ws {

// The AuditCallers met so far, found by the bytes of the log (no QString is made for a caller
// seen before). Grows with the distinct clients × resources × selectors × apiservers of a log,
// not with its length.
class AuditCallers {
public:
    explicit AuditCallers(QStringList apiservers) : m_apiservers(std::move(apiservers)) {}

    struct Key {
        int stream = 0;             // whose file, when there is no annotation
        std::string_view apiserver; // the annotation, "" when absent
        std::string_view username;
        std::string_view userAgent;
        std::string_view resource; // plural
        std::string_view group;    // "" core
        std::string_view labelSelector;
        std::string_view fieldSelector;
    };
    const AuditCaller& find(const Key& key);
    std::size_t size() const { return m_callers.size(); }

private:
    QStringList m_apiservers;          // by stream index
    std::deque<AuditCaller> m_callers; // a deque: the pointers handed out stay valid
    std::unordered_map<std::string, const AuditCaller*> m_byKey;
    std::string m_key; // reused
};

} // namespace ws
