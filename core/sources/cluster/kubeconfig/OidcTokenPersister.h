#pragma once

#include "ClusterTarget.h"

#include <QString>

namespace ws {

// Writes refreshed OIDC tokens back into the kubeconfig file that defines the user, as client-go's
// oidc provider does after every refresh. Identity providers rotate refresh tokens on use (the
// spent one stops working), and kubectl reads the same file: left unwritten, kubectl would hold a
// dead refresh token and its user would have to log in again.
//
// Only the old token strings are replaced, in place: the rest of the file (comments, order,
// quoting) stays as the user wrote it, where kubectl would rewrite the whole file. A refresh-token
// that rotated must be written (else an error); an id-token is written where the file has one
// (an id-token left unwritten only costs kubectl one refresh).
class OidcTokenPersister {
public:
    // `old`: the tokens as the file holds them. False and one line (no token in it) on failure.
    static bool persist(const OidcConfig& old, const QString& idToken, const QString& refreshToken,
                        QString* error);
};

} // namespace ws
