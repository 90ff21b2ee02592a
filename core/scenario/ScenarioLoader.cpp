#include "ScenarioLoader.h"

#include "kube/FeatureGates.h"
#include "util/Duration.h"
#include "util/OneLine.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <set>
#include <yaml-cpp/yaml.h>

// The scenario files are compiled into the core static library; a static library's resources
// must be registered explicitly (outside any namespace).
static void initScenarioResources() {
    Q_INIT_RESOURCE(scenarios);
}

namespace ws {

namespace {

void ensureResources() {
    static const bool once = (initScenarioResources(), true);
    (void)once;
}

struct ScenarioError {
    int line; // 1-based, 0: none
    QString what;
};

[[noreturn]] void fail(const YAML::Node& node, const QString& what) {
    throw ScenarioError{node.Mark().line >= 0 ? node.Mark().line + 1 : 0, what};
}

// A mapping whose keys are checked: reading a key marks it known; finish() rejects the rest.
class MapReader {
public:
    MapReader(const YAML::Node& node, QString where) : m_node(node), m_where(std::move(where)) {
        if (!node.IsMap())
            fail(node, QStringLiteral("%1 must be a mapping").arg(m_where));
    }
    YAML::Node get(const char* key) {
        m_known.insert(key);
        return m_node[key];
    }
    YAML::Node require(const char* key) {
        YAML::Node n = get(key);
        if (!n)
            fail(m_node, QStringLiteral("%1: missing required field '%2'").arg(m_where, key));
        return n;
    }
    void finish() {
        for (auto it = m_node.begin(); it != m_node.end(); ++it) {
            const std::string key = it->first.as<std::string>();
            if (!m_known.count(key)) {
                QStringList known;
                for (const auto& k : m_known)
                    known << QString::fromStdString(k);
                fail(it->first, QStringLiteral("%1: unknown key '%2' (expected one of: %3)")
                                    .arg(m_where, QString::fromStdString(key),
                                         known.join(QStringLiteral(", "))));
            }
        }
    }
    const QString& where() const { return m_where; }

private:
    YAML::Node m_node;
    QString m_where;
    std::set<std::string> m_known;
};

QString text(const YAML::Node& n, const QString& what) {
    if (!n.IsScalar())
        fail(n, QStringLiteral("%1 must be a string").arg(what));
    return QString::fromStdString(n.as<std::string>());
}

double number(const YAML::Node& n, const QString& what, double min, double max) {
    double v = 0;
    try {
        v = n.as<double>();
    } catch (const YAML::Exception&) {
        fail(n, QStringLiteral("%1: '%2' is not a number")
                    .arg(what, QString::fromStdString(n.Scalar())));
    }
    if (v < min || v > max)
        fail(n, QStringLiteral("%1: %2 is out of range [%3, %4]")
                    .arg(what, QString::number(v, 'g', 15), QString::number(min, 'g', 15),
                         QString::number(max, 'g', 15)));
    return v;
}

int integer(const YAML::Node& n, const QString& what, int min, int max) {
    const double v = number(n, what, min, max);
    if (v != static_cast<int>(v))
        fail(n, QStringLiteral("%1: %2 is not a whole number").arg(what).arg(v));
    return static_cast<int>(v);
}

bool boolean(const YAML::Node& n, const QString& what) {
    try {
        return n.as<bool>();
    } catch (const YAML::Exception&) {
        fail(n, QStringLiteral("%1: '%2' is not true or false")
                    .arg(what, QString::fromStdString(n.Scalar())));
    }
}

TimeUs duration(const YAML::Node& n, const QString& what) {
    QString error;
    const auto d = parseDuration(text(n, what), &error);
    if (!d)
        fail(n, QStringLiteral("%1: %2").arg(what, error));
    return *d;
}

template <typename T, typename F>
void optional(MapReader& m, const char* key, T& target, F convert) {
    if (YAML::Node n = m.get(key))
        target = convert(n, QStringLiteral("%1.%2").arg(m.where(), key));
}

Scenario parseScenario(const YAML::Node& root) {
    Scenario s;
    MapReader top(root, QStringLiteral("scenario"));
    s.name = text(top.require("name"), QStringLiteral("name"));
    s.description = text(top.require("description"), QStringLiteral("description"));
    s.explanation = text(top.require("explanation"), QStringLiteral("explanation"));
    s.duration = duration(top.require("duration"), QStringLiteral("duration"));
    if (YAML::Node n = top.get("seed"))
        s.seed = static_cast<std::uint64_t>(number(n, QStringLiteral("seed"), 0, 1e15));

    if (YAML::Node n = top.get("etcd")) {
        MapReader m(n, QStringLiteral("etcd"));
        optional(m, "version", s.etcd.version, text);
        optional(m, "progressNotifyInterval", s.etcd.progressNotifyInterval, duration);
        optional(m, "compactionInterval", s.etcd.compactionInterval, duration);
        if (YAML::Node r = m.get("streamEventsPerSecond"))
            s.etcd.streamEventsPerSecond =
                number(r, QStringLiteral("etcd.streamEventsPerSecond"), 0, 1e9);
        m.finish();
    }
    {
        MapReader m(top.require("server"), QStringLiteral("server"));
        s.server.version = text(m.require("version"), QStringLiteral("server.version"));
        if (YAML::Node n = m.get("count"))
            s.server.count = integer(n, QStringLiteral("server.count"), 1, 16);
        if (YAML::Node n = m.get("loadBalancer"))
            s.server.loadBalancer = boolean(n, QStringLiteral("server.loadBalancer"));
        if (YAML::Node n = m.get("requestTimeout")) {
            s.server.requestTimeout = duration(n, QStringLiteral("server.requestTimeout"));
            if (s.server.requestTimeout < seconds(1) || s.server.requestTimeout > seconds(3600))
                fail(n, QStringLiteral("server.requestTimeout must be between 1s and 1h"));
        }
        if (YAML::Node mem = m.get("memory")) {
            MapReader mm(mem, QStringLiteral("server.memory"));
            s.server.memory.enabled = true;
            auto bytes = [&](const char* key, std::int64_t& out) {
                if (YAML::Node n = mm.get(key))
                    out = static_cast<std::int64_t>(
                        number(n, QStringLiteral("server.memory.%1").arg(key), 0, 1e15));
            };
            bytes("baselineBytes", s.server.memory.baselineBytes);
            bytes("limitBytes", s.server.memory.limitBytes);
            if (YAML::Node n = mm.get("listBytesPerSecond"))
                s.server.memory.listBytesPerSecond =
                    number(n, QStringLiteral("server.memory.listBytesPerSecond"), 0, 1e12);
            optional(mm, "restartAfter", s.server.memory.restartAfter, duration);
            mm.finish();
        }
        if (YAML::Node gates = m.get("featureGates")) {
            MapReader g(gates, QStringLiteral("server.featureGates"));
            // Only what kube-apiserver of that version accepts (a bad version is reported later).
            const auto profile = ServerProfile::fromVersion(s.server.version, nullptr);
            for (const FeatureGate& gate : FeatureGates::all()) {
                if (YAML::Node n = g.get(gate.name)) {
                    const bool on = boolean(n, QLatin1String(gate.name));
                    if (profile)
                        if (auto why =
                                FeatureGates::rejection(*profile, QLatin1String(gate.name), on))
                            fail(n, QStringLiteral("server.featureGates: ") + *why);
                    s.server.featureGates.insert(QLatin1String(gate.name), on);
                }
            }
            g.finish();
        }
        m.finish();
    }
    const YAML::Node resources = top.require("resources");
    if (!resources.IsSequence() || resources.size() == 0)
        fail(resources, QStringLiteral("resources must be a non-empty list"));
    for (std::size_t i = 0; i < resources.size(); ++i) {
        MapReader m(resources[i], QStringLiteral("resources[%1]").arg(i));
        ResourceSpec r;
        r.name = text(m.require("name"), m.where() + QStringLiteral(".name"));
        if (YAML::Node n = m.get("objects"))
            r.objects = integer(n, m.where() + QStringLiteral(".objects"), 0, 1000000);
        if (YAML::Node n = m.get("writesPerSecond"))
            r.writesPerSecond = number(n, m.where() + QStringLiteral(".writesPerSecond"), 0, 1e7);
        if (YAML::Node n = m.get("valueBytes"))
            r.valueBytes = integer(n, m.where() + QStringLiteral(".valueBytes"), 200, 1 << 20);
        if (YAML::Node n = m.get("deleteShare"))
            r.deleteShare = number(n, m.where() + QStringLiteral(".deleteShare"), 0, 0.5);
        if (YAML::Node n = m.get("namespaces"))
            r.namespaces = integer(n, m.where() + QStringLiteral(".namespaces"), 1, 10000);
        if (YAML::Node n = m.get("selectorGroups"))
            r.selectorGroups = integer(n, m.where() + QStringLiteral(".selectorGroups"), 1, 100000);
        if (YAML::Node n = m.get("cacherListDuration"))
            r.cacherListDuration = duration(n, m.where() + QStringLiteral(".cacherListDuration"));
        m.finish();
        s.resources.push_back(r);
    }
    if (YAML::Node clients = top.get("clients")) {
        if (!clients.IsSequence())
            fail(clients, QStringLiteral("clients must be a list"));
        for (std::size_t i = 0; i < clients.size(); ++i) {
            MapReader m(clients[i], QStringLiteral("clients[%1]").arg(i));
            ClientSpec c;
            c.name = text(m.require("name"), m.where() + QStringLiteral(".name"));
            c.resource = text(m.require("resource"), m.where() + QStringLiteral(".resource"));
            if (!s.resourceNames().contains(c.resource))
                fail(clients[i]["resource"],
                     QStringLiteral("%1.resource: '%2' is not a resource of this scenario")
                         .arg(m.where(), c.resource));
            optional(m, "clientGo", c.clientGo, text);
            if (YAML::Node n = m.get("count"))
                c.count = integer(n, m.where() + QStringLiteral(".count"), 1, 100000);
            if (YAML::Node n = m.get("readEventsPerSecond"))
                c.readEventsPerSecond =
                    number(n, m.where() + QStringLiteral(".readEventsPerSecond"), 0, 1e9);
            if (YAML::Node n = m.get("selectorGroup"))
                c.selectorGroup =
                    integer(n, m.where() + QStringLiteral(".selectorGroup"), 0, 100000);
            if (YAML::Node n = m.get("apiserver"))
                c.apiserver =
                    integer(n, m.where() + QStringLiteral(".apiserver"), 0, s.server.count - 1);
            optional(m, "startAt", c.startAt, duration);
            optional(m, "startSpread", c.startSpread, duration);
            if (YAML::Node n = m.get("watchOnly"))
                c.watchOnly = boolean(n, m.where() + QStringLiteral(".watchOnly"));
            if (YAML::Node n = m.get("consistentFirstList"))
                c.consistentFirstList =
                    boolean(n, m.where() + QStringLiteral(".consistentFirstList"));
            if (YAML::Node n = m.get("via")) {
                const QString via = text(n, m.where() + QStringLiteral(".via"));
                if (via == QLatin1String("proxy-without-initial-events-end"))
                    c.viaInitialEventsProxy = true;
                else if (via == QLatin1String("proxy-dropping-bookmarks"))
                    c.viaBookmarkDroppingProxy = true;
                else if (via != QLatin1String("direct"))
                    fail(n, QStringLiteral("%1.via: unknown '%2' (known: direct, "
                                           "proxy-without-initial-events-end, "
                                           "proxy-dropping-bookmarks)")
                                .arg(m.where(), via));
            }
            m.finish();
            s.clients.push_back(c);
        }
    }
    if (YAML::Node faults = top.get("faults")) {
        if (!faults.IsSequence())
            fail(faults, QStringLiteral("faults must be a list"));
        static const QStringList kinds = {QStringLiteral("compact"),
                                          QStringLiteral("restart-apiserver"),
                                          QStringLiteral("partition-apiserver"),
                                          QStringLiteral("stall-stream"),
                                          QStringLiteral("restart-client"),
                                          QStringLiteral("slow-reader"),
                                          QStringLiteral("write-burst")};
        for (std::size_t i = 0; i < faults.size(); ++i) {
            MapReader m(faults[i], QStringLiteral("faults[%1]").arg(i));
            FaultSpec f;
            f.at = duration(m.require("at"), m.where() + QStringLiteral(".at"));
            f.kind = text(m.require("kind"), m.where() + QStringLiteral(".kind"));
            if (!kinds.contains(f.kind))
                fail(faults[i]["kind"],
                     QStringLiteral("%1.kind: unknown fault '%2' (known: %3)")
                         .arg(m.where(), f.kind, kinds.join(QStringLiteral(", "))));
            const int lastServer = s.server.count - 1;
            if (YAML::Node n = m.get("apiserver"))
                f.apiserver = integer(n, m.where() + QStringLiteral(".apiserver"), 0, lastServer);
            // What each fault needs to mean anything; a fault that would silently do nothing is
            // a mistake in the file.
            const bool needsClient =
                f.kind == QLatin1String("restart-client") || f.kind == QLatin1String("slow-reader");
            const bool needsResource = f.kind == QLatin1String("write-burst");
            const bool needsDuration =
                f.kind == QLatin1String("stall-stream") || f.kind == QLatin1String("write-burst");
            const bool needsRate =
                f.kind == QLatin1String("slow-reader") || f.kind == QLatin1String("write-burst");
            if (YAML::Node n = needsClient ? m.require("client") : m.get("client")) {
                f.client = text(n, m.where() + QStringLiteral(".client"));
                bool known = false;
                for (const ClientSpec& c : s.clients)
                    known = known || c.name == f.client;
                if (!known)
                    fail(n, QStringLiteral("%1.client: no client is named '%2'")
                                .arg(m.where(), f.client));
            }
            if (YAML::Node n = needsResource ? m.require("resource") : m.get("resource")) {
                f.resource = text(n, m.where() + QStringLiteral(".resource"));
                if (!s.resourceNames().contains(f.resource))
                    fail(n, QStringLiteral("%1.resource: '%2' is not a resource of this scenario")
                                .arg(m.where(), f.resource));
            }
            if (YAML::Node n = needsDuration ? m.require("duration") : m.get("duration"))
                f.duration = duration(n, m.where() + QStringLiteral(".duration"));
            optional(m, "stagger", f.stagger, duration);
            if (YAML::Node n = needsRate ? m.require("rate") : m.get("rate"))
                f.rate = number(n, m.where() + QStringLiteral(".rate"), 0, 1e9);
            if (YAML::Node n = m.get("toApiserver"))
                f.toApiserver =
                    integer(n, m.where() + QStringLiteral(".toApiserver"), 0, lastServer);
            m.finish();
            s.faults.push_back(f);
        }
    }
    top.finish();
    return s;
}

} // namespace

QStringList ScenarioLoader::builtinNames() {
    ensureResources();
    QStringList names;
    for (const QString& f : QDir(QStringLiteral(":/scenarios"))
                                .entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name))
        names << QFileInfo(f).completeBaseName();
    // The baseline first, the incidents after it in name order.
    if (names.removeOne(QStringLiteral("healthy")))
        names.prepend(QStringLiteral("healthy"));
    return names;
}

std::vector<ScenarioSummary> ScenarioLoader::builtinSummaries(QString* error) {
    std::vector<ScenarioSummary> out;
    for (const QString& name : builtinNames()) {
        const auto s = load(name, error);
        if (!s)
            return {};
        out.push_back({name, s->description});
    }
    return out;
}

std::optional<Scenario> ScenarioLoader::parse(const QByteArray& yaml, const QString& fileName,
                                              QString* error) {
    try {
        const YAML::Node root = YAML::Load(yaml.toStdString());
        Scenario s = parseScenario(root);
        s.sourcePath = fileName;
        s.yaml = yaml;
        return s;
    } catch (const ScenarioError& e) {
        if (error)
            *error =
                e.line > 0
                    ? QStringLiteral("%1:%2: %3").arg(fileName).arg(e.line).arg(oneLine(e.what))
                    : QStringLiteral("%1: %2").arg(fileName, oneLine(e.what));
    } catch (const YAML::Exception& e) {
        if (error)
            *error = QStringLiteral("%1:%2: %3")
                         .arg(fileName)
                         .arg(e.mark.line + 1)
                         .arg(QString::fromStdString(oneLine(e.msg)));
    }
    return std::nullopt;
}

std::optional<Scenario> ScenarioLoader::load(const QString& nameOrPath, QString* error) {
    ensureResources();
    const bool looksLikePath = nameOrPath.contains(QLatin1Char('/')) ||
                               nameOrPath.endsWith(QLatin1String(".yaml")) ||
                               nameOrPath.endsWith(QLatin1String(".yml"));
    const QString path =
        looksLikePath ? nameOrPath : QStringLiteral(":/scenarios/%1.yaml").arg(nameOrPath);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = looksLikePath
                         ? QStringLiteral("cannot read scenario file '%1': %2")
                               .arg(nameOrPath, file.errorString())
                         : QStringLiteral("unknown scenario '%1' (known: %2)")
                               .arg(nameOrPath, builtinNames().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    return parse(file.readAll(), looksLikePath ? nameOrPath : nameOrPath + QStringLiteral(".yaml"),
                 error);
}

} // namespace ws
