#include "OidcTokenPersister.h"

#include <QFile>
#include <QRegularExpression>
#include <QSaveFile>

namespace ws {

namespace {

// Characters a token may have to be written into a plain or quoted YAML scalar unchanged (JWTs
// and the usual opaque refresh tokens are made of these).
bool writable(const QString& token) {
    static const QRegularExpression safe(
        QRegularExpression::anchoredPattern(QStringLiteral("[A-Za-z0-9._~+/=-]+")));
    return safe.match(token).hasMatch();
}

} // namespace

bool OidcTokenPersister::persist(const OidcConfig& old, const QString& idToken,
                                 const QString& refreshToken, QString* error) {
    const QString& path = old.kubeconfigFile;
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, in.errorString());
        return false;
    }
    QString text = QString::fromUtf8(in.readAll());
    in.close();
    const QString before = text;
    if (refreshToken != old.refreshToken) {
        if (!writable(refreshToken)) {
            *error = QStringLiteral("the new refresh-token has characters that cannot be written "
                                    "into %1 as they are")
                         .arg(path);
            return false;
        }
        if (old.refreshToken.isEmpty() || !text.contains(old.refreshToken)) {
            *error = QStringLiteral("the refresh-token of user '%1' is no longer in %2 (changed "
                                    "meanwhile?)")
                         .arg(old.user, path);
            return false;
        }
        text.replace(old.refreshToken, refreshToken);
    }
    if (idToken != old.idToken && !old.idToken.isEmpty() && writable(idToken))
        text.replace(old.idToken, idToken);
    if (text == before)
        return true;
    QSaveFile out(path); // keeps the file's permissions; replaced at once or not at all
    if (!out.open(QIODevice::WriteOnly) || out.write(text.toUtf8()) < 0 || !out.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, out.errorString());
        return false;
    }
    return true;
}

} // namespace ws
