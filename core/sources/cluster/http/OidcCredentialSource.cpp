#include "OidcCredentialSource.h"

#include "EnvironmentProxyFactory.h"
#include "sources/cluster/kubeconfig/OidcTokenPersister.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QThread>
#include <QUrlQuery>
#include <mutex>
#include <vector>

namespace ws {

struct OidcCredentialSource::State {
    std::mutex mutex;
    OidcConfig config;
    std::vector<Ready> waiting;
    QThread* refresh = nullptr; // the refresh under way or last run; joined before the next
    bool running = false;
};

namespace {

struct Answer {
    int status = 0; // 0: no HTTP answer
    QByteArray reason;
    QByteArray contentType;
    QByteArray body;
    QString error; // transport error
};

// One request on this thread's own event loop (the refresh thread has nothing else to do).
Answer exchange(QNetworkAccessManager& nam, const QUrl& url, const QByteArray& caPem,
                const QByteArray* form, const QByteArray& basicAuth) {
    QNetworkRequest request(url);
    request.setTransferTimeout(OidcCredentialSource::kRequestTimeoutMs);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::NoLessSafeRedirectPolicy);
    if (url.scheme() == QLatin1String("https")) {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        if (!caPem.isEmpty()) // it replaces the system's CAs, as client-go's CAData does
            tls.setCaCertificates(QSslCertificate::fromData(caPem, QSsl::Pem));
        request.setSslConfiguration(tls);
    }
    if (!basicAuth.isEmpty())
        request.setRawHeader("Authorization", "Basic " + basicAuth.toBase64());
    QNetworkReply* reply = nullptr;
    if (form) {
        request.setHeader(QNetworkRequest::ContentTypeHeader,
                          QByteArrayLiteral("application/x-www-form-urlencoded"));
        reply = nam.post(request, *form);
    } else {
        reply = nam.get(request);
    }
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    Answer a;
    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    if (status.isValid()) {
        a.status = status.toInt();
        a.reason = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray();
        a.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
        a.body = reply->readAll();
    } else {
        a.error = reply->errorString();
    }
    reply->deleteLater();
    return a;
}

// At most 80 bytes of a body, on one line (an HTML error page says nothing more).
QString excerpt(const QByteArray& body) {
    QString s = QString::fromUtf8(body.left(80)).simplified();
    if (body.size() > 80)
        s += QStringLiteral("...");
    return s;
}

// The token response: JSON, or a form for text/plain and form content types (oauth2's rules).
QJsonObject tokenFields(const Answer& a) {
    const QByteArray type = a.contentType.split(';').front().trimmed().toLower();
    if (type == "application/x-www-form-urlencoded" || type == "text/plain") {
        QJsonObject o;
        const QUrlQuery q(QString::fromUtf8(a.body));
        for (const auto& [name, value] : q.queryItems(QUrl::FullyDecoded))
            o.insert(name, value);
        return o;
    }
    return QJsonDocument::fromJson(a.body).object();
}

// The refresh itself, as client-go's idToken() does it. The new id-token, or nullopt and *error.
std::optional<QString> refresh(OidcConfig& config, QString* error) {
    auto fail = [&](const QString& message) {
        *error = message;
        return std::nullopt;
    };
    QNetworkAccessManager nam;
    nam.setProxyFactory(new EnvironmentProxyFactory());
    QString issuer = config.issuerUrl;
    while (issuer.endsWith(u'/'))
        issuer.chop(1);
    const QUrl wellKnown(issuer + QStringLiteral("/.well-known/openid-configuration"));
    const Answer discovery = exchange(nam, wellKnown, config.issuerCaPem, nullptr, {});
    if (discovery.status == 0)
        return fail(QStringLiteral("oidc: %1: %2")
                        .arg(wellKnown.toString(QUrl::RemoveUserInfo), discovery.error));
    if (discovery.status != 200)
        return fail(QStringLiteral("oidc: failed to query metadata endpoint %1 %2: \"%3\"")
                        .arg(discovery.status)
                        .arg(QString::fromUtf8(discovery.reason), excerpt(discovery.body)));
    QJsonParseError parse;
    const QJsonDocument metadata = QJsonDocument::fromJson(discovery.body, &parse);
    if (parse.error != QJsonParseError::NoError || !metadata.isObject())
        return fail(QStringLiteral("oidc: failed to decode provider discovery object"));
    const QUrl tokenUrl(metadata.object().value(QLatin1String("token_endpoint")).toString());
    if (tokenUrl.isEmpty())
        return fail(QStringLiteral("oidc: discovery object doesn't contain a token_endpoint"));

    // oauth2 tries the client credentials as basic auth first (each part form-encoded), then
    // as form fields.
    auto formEncode = [](const QString& s) {
        return QUrl::toPercentEncoding(s).replace("%20", "+");
    };
    const QByteArray grant =
        "grant_type=refresh_token&refresh_token=" + formEncode(config.refreshToken);
    Answer token = exchange(nam, tokenUrl, config.issuerCaPem, &grant,
                            formEncode(config.clientId) + ':' + formEncode(config.clientSecret));
    if (token.status < 200 || token.status > 299) {
        QByteArray inParams = grant + "&client_id=" + formEncode(config.clientId);
        if (!config.clientSecret.isEmpty())
            inParams += "&client_secret=" + formEncode(config.clientSecret);
        token = exchange(nam, tokenUrl, config.issuerCaPem, &inParams, {});
    }
    if (token.status == 0)
        return fail(QStringLiteral("failed to refresh token: %1").arg(token.error));
    const QJsonObject fields = tokenFields(token);
    if (token.status < 200 || token.status > 299) {
        const QString code = fields.value(QLatin1String("error")).toString();
        if (!code.isEmpty())
            return fail(QStringLiteral("failed to refresh token: oauth2: \"%1\" \"%2\"")
                            .arg(code, fields.value(QLatin1String("error_description"))
                                           .toString()
                                           .simplified()
                                           .left(200)));
        return fail(QStringLiteral("failed to refresh token: oauth2: cannot fetch token: %1 %2: "
                                   "\"%3\"")
                        .arg(token.status)
                        .arg(QString::fromUtf8(token.reason), excerpt(token.body)));
    }
    if (fields.value(QLatin1String("access_token")).toString().isEmpty())
        return fail(QStringLiteral(
            "failed to refresh token: oauth2: server response missing access_token"));
    const QString idToken = fields.value(QLatin1String("id_token")).toString();
    if (idToken.isEmpty())
        return fail(QStringLiteral(
            "token response did not contain an id_token, either the scope \"openid\" wasn't "
            "requested upon login, or the provider doesn't support id_tokens as part of the "
            "refresh response"));
    QString refreshToken = fields.value(QLatin1String("refresh_token")).toString();
    if (refreshToken.isEmpty())
        refreshToken = config.refreshToken;
    QString why;
    if (!OidcTokenPersister::persist(config, idToken, refreshToken, &why))
        return fail(QStringLiteral("could not persist new tokens: %1").arg(why));
    config.idToken = idToken;
    config.refreshToken = refreshToken;
    return idToken;
}

} // namespace

OidcCredentialSource::OidcCredentialSource(OidcConfig config) : m_state(std::make_shared<State>()) {
    m_state->config = std::move(config);
}

OidcCredentialSource::~OidcCredentialSource() {
    QThread* thread = nullptr;
    {
        std::lock_guard lock(m_state->mutex);
        thread = std::exchange(m_state->refresh, nullptr);
    }
    if (thread) {
        thread->wait();
        delete thread;
    }
}

std::optional<QDateTime> OidcCredentialSource::expiryOf(const QString& idToken, QString* error) {
    const QStringList parts = idToken.split(u'.');
    if (parts.size() != 3) {
        *error = QStringLiteral("ID Token is not a valid JWT");
        return std::nullopt;
    }
    const auto payload = QByteArray::fromBase64Encoding(
        parts[1].toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals |
                                 QByteArray::AbortOnBase64DecodingErrors);
    const QJsonDocument claims = payload ? QJsonDocument::fromJson(*payload) : QJsonDocument();
    if (!claims.isObject()) {
        *error = QStringLiteral("ID Token is not a valid JWT (its claims are not JSON)");
        return std::nullopt;
    }
    // A number, integer or not; client-go reads a missing exp as the Unix epoch (expired).
    const qint64 exp = qint64(claims.object().value(QLatin1String("exp")).toDouble());
    return QDateTime::fromSecsSinceEpoch(exp, Qt::UTC);
}

void OidcCredentialSource::fetch(Ready ready) {
    std::unique_lock lock(m_state->mutex);
    const OidcConfig& c = m_state->config;
    const QString who = QStringLiteral("oidc auth-provider of user '%1'").arg(c.user);
    if (!m_state->running && !c.idToken.isEmpty()) {
        QString error;
        const auto expiry = expiryOf(c.idToken, &error);
        if (!expiry) {
            lock.unlock();
            return ready(std::nullopt, QStringLiteral("%1: %2").arg(who, error));
        }
        // client-go's expiryDelta: 10 s early, against clock skew.
        if (QDateTime::currentDateTimeUtc().addSecs(10) < *expiry) {
            const HttpCredentials token{c.idToken, {}, {}};
            lock.unlock();
            return ready(token, QString());
        }
    }
    if (c.refreshToken.isEmpty()) {
        lock.unlock();
        return ready(std::nullopt,
                     QStringLiteral("%1: no valid id-token, and cannot refresh without "
                                    "refresh-token")
                         .arg(who));
    }
    m_state->waiting.push_back(std::move(ready));
    if (m_state->running)
        return;
    m_state->running = true;
    if (QThread* previous = std::exchange(m_state->refresh, nullptr)) {
        previous->wait(); // it ended: running was false
        delete previous;
    }
    m_state->refresh = QThread::create([state = m_state, who] {
        OidcConfig config;
        {
            std::lock_guard lock(state->mutex);
            config = state->config;
        }
        QString error;
        const std::optional<QString> idToken = refresh(config, &error);
        std::vector<Ready> waiting;
        {
            std::lock_guard lock(state->mutex);
            if (idToken)
                state->config = config;
            state->running = false;
            waiting.swap(state->waiting);
        }
        for (Ready& r : waiting) {
            if (idToken)
                r(HttpCredentials{*idToken, {}, {}}, QString());
            else
                r(std::nullopt, QStringLiteral("%1: %2").arg(who, error));
        }
    });
    m_state->refresh->setObjectName(QStringLiteral("oidc-refresh"));
    m_state->refresh->start();
}

} // namespace ws
