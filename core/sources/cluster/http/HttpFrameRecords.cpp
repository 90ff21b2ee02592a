#include "HttpFrameRecords.h"

#include <QDataStream>
#include <QIODevice>

namespace ws {

namespace {

QDataStream& versioned(QDataStream& stream) {
    stream.setVersion(QDataStream::Qt_6_4);
    return stream;
}

// A record decoded cleanly: nothing missing, nothing left over.
bool complete(const QDataStream& in) {
    return in.status() == QDataStream::Ok && in.atEnd();
}

} // namespace

QByteArray HttpResponseHead::header(const QByteArray& name) const {
    for (const auto& [key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

bool isRecordedResponseHeader(const QByteArray& name) {
    static const QByteArray kept[] = {"content-type", "content-encoding", "retry-after",
                                      "audit-id",     "warning",          "date"};
    for (const QByteArray& k : kept) {
        if (name.compare(k, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

QByteArray encodeHttpRecord(const HttpRequestSent& record) {
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    versioned(out) << record.method << record.pathAndQuery << record.attempt;
    return bytes;
}

QByteArray encodeHttpRecord(const HttpResponseHead& record) {
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    versioned(out) << record.status << record.reason << quint32(record.headers.size());
    for (const auto& [name, value] : record.headers)
        out << name << value;
    out << record.connection;
    if (record.credentialReplaced)
        out << quint8(1);
    return bytes;
}

QByteArray encodeHttpRecord(const HttpResponseEnd& record) {
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    versioned(out) << quint16(record.error) << record.message;
    return bytes;
}

bool decodeHttpRecord(const QByteArray& bytes, HttpRequestSent* record) {
    QDataStream in(bytes);
    HttpRequestSent r;
    versioned(in) >> r.method >> r.pathAndQuery >> r.attempt;
    if (!complete(in))
        return false;
    *record = std::move(r);
    return true;
}

bool decodeHttpRecord(const QByteArray& bytes, HttpResponseHead* record) {
    QDataStream in(bytes);
    HttpResponseHead r;
    quint32 count = 0;
    versioned(in) >> r.status >> r.reason >> count;
    // Each pair takes at least 8 bytes: a corrupt count cannot make us allocate much.
    if (in.status() != QDataStream::Ok || count > quint32(bytes.size() / 8))
        return false;
    for (quint32 i = 0; i < count; ++i) {
        QByteArray name, value;
        in >> name >> value;
        r.headers.append({name, value});
    }
    if (in.status() == QDataStream::Ok && !in.atEnd())
        in >> r.connection;
    if (in.status() == QDataStream::Ok && !in.atEnd()) {
        quint8 replaced = 0;
        in >> replaced;
        if (replaced != 1)
            return false;
        r.credentialReplaced = true;
    }
    if (!complete(in))
        return false;
    *record = std::move(r);
    return true;
}

bool decodeHttpRecord(const QByteArray& bytes, HttpResponseEnd* record) {
    QDataStream in(bytes);
    quint16 error = 0;
    HttpResponseEnd r;
    versioned(in) >> error >> r.message;
    if (!complete(in) || error > quint16(HttpErrorKind::ConnectionClosed))
        return false;
    r.error = HttpErrorKind(error);
    *record = std::move(r);
    return true;
}

} // namespace ws
