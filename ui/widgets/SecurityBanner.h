#pragma once

#include <QLabel>
#include <QStringList>

namespace ws {

// A strip across the top of the window naming what weakens the session's security (TLS
// verification off, credentials sent in clear): visible for as long as that session is shown,
// so that turning verification off is never silent. Hidden when there is nothing to say.
class SecurityBanner : public QLabel {
    Q_OBJECT
public:
    explicit SecurityBanner(QWidget* parent = nullptr);

    void setWarnings(const QStringList& warnings);
    QStringList warnings() const { return m_warnings; }

private:
    QStringList m_warnings;
};

} // namespace ws
