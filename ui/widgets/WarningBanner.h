#pragma once

#include <QLabel>
#include <QStringList>

namespace ws {

// A strip across the top of the window naming what weakens the session's security (TLS
// verification off, credentials sent in clear), then what the session goes on without (an API
// group discovery could not read, a resource the user may not list): visible for as long as
// that session is shown, so that neither is ever silent. Hidden when there is nothing to say.
class WarningBanner : public QLabel {
    Q_OBJECT
public:
    explicit WarningBanner(QWidget* parent = nullptr);

    void setSecurityWarnings(const QStringList& warnings);
    void setSessionWarnings(const QStringList& warnings);
    QStringList securityWarnings() const { return m_security; }
    QStringList sessionWarnings() const { return m_session; }

private:
    void render();

    QStringList m_security;
    QStringList m_session;
};

} // namespace ws
