#include "CacheConsistency.h"

namespace ws::cacheconsistency {

namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

// FNV-1 (multiply, then xor), as Go's hash/fnv New64.
void feed(std::uint64_t& h, const QByteArray& bytes) {
    for (const char c : bytes) {
        h *= kFnvPrime;
        h ^= static_cast<unsigned char>(c);
    }
}

QString hex(std::uint64_t v) {
    return QString::number(v, 16);
}

} // namespace

QString Item::text() const {
    return QStringLiteral("%1/%2@%3").arg(ns, name).arg(rv);
}

QString statusName(Status status) {
    switch (status) {
    case Status::Success:
        return QStringLiteral("success");
    case Status::Failure:
        return QStringLiteral("failure");
    case Status::Error:
        return QStringLiteral("error");
    }
    return {};
}

std::uint64_t digest(std::span<const Item> items) {
    std::uint64_t h = kFnvOffset;
    const QByteArray slash("/");
    for (const Item& item : items) {
        feed(h, item.ns.toUtf8());
        feed(h, slash);
        feed(h, item.name.toUtf8());
        feed(h, slash);
        feed(h, QByteArray::number(static_cast<qlonglong>(item.rv)));
    }
    return h;
}

Result compare(ResourceVersion rv, std::span<const Item> cache, std::span<const Item> etcd) {
    Result r;
    r.rv = rv;
    r.cacheDigest = digest(cache);
    r.etcdDigest = digest(etcd);
    r.status = r.cacheDigest == r.etcdDigest ? Status::Success : Status::Failure;
    const std::size_t n = std::min(cache.size(), etcd.size());
    std::size_t i = 0;
    while (i < n && cache[i] == etcd[i])
        ++i;
    if (i < cache.size())
        r.cacheItem = cache[i];
    if (i < etcd.size())
        r.etcdItem = etcd[i];
    if (r.status == Status::Success) {
        r.cacheItem.reset();
        r.etcdItem.reset();
    }
    return r;
}

Result failedToRun(const QString& why) {
    Result r;
    r.status = Status::Error;
    r.error = why;
    return r;
}

QString Result::describe() const {
    switch (status) {
    case Status::Success:
        return QStringLiteral("cache consistency check passed at RV %1 (digest %2)")
            .arg(rv)
            .arg(hex(cacheDigest));
    case Status::Error:
        return QStringLiteral("cache consistency check error: %1").arg(error);
    case Status::Failure:
        break;
    }
    return QStringLiteral("Cache consistency check failed at RV %1: etcd digest %2, cache digest "
                          "%3; first difference: cache %4, etcd %5")
        .arg(rv)
        .arg(hex(etcdDigest), hex(cacheDigest),
             cacheItem ? cacheItem->text() : QStringLiteral("<nil>"),
             etcdItem ? etcdItem->text() : QStringLiteral("<nil>"));
}

} // namespace ws::cacheconsistency
