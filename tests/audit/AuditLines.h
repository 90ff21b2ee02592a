#pragma once

// Audit log lines for the tests, in kube-apiserver's exact audit.k8s.io/v1 Event JSON (field
// order and shape of its json encoder at Metadata level: kind, apiVersion, level, auditID, stage,
// requestURI, verb, user, sourceIPs, userAgent, objectRef, responseStatus, the two timestamps,
// annotations), and helpers to write them as files.

#include <QByteArray>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QTimeZone>

namespace ws::test {

struct AuditLine {
    QString auditId;
    QString stage = QStringLiteral("ResponseComplete");
    QString verb = QStringLiteral("list");
    QString uri = QStringLiteral("/api/v1/configmaps?limit=500&resourceVersion=0");
    QString user = QStringLiteral("system:serviceaccount:kube-system:replicaset-controller");
    QString agent = QStringLiteral("kube-controller-manager/v1.30.2 (linux/amd64) "
                                   "kubernetes/3968350/system:serviceaccount:kube-system:"
                                   "replicaset-controller");
    QString resource = QStringLiteral("configmaps");
    QString group;
    int code = 200;
    QString status; // "Failure" with a reason and message for an error
    QString reason;
    QString message;
    double received = 0; // seconds after 2026-11-26T10:00:00Z
    double at = 0;       // the stage's time, same base
    QString apiVersion = QStringLiteral("audit.k8s.io/v1");
    QString annotationApiserver; // watchscope.io/apiserver, when set
};

inline QString auditTime(double secondsAfterBase) {
    const QDateTime base(QDate(2026, 11, 26), QTime(10, 0), QTimeZone::utc());
    const qint64 us = qRound64(secondsAfterBase * 1e6);
    const QDateTime t = base.addMSecs(us / 1000);
    return t.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.")) +
           QStringLiteral("%1Z").arg(us % 1000000, 6, 10, QLatin1Char('0'));
}

inline QByteArray json(const QString& s) {
    QByteArray out = "\"";
    for (const QChar c : s) {
        if (c == u'"' || c == u'\\')
            out += '\\';
        out += QString(c).toUtf8();
    }
    return out + "\"";
}

inline QByteArray auditLine(const AuditLine& l) {
    QByteArray status;
    if (l.stage == QLatin1String("ResponseComplete") || l.stage == QLatin1String("Panic")) {
        status = ",\"responseStatus\":{\"metadata\":{}";
        if (!l.status.isEmpty())
            status += ",\"status\":" + json(l.status);
        if (!l.message.isEmpty())
            status += ",\"message\":" + json(l.message);
        if (!l.reason.isEmpty())
            status += ",\"reason\":" + json(l.reason);
        if (l.code == 504)
            status += ",\"details\":{\"causes\":[{\"reason\":\"ResourceVersionTooLarge\","
                      "\"message\":\"Too large resource version\"}],\"retryAfterSeconds\":1}";
        status += ",\"code\":" + QByteArray::number(l.code) + "}";
    }
    QByteArray objectRef = "\"objectRef\":{\"resource\":" + json(l.resource);
    if (!l.group.isEmpty())
        objectRef += ",\"apiGroup\":" + json(l.group);
    objectRef += ",\"apiVersion\":\"v1\"}";
    QByteArray annotations = "\"annotations\":{";
    if (!l.annotationApiserver.isEmpty())
        annotations += "\"watchscope.io/apiserver\":" + json(l.annotationApiserver) + ",";
    annotations += "\"authorization.k8s.io/decision\":\"allow\",\"authorization.k8s.io/reason\":"
                   "\"RBAC: allowed by ClusterRoleBinding \\\"system:controller:replicaset-"
                   "controller\\\" of ClusterRole \\\"system:controller:replicaset-controller\\\" "
                   "to ServiceAccount \\\"replicaset-controller/kube-system\\\"\"}";
    return "{\"kind\":\"Event\",\"apiVersion\":" + json(l.apiVersion) +
           ",\"level\":\"Metadata\",\"auditID\":" + json(l.auditId) +
           ",\"stage\":" + json(l.stage) + ",\"requestURI\":" + json(l.uri) +
           ",\"verb\":" + json(l.verb) + ",\"user\":{\"username\":" + json(l.user) +
           ",\"groups\":[\"system:serviceaccounts\",\"system:serviceaccounts:kube-system\","
           "\"system:authenticated\"]},\"sourceIPs\":[\"10.0.0.7\"],\"userAgent\":" +
           json(l.agent) + "," + objectRef + status +
           ",\"requestReceivedTimestamp\":" + json(auditTime(l.received)) +
           ",\"stageTimestamp\":" + json(auditTime(l.at)) + "," + annotations + "}\n";
}

inline bool writeFile(const QString& path, const QByteArray& bytes, bool append = false) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(append ? QIODevice::Append : QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return f.write(bytes) == bytes.size();
}

// `gzip ARGS` over `bytes`: -c compresses as lumberjack does a backup, -dc gets out of
// (possibly truncated) gzip bytes what gzip itself can.
inline QByteArray gzipTool(const QStringList& args, const QByteArray& bytes) {
    QProcess gzip;
    gzip.start(QStringLiteral("gzip"), args);
    gzip.waitForStarted();
    gzip.write(bytes);
    gzip.closeWriteChannel();
    gzip.waitForFinished();
    return gzip.readAllStandardOutput();
}
inline QByteArray gzipped(const QByteArray& bytes) {
    return gzipTool({QStringLiteral("-c")}, bytes);
}
inline QByteArray gunzipped(const QByteArray& bytes) {
    return gzipTool({QStringLiteral("-dc")}, bytes);
}

} // namespace ws::test
