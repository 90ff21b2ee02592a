#include "Kubeconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <yaml-cpp/yaml.h>

namespace ws {

namespace {

QString str(const YAML::Node& n) {
    if (!n || !n.IsScalar())
        return {};
    return QString::fromStdString(n.as<std::string>());
}

// The scalar fields of a cluster / context / user map, by their kubeconfig names.
QHash<QString, QString> scalars(const YAML::Node& map) {
    QHash<QString, QString> out;
    if (!map || !map.IsMap())
        return out;
    for (const auto& kv : map)
        if (kv.second.IsScalar())
            out.insert(QString::fromStdString(kv.first.as<std::string>()), str(kv.second));
    return out;
}

QString resolve(const QString& file, const QString& path) {
    if (path.isEmpty() || QDir::isAbsolutePath(path))
        return path;
    return QFileInfo(file).absoluteDir().filePath(path);
}

bool readFile(const QString& path, const char* what, QByteArray* out, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error =
            QStringLiteral("cannot read %1 %2: %3").arg(QLatin1String(what), path, f.errorString());
        return false;
    }
    *out = f.readAll();
    return true;
}

bool decodeData(const QString& value, const QString& field, const QString& file, QByteArray* out,
                QString* error) {
    const auto decoded = QByteArray::fromBase64Encoding(
        value.toLatin1().trimmed(),
        QByteArray::Base64Encoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded) {
        // Never show the value: it may be a key.
        *error = QStringLiteral("kubeconfig %1: %2 is not valid base64").arg(file, field);
        return false;
    }
    *out = *decoded;
    return true;
}

bool truthy(const QString& v) {
    return v.compare(QLatin1String("true"), Qt::CaseInsensitive) == 0;
}

} // namespace

std::optional<Kubeconfig> Kubeconfig::load(const QString& explicitPath, QString* error) {
    Kubeconfig k;
    QStringList paths;
    if (!explicitPath.isEmpty()) {
        if (!QFileInfo::exists(explicitPath)) {
            *error = QStringLiteral("kubeconfig %1: no such file").arg(explicitPath);
            return std::nullopt;
        }
        paths << explicitPath;
    } else if (qEnvironmentVariableIsSet("KUBECONFIG") &&
               !qEnvironmentVariable("KUBECONFIG").isEmpty()) {
        for (const QString& p : qEnvironmentVariable("KUBECONFIG").split(u':', Qt::SkipEmptyParts))
            if (QFileInfo::exists(p) && !paths.contains(p))
                paths << p; // missing files are skipped, as kubectl does
        if (paths.isEmpty()) {
            *error = QStringLiteral("none of the files in KUBECONFIG exists (%1)")
                         .arg(qEnvironmentVariable("KUBECONFIG"));
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
    if (!readFile(path, "kubeconfig", &bytes, error))
        return false;
    YAML::Node root;
    try {
        root = YAML::Load(bytes.toStdString());
    } catch (const YAML::Exception& e) {
        *error = QStringLiteral("kubeconfig %1: invalid YAML at line %2: %3")
                     .arg(path)
                     .arg(e.mark.line + 1)
                     .arg(QString::fromStdString(e.msg));
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
            if (!entries)
                return true;
            if (!entries.IsSequence()) {
                *error = QStringLiteral("kubeconfig %1: '%2' must be a list")
                             .arg(path, QLatin1String(list));
                return false;
            }
            for (const YAML::Node& e : entries) {
                const QString name = str(e["name"]);
                if (name.isEmpty()) {
                    *error = QStringLiteral("kubeconfig %1: an entry of '%2' has no name")
                                 .arg(path, QLatin1String(list));
                    return false;
                }
                if (into.contains(name))
                    continue; // the first file that defines a name wins
                Entry entry;
                entry.file = path;
                const YAML::Node body = e[item];
                entry.fields = scalars(body);
                if (body && body.IsMap()) {
                    if (const YAML::Node exec = body["exec"]; exec && exec.IsMap()) {
                        ExecConfig x;
                        x.apiVersion = str(exec["apiVersion"]);
                        x.command = str(exec["command"]);
                        if (x.command.contains(u'/'))
                            x.command = resolve(path, x.command);
                        for (const YAML::Node& a : exec["args"])
                            x.args << str(a);
                        for (const YAML::Node& v : exec["env"])
                            x.env.append({str(v["name"]), str(v["value"])});
                        x.installHint = str(exec["installHint"]);
                        x.provideClusterInfo = truthy(str(exec["provideClusterInfo"]));
                        x.interactiveMode = str(exec["interactiveMode"]);
                        entry.exec = x;
                    }
                    if (const YAML::Node ap = body["auth-provider"]; ap && ap.IsMap())
                        entry.authProvider = str(ap["name"]);
                }
                into.insert(name, entry);
            }
            return true;
        };
        return section("clusters", "cluster", m_clusters) &&
               section("contexts", "context", m_contexts) && section("users", "user", m_users);
    } catch (const YAML::Exception& e) {
        *error = QStringLiteral("kubeconfig %1: unexpected structure at line %2: %3")
                     .arg(path)
                     .arg(e.mark.line + 1)
                     .arg(QString::fromStdString(e.msg));
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

std::optional<ClusterTarget> Kubeconfig::target(const QString& context, QString* error) const {
    const QString name = context.isEmpty() ? m_currentContext : context;
    if (name.isEmpty()) {
        *error = QStringLiteral("%1 has no current-context: pass --context (contexts: %2)")
                     .arg(where(), contextNames().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    if (!m_contexts.contains(name)) {
        QStringList names = contextNames();
        const bool more = names.size() > 10;
        names = names.mid(0, 10);
        *error =
            QStringLiteral("%1: context '%2' not found (contexts: %3%4)")
                .arg(where(), name,
                     names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")),
                     more ? QStringLiteral(", ...") : QString());
        return std::nullopt;
    }
    const Entry& ctx = m_contexts[name];
    ClusterTarget t;
    t.context = name;
    t.cluster = ctx.fields.value(QStringLiteral("cluster"));
    t.user = ctx.fields.value(QStringLiteral("user"));
    t.defaultNamespace = contextNamespace(name);
    if (!m_clusters.contains(t.cluster)) {
        *error =
            QStringLiteral("kubeconfig %1: context '%2' names cluster '%3', which is not defined")
                .arg(ctx.file, name, t.cluster);
        return std::nullopt;
    }
    const Entry& cluster = m_clusters[t.cluster];
    const QString server = cluster.fields.value(QStringLiteral("server"));
    t.server = QUrl(server);
    if (server.isEmpty() || !t.server.isValid() || t.server.host().isEmpty() ||
        (t.server.scheme() != QLatin1String("https") &&
         t.server.scheme() != QLatin1String("http"))) {
        *error = QStringLiteral("kubeconfig %1: cluster '%2' has %3")
                     .arg(cluster.file, t.cluster,
                          server.isEmpty() ? QStringLiteral("no server")
                                           : QStringLiteral("an invalid server URL"));
        return std::nullopt;
    }
    const auto& cf = cluster.fields;
    if (cf.contains(QStringLiteral("certificate-authority-data"))) {
        if (!decodeData(cf.value(QStringLiteral("certificate-authority-data")),
                        QStringLiteral("certificate-authority-data of cluster ") + t.cluster,
                        cluster.file, &t.certificateAuthorityPem, error))
            return std::nullopt;
    } else if (cf.contains(QStringLiteral("certificate-authority"))) {
        if (!readFile(resolve(cluster.file, cf.value(QStringLiteral("certificate-authority"))),
                      "certificate-authority", &t.certificateAuthorityPem, error))
            return std::nullopt;
    }
    t.insecureSkipTlsVerify = truthy(cf.value(QStringLiteral("insecure-skip-tls-verify")));
    t.tlsServerName = cf.value(QStringLiteral("tls-server-name"));
    if (cf.contains(QStringLiteral("proxy-url"))) {
        t.proxyUrl = QUrl(cf.value(QStringLiteral("proxy-url")));
        if (!t.proxyUrl.isValid() || t.proxyUrl.host().isEmpty()) {
            *error = QStringLiteral("kubeconfig %1: cluster '%2' has an invalid proxy-url")
                         .arg(cluster.file, t.cluster);
            return std::nullopt;
        }
    }
    if (t.user.isEmpty())
        return t; // no credentials (a cluster without authentication)
    if (!m_users.contains(t.user)) {
        *error = QStringLiteral("kubeconfig %1: context '%2' names user '%3', which is not defined")
                     .arg(ctx.file, name, t.user);
        return std::nullopt;
    }
    const Entry& user = m_users[t.user];
    const auto& uf = user.fields;
    if (!user.authProvider.isEmpty()) {
        *error = QStringLiteral("kubeconfig %1: user '%2' uses auth-provider '%3', which is not "
                                "supported (removed from kubectl in 1.26): use an exec plugin")
                     .arg(user.file, t.user, user.authProvider);
        return std::nullopt;
    }
    auto pem = [&](const char* dataField, const char* fileField, QByteArray* out) {
        if (uf.contains(QLatin1String(dataField)))
            return decodeData(uf.value(QLatin1String(dataField)),
                              QStringLiteral("%1 of user %2").arg(QLatin1String(dataField), t.user),
                              user.file, out, error);
        if (uf.contains(QLatin1String(fileField)))
            return readFile(resolve(user.file, uf.value(QLatin1String(fileField))), fileField, out,
                            error);
        return true;
    };
    if (!pem("client-certificate-data", "client-certificate", &t.clientCertificatePem) ||
        !pem("client-key-data", "client-key", &t.clientKeyPem))
        return std::nullopt;
    if (t.clientCertificatePem.isEmpty() != t.clientKeyPem.isEmpty()) {
        *error = QStringLiteral("kubeconfig %1: user '%2' has a client certificate without its key "
                                "(or a key without its certificate)")
                     .arg(user.file, t.user);
        return std::nullopt;
    }
    t.token = uf.value(QStringLiteral("token"));
    if (uf.contains(QStringLiteral("tokenFile")))
        t.tokenFile = resolve(user.file, uf.value(QStringLiteral("tokenFile")));
    t.username = uf.value(QStringLiteral("username"));
    t.password = uf.value(QStringLiteral("password"));
    t.exec = user.exec;
    if (t.exec) {
        if (t.exec->command.isEmpty()) {
            *error = QStringLiteral("kubeconfig %1: the exec plugin of user '%2' has no command")
                         .arg(user.file, t.user);
            return std::nullopt;
        }
        if (t.exec->apiVersion != QLatin1String("client.authentication.k8s.io/v1") &&
            t.exec->apiVersion != QLatin1String("client.authentication.k8s.io/v1beta1")) {
            *error = QStringLiteral("kubeconfig %1: the exec plugin of user '%2' has apiVersion "
                                    "'%3' (supported: client.authentication.k8s.io/v1, /v1beta1)")
                         .arg(user.file, t.user, t.exec->apiVersion);
            return std::nullopt;
        }
        if (t.exec->apiVersion.endsWith(QLatin1String("/v1")) &&
            t.exec->interactiveMode.isEmpty()) {
            *error = QStringLiteral("kubeconfig %1: the exec plugin of user '%2' needs "
                                    "interactiveMode (required by client.authentication.k8s.io/v1)")
                         .arg(user.file, t.user);
            return std::nullopt;
        }
    }
    return t;
}

} // namespace ws
