#include "Kubeconfig.h"

#include "util/OneLine.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QSet>
#include <yaml-cpp/yaml.h>

namespace ws {

namespace {

const QLatin1String kExecExtension("client.authentication.k8s.io/exec");
const QLatin1String kExecV1("client.authentication.k8s.io/v1");
const QLatin1String kExecV1beta1("client.authentication.k8s.io/v1beta1");

QString str(const YAML::Node& n) {
    if (!n || !n.IsScalar())
        return {};
    return QString::fromStdString(n.Scalar());
}

// kubectl decodes kubeconfigs through sigs.k8s.io/yaml, which resolves booleans the YAML 1.1
// way: yes/on/y are true too.
std::optional<bool> yamlBool(const QString& v) {
    static const QStringList yes{
        QStringLiteral("true"), QStringLiteral("True"), QStringLiteral("TRUE"),
        QStringLiteral("yes"),  QStringLiteral("Yes"),  QStringLiteral("YES"),
        QStringLiteral("on"),   QStringLiteral("On"),   QStringLiteral("ON"),
        QStringLiteral("y"),    QStringLiteral("Y")};
    static const QStringList no{
        QStringLiteral("false"), QStringLiteral("False"), QStringLiteral("FALSE"),
        QStringLiteral("no"),    QStringLiteral("No"),    QStringLiteral("NO"),
        QStringLiteral("off"),   QStringLiteral("Off"),   QStringLiteral("OFF"),
        QStringLiteral("n"),     QStringLiteral("N")};
    if (yes.contains(v))
        return true;
    if (no.contains(v))
        return false;
    return std::nullopt;
}

bool truthy(const QString& v) {
    return yamlBool(v).value_or(false);
}

// An extension's YAML as the JSON client-go would hand the plugin (untagged scalars typed the
// YAML 1.1 way, quoted ones stay strings).
QJsonValue toJson(const YAML::Node& n) {
    switch (n.Type()) {
    case YAML::NodeType::Map: {
        QJsonObject o;
        for (const auto& kv : n)
            o.insert(str(kv.first), toJson(kv.second));
        return o;
    }
    case YAML::NodeType::Sequence: {
        QJsonArray a;
        for (const YAML::Node& e : n)
            a.append(toJson(e));
        return a;
    }
    case YAML::NodeType::Scalar: {
        const QString s = str(n);
        if (n.Tag() == "!")
            return s;
        if (const auto b = yamlBool(s))
            return *b;
        if (s == QLatin1String("~") || s == QLatin1String("null") || s == QLatin1String("Null") ||
            s == QLatin1String("NULL"))
            return QJsonValue::Null;
        bool ok = false;
        if (const qint64 i = s.toLongLong(&ok); ok)
            return i;
        if (const double d = s.toDouble(&ok); ok)
            return d;
        return s;
    }
    default:
        return QJsonValue::Null;
    }
}

// The scalar fields of a cluster / context / user map, by their kubeconfig names.
QHash<QString, QString> scalars(const YAML::Node& map) {
    QHash<QString, QString> out;
    if (!map || !map.IsMap())
        return out;
    for (const auto& kv : map)
        if (kv.second.IsScalar())
            out.insert(str(kv.first), str(kv.second));
    return out;
}

QString resolve(const QString& file, const QString& path) {
    if (path.isEmpty() || QDir::isAbsolutePath(path))
        return path;
    return QDir::cleanPath(QFileInfo(file).absoluteDir().filePath(path));
}

bool readFile(const QString& path, const QString& what, QByteArray* out, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1 %2: %3").arg(what, path, f.errorString());
        return false;
    }
    *out = f.readAll();
    return true;
}

// A file a kubeconfig entry names (CA, certificate, key, token): the error names both.
bool readReferenced(const QString& kubeconfig, const QString& path, const QString& what,
                    QByteArray* out, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("kubeconfig %1: cannot read the %2 (%3): %4")
                     .arg(kubeconfig, what, path, f.errorString());
        return false;
    }
    *out = f.readAll();
    return true;
}

bool decodeData(const QString& value, const QString& field, const QString& file, QByteArray* out,
                QString* error) {
    // Go's base64.StdEncoding: padded, no whitespace inside; a trailing newline is common in
    // hand-written files and harmless.
    const auto decoded = QByteArray::fromBase64Encoding(
        value.toLatin1().trimmed().replace('\r', QByteArray()).replace('\n', QByteArray()),
        QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded) {
        // Never show the value: it may be a key.
        *error = QStringLiteral("kubeconfig %1: %2 is not valid base64").arg(file, field);
        return false;
    }
    *out = *decoded;
    return true;
}

QString yamlError(const QString& path, const char* what, const YAML::Exception& e) {
    // yaml-cpp's messages name the construct, never the text around it.
    QString out = QStringLiteral("kubeconfig %1: %2").arg(path, QLatin1String(what));
    if (!e.mark.is_null())
        out += QStringLiteral(" at line %1, column %2").arg(e.mark.line + 1).arg(e.mark.column + 1);
    return out + QStringLiteral(": ") + QString::fromStdString(e.msg);
}

} // namespace

// Names, paths and yaml-cpp's messages quote the file: the error line is made one line here,
// once for every way of failing (found by tests/fuzz/fuzz_kubeconfig).
std::optional<Kubeconfig> Kubeconfig::load(const QString& explicitPath, QString* error) {
    auto k = loadFiles(explicitPath, error);
    if (!k)
        *error = oneLine(*error);
    return k;
}

std::optional<ClusterTarget> Kubeconfig::target(const QString& context, QString* error) const {
    auto t = resolveContext(context, error);
    if (!t)
        *error = oneLine(*error);
    return t;
}

std::optional<Kubeconfig> Kubeconfig::loadFiles(const QString& explicitPath, QString* error) {
    Kubeconfig k;
    QStringList paths;
    const QString env = qEnvironmentVariable("KUBECONFIG");
    if (!explicitPath.isEmpty()) {
        if (!QFileInfo::exists(explicitPath)) {
            *error = QStringLiteral("kubeconfig %1: no such file").arg(explicitPath);
            return std::nullopt;
        }
        paths << explicitPath;
    } else if (!env.isEmpty()) {
        for (const QString& p : env.split(u':', Qt::SkipEmptyParts))
            if (QFileInfo::exists(p) && !paths.contains(p))
                paths << p; // missing files are skipped and duplicates read once, as kubectl does
        if (paths.isEmpty()) {
            *error = QStringLiteral("none of the files in KUBECONFIG exists (%1)").arg(env);
            return std::nullopt;
        }
    } else {
        const QString home = QDir::home().filePath(QStringLiteral(".kube/config"));
        if (!QFileInfo::exists(home)) {
            *error = QStringLiteral("no kubeconfig: %1 does not exist and KUBECONFIG is not set")
                         .arg(home);
            return std::nullopt;
        }
        paths << home;
    }
    for (const QString& p : paths)
        if (!k.addFile(p, error))
            return std::nullopt;
    return k;
}

bool Kubeconfig::addFile(const QString& path, QString* error) {
    QByteArray bytes;
    if (!readFile(path, QStringLiteral("kubeconfig"), &bytes, error))
        return false;
    YAML::Node root;
    try {
        root = YAML::Load(bytes.toStdString());
    } catch (const YAML::Exception& e) {
        *error = yamlError(path, "invalid YAML", e);
        return false;
    }
    m_files << path;
    if (!root || root.IsNull())
        return true; // an empty file contributes nothing
    if (!root.IsMap()) {
        *error = QStringLiteral("kubeconfig %1: not a kubeconfig (expected a map with clusters, "
                                "contexts and users)")
                     .arg(path);
        return false;
    }
    try {
        if (m_currentContext.isEmpty())
            m_currentContext = str(root["current-context"]);
        auto section = [&](const char* list, const char* item,
                           QHash<QString, Entry>& into) -> bool {
            const YAML::Node entries = root[list];
            if (!entries || entries.IsNull())
                return true;
            if (!entries.IsSequence()) {
                *error = QStringLiteral("kubeconfig %1: '%2' must be a list")
                             .arg(path, QLatin1String(list));
                return false;
            }
            QSet<QString> seen; // client-go refuses a name listed twice in one file
            for (const YAML::Node& e : entries) {
                const QString name = e.IsMap() ? str(e["name"]) : QString();
                if (name.isEmpty()) {
                    *error = QStringLiteral("kubeconfig %1: an entry of '%2' has no name%3")
                                 .arg(path, QLatin1String(list),
                                      e.Mark().is_null()
                                          ? QString()
                                          : QStringLiteral(" (line %1)").arg(e.Mark().line + 1));
                    return false;
                }
                if (seen.contains(name)) {
                    *error = QStringLiteral("kubeconfig %1: '%2' has two entries named '%3'")
                                 .arg(path, QLatin1String(list), name);
                    return false;
                }
                seen.insert(name);
                if (into.contains(name))
                    continue; // the first file that defines a name wins, as a whole
                Entry entry;
                entry.file = path;
                const YAML::Node body = e[item];
                entry.fields = scalars(body);
                if (body && body.IsMap()) {
                    if (const YAML::Node exec = body["exec"]; exec && exec.IsMap()) {
                        ExecConfig x;
                        x.apiVersion = str(exec["apiVersion"]);
                        x.command = str(exec["command"]);
                        // A bare name is looked up in PATH; anything with a '/' is a path.
                        if (x.command.contains(u'/'))
                            x.command = resolve(path, x.command);
                        if (const YAML::Node args = exec["args"]; args && args.IsSequence())
                            for (const YAML::Node& a : args)
                                x.args << str(a);
                        if (const YAML::Node vars = exec["env"]; vars && vars.IsSequence())
                            for (const YAML::Node& v : vars)
                                x.env.append({str(v["name"]), str(v["value"])});
                        x.installHint = str(exec["installHint"]);
                        x.provideClusterInfo = truthy(str(exec["provideClusterInfo"]));
                        x.interactiveMode = str(exec["interactiveMode"]);
                        entry.exec = x;
                    }
                    entry.impersonate.user = entry.fields.value(QStringLiteral("as"));
                    entry.impersonate.uid = entry.fields.value(QStringLiteral("as-uid"));
                    if (const YAML::Node groups = body["as-groups"]; groups && groups.IsSequence())
                        for (const YAML::Node& g : groups)
                            entry.impersonate.groups << str(g);
                    if (const YAML::Node extra = body["as-user-extra"]; extra && extra.IsMap())
                        for (const auto& kv : extra) {
                            QStringList values;
                            if (kv.second.IsSequence())
                                for (const YAML::Node& v : kv.second)
                                    values << str(v);
                            entry.impersonate.extra.append({str(kv.first), values});
                        }
                    if (const YAML::Node ap = body["auth-provider"]; ap && ap.IsMap()) {
                        entry.authProvider = str(ap["name"]);
                        entry.authProviderConfig = scalars(ap["config"]);
                    }
                    if (const YAML::Node ext = body["extensions"]; ext && ext.IsSequence())
                        for (const YAML::Node& x : ext)
                            if (x.IsMap() && str(x["name"]) == kExecExtension) {
                                const QJsonValue v = toJson(x["extension"]);
                                entry.execExtension =
                                    v.isObject()
                                        ? QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)
                                        : QByteArray();
                            }
                }
                into.insert(name, entry);
            }
            return true;
        };
        return section("clusters", "cluster", m_clusters) &&
               section("contexts", "context", m_contexts) && section("users", "user", m_users);
    } catch (const YAML::Exception& e) {
        *error = yamlError(path, "unexpected structure", e);
        return false;
    }
}

QString Kubeconfig::where() const {
    return m_files.size() == 1 ? QStringLiteral("kubeconfig ") + m_files.front()
                               : QStringLiteral("kubeconfig (%1)").arg(m_files.join(u':'));
}

QStringList Kubeconfig::contextNames() const {
    QStringList names = m_contexts.keys();
    names.sort();
    return names;
}

QString Kubeconfig::contextNamespace(const QString& context) const {
    const QString ns = m_contexts.value(context).fields.value(QStringLiteral("namespace"));
    return ns.isEmpty() ? QStringLiteral("default") : ns;
}

std::optional<ClusterTarget> Kubeconfig::resolveContext(const QString& context,
                                                        QString* error) const {
    auto listed = [this] {
        QStringList names = contextNames();
        if (names.isEmpty())
            return QStringLiteral("none");
        const bool more = names.size() > 10;
        QString out = names.mid(0, 10).join(QStringLiteral(", "));
        if (more)
            out += QStringLiteral(", ... %1 more").arg(names.size() - 10);
        return out;
    };
    const QString name = context.isEmpty() ? m_currentContext : context;
    if (name.isEmpty()) {
        *error = QStringLiteral("%1 has no current-context: choose a context (contexts: %2)")
                     .arg(where(), listed());
        return std::nullopt;
    }
    if (!m_contexts.contains(name)) {
        *error = QStringLiteral("%1: context '%2' not found (contexts: %3)")
                     .arg(where(), name, listed());
        return std::nullopt;
    }
    const Entry& ctx = *m_contexts.constFind(name);
    ClusterTarget t;
    t.context = name;
    t.cluster = ctx.fields.value(QStringLiteral("cluster"));
    t.user = ctx.fields.value(QStringLiteral("user"));
    t.defaultNamespace = contextNamespace(name);
    t.namespaceNamed = !ctx.fields.value(QStringLiteral("namespace")).isEmpty();
    auto fail = [&](const QString& file, const QString& what) {
        *error = QStringLiteral("kubeconfig %1: %2").arg(file, what);
        return std::nullopt;
    };
    if (t.cluster.isEmpty())
        return fail(ctx.file, QStringLiteral("context '%1' names no cluster").arg(name));
    if (!m_clusters.contains(t.cluster))
        return fail(ctx.file,
                    QStringLiteral("context '%1' names cluster '%2', which is not defined")
                        .arg(name, t.cluster));
    // kubectl goes on anonymously when the user is missing; a typo there is far likelier than
    // an intent, so say so.
    if (!t.user.isEmpty() && !m_users.contains(t.user))
        return fail(
            ctx.file,
            QStringLiteral("context '%1' names user '%2', which is not defined").arg(name, t.user));

    const Entry& cluster = *m_clusters.constFind(t.cluster);
    const auto& cf = cluster.fields;
    const QString cname = QStringLiteral("cluster '%1'").arg(t.cluster);
    const Entry* user = t.user.isEmpty() ? nullptr : &*m_users.constFind(t.user);
    const QHash<QString, QString> uf = user ? user->fields : QHash<QString, QString>();
    const QString uname = QStringLiteral("user '%1'").arg(t.user);

    // Data and file both set: clientcmd's validation refuses it (ConfirmUsable).
    auto both = [&](const QHash<QString, QString>& f, const char* field) {
        return !f.value(QLatin1String(field)).isEmpty() &&
               !f.value(QLatin1String(field) + QLatin1String("-data")).isEmpty();
    };
    if (both(cf, "certificate-authority"))
        return fail(cluster.file, QStringLiteral("%1 sets both certificate-authority and "
                                                 "certificate-authority-data")
                                      .arg(cname));
    for (const char* field : {"client-certificate", "client-key"})
        if (both(uf, field))
            return fail(
                user->file,
                QStringLiteral("%1 sets both %2 and %2-data").arg(uname, QLatin1String(field)));

    const QString serverText = cf.value(QStringLiteral("server"));
    if (serverText.isEmpty())
        return fail(cluster.file, QStringLiteral("%1 has no server").arg(cname));
    // client-go's DefaultServerURL: a server without a scheme ("10.0.0.1:6443") is https when
    // TLS is configured (a CA, a client certificate, insecure-skip-tls-verify), else http.
    const bool hasCa = !cf.value(QStringLiteral("certificate-authority")).isEmpty() ||
                       !cf.value(QStringLiteral("certificate-authority-data")).isEmpty();
    const bool hasCert = !uf.value(QStringLiteral("client-certificate")).isEmpty() ||
                         !uf.value(QStringLiteral("client-certificate-data")).isEmpty();
    t.insecureSkipTlsVerify = truthy(cf.value(QStringLiteral("insecure-skip-tls-verify")));
    t.server = QUrl(serverText);
    if (!serverText.contains(QLatin1String("://")))
        t.server = QUrl((hasCa || hasCert || t.insecureSkipTlsVerify ? QStringLiteral("https://")
                                                                     : QStringLiteral("http://")) +
                        serverText);
    // The URL is never shown: it may carry userinfo.
    if (!t.server.isValid() || t.server.host().isEmpty() ||
        (t.server.scheme() != QLatin1String("https") && t.server.scheme() != QLatin1String("http")))
        return fail(cluster.file,
                    QStringLiteral("%1 has an invalid server URL (expected https://host[:port])")
                        .arg(cname));

    if (const QString data = cf.value(QStringLiteral("certificate-authority-data"));
        !data.isEmpty()) {
        if (!decodeData(data, QStringLiteral("certificate-authority-data of ") + cname,
                        cluster.file, &t.certificateAuthorityPem, error))
            return std::nullopt;
    } else if (const QString file = cf.value(QStringLiteral("certificate-authority"));
               !file.isEmpty()) {
        if (!readReferenced(cluster.file, resolve(cluster.file, file),
                            QStringLiteral("certificate-authority of ") + cname,
                            &t.certificateAuthorityPem, error))
            return std::nullopt;
    }
    // client-go's transport refuses this pair ("specifying a root certificates file with the
    // insecure flag is not allowed").
    if (t.insecureSkipTlsVerify && hasCa)
        return fail(cluster.file, QStringLiteral("%1 sets both a certificate authority and "
                                                 "insecure-skip-tls-verify")
                                      .arg(cname));
    t.tlsServerName = cf.value(QStringLiteral("tls-server-name"));
    if (const QString proxy = cf.value(QStringLiteral("proxy-url")); !proxy.isEmpty()) {
        t.proxyUrl = QUrl(proxy);
        const QString scheme = t.proxyUrl.scheme();
        if (scheme != QLatin1String("http") && scheme != QLatin1String("https") &&
            scheme != QLatin1String("socks5"))
            return fail(cluster.file, QStringLiteral("%1 has a proxy-url with an unsupported "
                                                     "scheme (must be http, https or socks5)")
                                          .arg(cname));
        if (!t.proxyUrl.isValid() || t.proxyUrl.host().isEmpty())
            return fail(cluster.file, QStringLiteral("%1 has an invalid proxy-url").arg(cname));
    }

    if (!user)
        return t; // no credentials (a cluster without authentication)

    if (user->authProvider == QLatin1String("oidc")) {
        // client-go 0.35 still registers the oidc provider (kubectl imports it).
        const auto& ac = user->authProviderConfig;
        OidcConfig o;
        o.issuerUrl = ac.value(QStringLiteral("idp-issuer-url"));
        o.clientId = ac.value(QStringLiteral("client-id"));
        o.clientSecret = ac.value(QStringLiteral("client-secret"));
        o.idToken = ac.value(QStringLiteral("id-token"));
        o.refreshToken = ac.value(QStringLiteral("refresh-token"));
        o.kubeconfigFile = user->file;
        o.user = t.user;
        const QString provider = QStringLiteral("the oidc auth-provider of %1").arg(uname);
        if (o.issuerUrl.isEmpty())
            return fail(user->file, QStringLiteral("%1 has no idp-issuer-url").arg(provider));
        if (o.clientId.isEmpty())
            return fail(user->file, QStringLiteral("%1 has no client-id").arg(provider));
        if (const QString data = ac.value(QStringLiteral("idp-certificate-authority-data"));
            !data.isEmpty()) {
            if (!decodeData(data, QStringLiteral("idp-certificate-authority-data of ") + provider,
                            user->file, &o.issuerCaPem, error))
                return std::nullopt;
        } else if (const QString caFile = ac.value(QStringLiteral("idp-certificate-authority"));
                   !caFile.isEmpty()) {
            // client-go reads this path as it is written (clientcmd does not resolve it).
            if (!readReferenced(user->file, caFile,
                                QStringLiteral("idp-certificate-authority of ") + provider,
                                &o.issuerCaPem, error))
                return std::nullopt;
        }
        t.oidc = o;
    } else if (user->authProvider == QLatin1String("gcp") ||
               user->authProvider == QLatin1String("azure")) {
        return fail(user->file,
                    QStringLiteral("%1 uses auth-provider '%2', which is not supported (kubectl "
                                   "dropped it in 1.26): use an exec plugin")
                        .arg(uname, user->authProvider));
    } else if (!user->authProvider.isEmpty()) {
        return fail(user->file, QStringLiteral("%1 uses auth-provider '%2', which client-go does "
                                               "not know (it has only oidc)")
                                    .arg(uname, user->authProvider));
    }
    auto pem = [&](const char* fileField, QByteArray* out) {
        const QString dataField = QLatin1String(fileField) + QLatin1String("-data");
        if (const QString data = uf.value(dataField); !data.isEmpty())
            return decodeData(data, QStringLiteral("%1 of %2").arg(dataField, uname), user->file,
                              out, error);
        if (const QString file = uf.value(QLatin1String(fileField)); !file.isEmpty())
            return readReferenced(user->file, resolve(user->file, file),
                                  QStringLiteral("%1 of %2").arg(QLatin1String(fileField), uname),
                                  out, error);
        return true;
    };
    if (!pem("client-certificate", &t.clientCertificatePem) || !pem("client-key", &t.clientKeyPem))
        return std::nullopt;
    if (t.clientCertificatePem.isEmpty() != t.clientKeyPem.isEmpty())
        return fail(user->file, QStringLiteral("%1 has a client certificate without its key (or a "
                                               "key without its certificate)")
                                    .arg(uname));
    t.token = uf.value(QStringLiteral("token"));
    t.username = uf.value(QStringLiteral("username"));
    t.password = uf.value(QStringLiteral("password"));
    // A certificate may go with anything; a token and basic auth may not (clientcmd refuses it).
    if (!t.token.isEmpty() && (!t.username.isEmpty() || !t.password.isEmpty()))
        return fail(user->file, QStringLiteral("%1 has both a token and a username/password: "
                                               "only one authentication method is allowed")
                                    .arg(uname));
    if (const QString file = uf.value(QStringLiteral("tokenFile")); !file.isEmpty()) {
        t.tokenFile = resolve(user->file, file);
        // clientcmd reads the file up front when there is no token, so a missing one fails now;
        // the transport re-reads it per request (projected tokens rotate).
        if (t.token.isEmpty()) {
            QByteArray content;
            if (!readReferenced(user->file, t.tokenFile, QStringLiteral("tokenFile of ") + uname,
                                &content, error))
                return std::nullopt;
            if (content.trimmed().isEmpty())
                return fail(
                    user->file,
                    QStringLiteral("the tokenFile %1 of %2 is empty").arg(t.tokenFile, uname));
        }
    }
    t.impersonate = user->impersonate;
    if (t.impersonate.isSet()) {
        const Impersonation& as = t.impersonate;
        // clientcmd's validation refuses the same.
        if (as.user.isEmpty())
            return fail(user->file, QStringLiteral("%1 requests uid, groups or user-extra without "
                                                   "impersonating a user (as)")
                                        .arg(uname));
        // client-go sends one header line per group and per extra value; Qt 6.4's request
        // holds one value per header name, and a comma-joined line would name one group
        // "a, b": refused rather than acting as someone else.
        bool several = as.groups.size() > 1;
        for (const auto& [key, values] : as.extra)
            several = several || values.size() > 1;
        if (several)
            return fail(user->file, QStringLiteral("%1 impersonates with more than one value in "
                                                   "as-groups or an as-user-extra key, which "
                                                   "this build cannot send (one header line per "
                                                   "name)")
                                        .arg(uname));
    }
    t.exec = user->exec;
    if (t.exec) {
        ExecConfig& x = *t.exec;
        const QString plugin = QStringLiteral("the exec plugin of %1").arg(uname);
        if (x.command.isEmpty())
            return fail(user->file, QStringLiteral("%1 has no command").arg(plugin));
        if (x.apiVersion.isEmpty())
            return fail(user->file, QStringLiteral("%1 has no apiVersion").arg(plugin));
        if (x.apiVersion != kExecV1 && x.apiVersion != kExecV1beta1)
            return fail(user->file, QStringLiteral("%1 has apiVersion '%2' (supported: %3, %4)")
                                        .arg(plugin, x.apiVersion, kExecV1, kExecV1beta1));
        for (const auto& [var, value] : std::as_const(x.env))
            if (var.isEmpty())
                return fail(user->file,
                            QStringLiteral("%1 has an env entry without a name").arg(plugin));
        // v1 makes interactiveMode mandatory; v1beta1 defaults it to IfAvailable.
        if (x.interactiveMode.isEmpty() && x.apiVersion == kExecV1beta1)
            x.interactiveMode = QStringLiteral("IfAvailable");
        if (x.interactiveMode.isEmpty())
            return fail(
                user->file,
                QStringLiteral("%1 needs interactiveMode (required by %2)").arg(plugin, kExecV1));
        if (x.interactiveMode != QLatin1String("Never") &&
            x.interactiveMode != QLatin1String("IfAvailable") &&
            x.interactiveMode != QLatin1String("Always"))
            return fail(user->file, QStringLiteral("%1 has an invalid interactiveMode '%2' "
                                                   "(Never, IfAvailable or Always)")
                                        .arg(plugin, x.interactiveMode));
        x.clusterConfig = cluster.execExtension;
    }
    return t;
}

} // namespace ws
