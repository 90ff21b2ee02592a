#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <optional>

namespace ws {

// Who a request is: a bearer token from kube-apiserver's static token file format
// (token,user,uid,"group1,group2"), or a verified client certificate (CN = user, O = groups).
struct ServeUser {
    QString name;
    QStringList groups;
};

class ServeAuthenticator {
public:
    // Loads the token file; false with one line (no token text) when it cannot.
    bool loadTokenFile(const QString& path, QString* error);
    std::optional<ServeUser> fromAuthorization(const QString& header) const;
    bool hasTokens() const { return !m_tokens.isEmpty(); }

private:
    QHash<QString, ServeUser> m_tokens;
};

} // namespace ws
