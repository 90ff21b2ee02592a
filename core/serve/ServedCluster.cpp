#include "ServedCluster.h"

#include "scenario/ScenarioLoader.h"
#include "scenario/ScenarioOverrides.h"
#include "sources/sim/etcd/SimEtcd.h"
#include "util/JsonText.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace ws {

namespace {

// encoding/json's name for a JSON value's type, as its UnmarshalTypeError says it.
const char* goJsonType(const QJsonValue& v) {
    switch (v.type()) {
    case QJsonValue::Bool:
        return "bool";
    case QJsonValue::Double:
        return "number";
    case QJsonValue::String:
        return "string";
    case QJsonValue::Array:
        return "array";
    case QJsonValue::Object:
        return "object";
    default:
        return "null";
    }
}

// A ConfigMap's data (map[string]string) and binaryData (map[string][]byte) hold strings: the
// apiserver's decoder refuses anything else with encoding/json's error, as a 400. Empty if the
// object decodes.
QString configMapDecodeError(const QJsonObject& object) {
    const struct {
        QLatin1String field;
        QLatin1String valueType;
    } fields[] = {{QLatin1String("data"), QLatin1String("string")},
                  {QLatin1String("binaryData"), QLatin1String("[]uint8")}};
    const auto refused = [](const QJsonValue& v, QLatin1String field, const QString& type) {
        return QStringLiteral("json: cannot unmarshal %1 into Go struct field ConfigMap.%2 of "
                              "type %3")
            .arg(QLatin1String(goJsonType(v)), field, type);
    };
    for (const auto& f : fields) {
        const QJsonValue v = object.value(f.field);
        if (v.isUndefined() || v.isNull())
            continue;
        if (!v.isObject())
            return refused(v, f.field, QStringLiteral("map[string]") + f.valueType);
        const QJsonObject map = v.toObject();
        for (auto it = map.begin(); it != map.end(); ++it)
            if (!it.value().isString() && !it.value().isNull())
                return refused(it.value(), f.field, f.valueType);
    }
    return {};
}

std::string compact(const QJsonValue& v) {
    const QByteArray wrapped = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2).toStdString();
}

ApiStatus status(int code, const QString& reason, const QString& message) {
    ApiStatus s;
    s.code = code;
    s.reason = reason;
    s.message = message;
    return s;
}

// spec.nodeName "node-N" is the simulator's selector group N (the field selector kubelets use).
int selectorGroupOf(const QJsonObject& object) {
    static const QRegularExpression node(QStringLiteral("^node-(\\d+)$"));
    const auto m = node.match(
        object.value(QLatin1String("spec")).toObject().value(QLatin1String("nodeName")).toString());
    return m.hasMatch() ? m.captured(1).toInt() : -1;
}

} // namespace

std::unique_ptr<ServedCluster> ServedCluster::create(const ServeOptions& options, QString* error) {
    auto scenario = ScenarioLoader::load(options.scenario, error);
    if (!scenario)
        return nullptr;
    std::unique_ptr<ServedCluster> c(new ServedCluster);
    c->m_scenario = std::move(*scenario);
    Scenario& s = c->m_scenario;
    ScenarioOverrides overrides;
    overrides.serverVersion = options.serverVersion;
    overrides.featureGates = options.featureGates;
    overrides.etcdVersion = options.etcdVersion;
    if (!overrides.apply(s, error))
        return nullptr;
    if (options.apiserver < 0 || options.apiserver >= s.server.count) {
        *error = QStringLiteral("--apiserver %1: scenario '%2' has %3 apiserver(s) (0..%4)")
                     .arg(options.apiserver)
                     .arg(s.name)
                     .arg(s.server.count)
                     .arg(s.server.count - 1);
        return nullptr;
    }
    // Clients create ConfigMaps (kubectl create configmap): a cluster always has them.
    if (!s.resourceNames().contains(QStringLiteral("configmaps"))) {
        ResourceSpec cm;
        cm.name = QStringLiteral("configmaps");
        cm.objects = 0;
        cm.writesPerSecond = 0;
        s.resources.push_back(cm);
    }
    c->m_apiserver = options.apiserver;
    c->m_speed = options.speed > 0 ? options.speed : 1.0;
    c->m_stopAt = options.duration;
    const std::uint64_t seed = options.seed.value_or(s.seed);
    Simulation::Restore restore;
    if (!options.stateDir.isEmpty()) {
        c->m_journal = std::make_unique<StoreJournal>();
        if (!c->m_journal->open(options.stateDir, error))
            return nullptr;
        if (QFileInfo(c->m_journal->path()).size() > 0) {
            StoreJournal* journal = c->m_journal.get();
            QString* warning = &c->m_warning;
            restore = [journal, warning](SimKeyspace& keys, SimEtcd& etcd, QString* why) {
                return journal->restore(keys, etcd, why, warning);
            };
        }
    }
    c->m_sim = Simulation::create(s, seed, c->m_pipeline, error, restore);
    if (!c->m_sim)
        return nullptr;
    // Objects created by clients after a restart get uids and generated names not used before.
    c->m_nextUid = static_cast<std::uint64_t>(c->m_sim->etcd().currentRevision());
    if (c->m_journal && !c->m_journal->sync(c->etcd(), c->keyspace(), error))
        return nullptr;
    // Served until stopped: the scenario's faults play at their times, then the cluster runs on.
    c->m_sim->setDuration(std::numeric_limits<TimeUs>::max() / 2);
    for (const ResourceSpec& r : s.resources)
        c->m_resources.push_back(ResourceCatalog::lookup(r.name));
    return c;
}

ServedCluster::~ServedCluster() = default;

ApiServer& ServedCluster::server() const {
    return *m_sim->apiservers()[static_cast<std::size_t>(m_apiserver)];
}

int ServedCluster::resourceIndex(const QString& plural, const QString& group) const {
    for (std::size_t i = 0; i < m_resources.size(); ++i)
        if (m_resources[i].plural == plural && m_resources[i].group == group)
            return static_cast<int>(i);
    return -1;
}

bool ServedCluster::advanceTo(TimeUs wallElapsed, const std::function<void()>& afterTick) {
    const auto target = static_cast<TimeUs>(static_cast<double>(wallElapsed) * m_speed);
    // Two ticks at most per call: the sockets write between calls, so a heavy load (50,000
    // events/s: 500 a tick) reaches the clients as it is made instead of piling up in the
    // watchers' buffers while the simulation catches up (which closed even fast clients).
    for (int i = 0; i < 2; ++i) {
        if (m_sim->now() + Simulation::kTick > target)
            return false;
        if (m_stopAt && m_sim->now() >= *m_stopAt) {
            m_finished = true;
            return false;
        }
        m_sim->step();
        keep();
        afterTick();
    }
    return m_sim->now() + Simulation::kTick <= target;
}

void ServedCluster::keep() {
    QString error;
    if (m_journal && m_failure.isEmpty() &&
        !m_journal->sync(m_sim->etcd(), m_sim->keyspace(), &error))
        m_failure = error;
}

ApiStatus ServedCluster::notFound(const ResourceInfo& info, const QString& name) {
    QString what = info.plural;
    if (!info.group.isEmpty())
        what += u'.' + info.group;
    ApiStatus s = status(404, QStringLiteral("NotFound"),
                         QStringLiteral("%1 \"%2\" not found").arg(what, name));
    s.detailsName = name;
    s.detailsGroup = info.group;
    s.detailsKind = info.plural;
    return s;
}

ServedCluster::WriteResult ServedCluster::create(int resource, const QString& ns,
                                                 const QByteArray& body) {
    return write(resource, ns, {}, body, true);
}

ServedCluster::WriteResult ServedCluster::update(int resource, const QString& ns,
                                                 const QString& name, const QByteArray& body) {
    return write(resource, ns, name, body, false);
}

ServedCluster::WriteResult ServedCluster::write(int resource, const QString& pathNs,
                                                const QString& pathName, const QByteArray& body,
                                                bool create) {
    const ResourceInfo& info = m_resources[static_cast<std::size_t>(resource)];
    WriteResult r;
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &perr);
    if (!doc.isObject()) {
        r.httpStatus = 400;
        r.status = status(400, QStringLiteral("BadRequest"),
                          QStringLiteral("the body of the request was in an unknown format: %1")
                              .arg(perr.error == QJsonParseError::NoError
                                       ? QStringLiteral("not a JSON object")
                                       : perr.errorString()));
        return r;
    }
    QJsonObject object = doc.object();
    const QString kind = object.value(QLatin1String("kind")).toString();
    if (!kind.isEmpty() && kind != info.kind) {
        r.httpStatus = 400;
        r.status = status(400, QStringLiteral("BadRequest"),
                          QStringLiteral("the kind of the provided object (%1) does not match "
                                         "the resource (%2)")
                              .arg(kind, info.kind));
        return r;
    }
    if (info.kind == QLatin1String("ConfigMap") && info.group.isEmpty()) {
        const QString decode = configMapDecodeError(object);
        if (!decode.isEmpty()) {
            r.httpStatus = 400;
            r.status = status(400, QStringLiteral("BadRequest"),
                              QStringLiteral("ConfigMap in version \"%1\" cannot be handled as a "
                                             "ConfigMap: %2")
                                  .arg(info.version, decode));
            return r;
        }
    }
    QJsonObject meta = object.value(QLatin1String("metadata")).toObject();
    QString name = meta.value(QLatin1String("name")).toString();
    if (create && name.isEmpty()) {
        const QString prefix = meta.value(QLatin1String("generateName")).toString();
        if (!prefix.isEmpty())
            name = prefix + QString::number(m_nextUid * 7919 % 100000, 36);
    }
    if (!create && !name.isEmpty() && name != pathName) {
        r.httpStatus = 400;
        r.status = status(400, QStringLiteral("BadRequest"),
                          QStringLiteral("the name of the object (%1) does not match the name "
                                         "on the URL (%2)")
                              .arg(name, pathName));
        return r;
    }
    if (!create)
        name = pathName;
    if (name.isEmpty()) {
        r.httpStatus = 422;
        r.status = status(422, QStringLiteral("Invalid"),
                          QStringLiteral("%1 \"\" is invalid: metadata.name: Required value: "
                                         "name or generateName is required")
                              .arg(info.kind));
        return r;
    }
    QString ns = pathNs;
    const QString bodyNs = meta.value(QLatin1String("namespace")).toString();
    if (info.namespaced) {
        if (!bodyNs.isEmpty() && !ns.isEmpty() && bodyNs != ns) {
            r.httpStatus = 400;
            r.status = status(400, QStringLiteral("BadRequest"),
                              QStringLiteral("the namespace of the provided object does not "
                                             "match the namespace sent on the request"));
            return r;
        }
        if (ns.isEmpty())
            ns = bodyNs.isEmpty() ? QStringLiteral("default") : bodyNs;
    }
    SimEtcd& etcd = m_sim->etcd();
    SimKeyspace& keys = m_sim->keyspace();
    KeyId key = keys.findKey(resource, ns, name);
    const bool exists = key != kNoKey && etcd.exists(key);
    QString uid;
    QString created;
    if (create && exists) {
        QString what = info.plural;
        if (!info.group.isEmpty())
            what += u'.' + info.group;
        r.httpStatus = 409;
        r.status = status(409, QStringLiteral("AlreadyExists"),
                          QStringLiteral("%1 \"%2\" already exists").arg(what, name));
        return r;
    }
    if (!create) {
        if (!exists) {
            r.httpStatus = 404;
            r.status = notFound(info, name);
            return r;
        }
        const QString precondition = meta.value(QLatin1String("resourceVersion")).toString();
        if (!precondition.isEmpty() && precondition.toLongLong() != etcd.get(key)->modRev) {
            QString what = info.plural;
            if (!info.group.isEmpty())
                what += u'.' + info.group;
            r.httpStatus = 409;
            r.status = status(409, QStringLiteral("Conflict"),
                              QStringLiteral("Operation cannot be fulfilled on %1 \"%2\": the "
                                             "object has been modified; please apply your "
                                             "changes to the latest version and try again")
                                  .arg(what, name));
            return r;
        }
        const QJsonObject old =
            QJsonDocument::fromJson(QByteArray::fromStdString(std::string(etcd.get(key)->value())))
                .object()
                .value(QLatin1String("metadata"))
                .toObject();
        uid = old.value(QLatin1String("uid")).toString();
        created = old.value(QLatin1String("creationTimestamp")).toString();
    }
    if (uid.isEmpty())
        uid =
            QStringLiteral("5e7a11ed-0000-4000-8000-%1").arg(m_nextUid++, 12, 10, QLatin1Char('0'));
    if (created.isEmpty())
        created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);

    // Stored as etcd holds it: resourceVersion empty (it is the key's mod_revision), and first
    // in metadata so the serving path finds it without parsing.
    std::string v = R"({"kind":)";
    appendJsonString(v, info.kind);
    v += R"(,"apiVersion":)";
    appendJsonString(v, info.groupVersion());
    v += R"(,"metadata":{"resourceVersion":"","name":)";
    appendJsonString(v, name);
    if (info.namespaced) {
        v += R"(,"namespace":)";
        appendJsonString(v, ns);
    }
    v += R"(,"uid":)";
    appendJsonString(v, uid);
    v += R"(,"creationTimestamp":)";
    appendJsonString(v, created);
    for (const char* field : {"labels", "annotations", "ownerReferences", "finalizers"}) {
        const QJsonValue f = meta.value(QLatin1String(field));
        if (f.isObject() || f.isArray()) {
            v += ',';
            appendJsonString(v, std::string_view(field));
            v += ':';
            v += compact(f);
        }
    }
    v += '}';
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.key() == QLatin1String("kind") || it.key() == QLatin1String("apiVersion") ||
            it.key() == QLatin1String("metadata"))
            continue;
        v += ',';
        appendJsonString(v, it.key());
        v += ':';
        v += compact(it.value());
    }
    v += '}';

    if (key == kNoKey)
        key = keys.addKey(resource, ns, name, selectorGroupOf(object));
    keys.setExternal(key);
    r.rv = etcd.put(m_sim->now(), key, v);
    keep();
    if (!m_failure.isEmpty()) {
        // Not kept: the client must not believe it was (serve stops on its next tick).
        r.httpStatus = 500;
        r.status = status(500, QStringLiteral("InternalError"), m_failure);
        return r;
    }
    r.key = key;
    r.object = etcd.get(key);
    r.httpStatus = create ? 201 : 200;
    return r;
}

ServedCluster::WriteResult ServedCluster::remove(int resource, const QString& ns,
                                                 const QString& name) {
    const ResourceInfo& info = m_resources[static_cast<std::size_t>(resource)];
    WriteResult r;
    SimEtcd& etcd = m_sim->etcd();
    const KeyId key = m_sim->keyspace().findKey(resource, info.namespaced ? ns : QString(), name);
    if (key == kNoKey || !etcd.exists(key)) {
        r.httpStatus = 404;
        r.status = notFound(info, name);
        return r;
    }
    KeyValuePtr removed = etcd.get(key);
    r.key = key;
    r.rv = etcd.remove(m_sim->now(), key);
    keep();
    if (!m_failure.isEmpty()) {
        r.httpStatus = 500;
        r.status = status(500, QStringLiteral("InternalError"), m_failure);
        return r;
    }
    r.object = std::move(removed);
    r.httpStatus = 200;
    return r;
}

} // namespace ws
