#include "ProtoListDecoder.h"

#include "model/ResourceVersionText.h"
#include "util/OneLine.h"
#include "util/ProtoWireReader.h"

#include <algorithm>
#include <limits>

namespace ws {

namespace {

constexpr std::string_view kMagic("k8s\0", 4);
constexpr std::uint64_t kMaxTypeMetaBytes = 64 * 1024;

// A varint at p: its value and byte count; 0 bytes when [p, end) does not hold all of it,
// -1 when it is longer than ten bytes.
int varint(const char* p, const char* end, std::uint64_t* value) {
    std::uint64_t v = 0;
    for (int i = 0; i < 10; ++i) {
        if (p + i >= end)
            return 0;
        const auto b = static_cast<std::uint8_t>(p[i]);
        v |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *value = v;
            return i + 1;
        }
    }
    return -1;
}

QString quoted(std::string_view text) {
    return QString::fromStdString(oneLine(text.substr(0, 64)));
}

// The length-delimited fields `wanted` of one small message, by number; others skipped.
template <typename OnField> bool eachField(std::string_view message, OnField&& onField) {
    ProtoWireReader r{message.data(), message.data() + message.size()};
    while (r.ok && !r.atEnd()) {
        const std::uint64_t tag = r.varint();
        const auto wireType = static_cast<std::uint32_t>(tag & 7);
        if (!r.ok || (tag >> 3) == 0)
            return false;
        if (!onField(static_cast<std::uint32_t>(tag >> 3), wireType, r))
            return false;
    }
    return r.ok;
}

} // namespace

ProtoListDecoder::ProtoListDecoder(ItemCallback onItem, std::size_t maxItemBytes)
    : m_onItem(std::move(onItem)), m_maxItemBytes(maxItemBytes) {}

bool ProtoListDecoder::fail(std::uint64_t offset, QString message) {
    m_error = QStringLiteral("protobuf list: %1 (offset %2)").arg(message).arg(offset);
    m_errorOffset = offset;
    std::string().swap(m_buffer);
    m_pos = 0;
    return false;
}

bool ProtoListDecoder::feed(const char* data, std::size_t size) {
    if (hasError())
        return false;
    // A skipped field's bytes are never buffered.
    if (m_state == State::Skip && m_pos == m_buffer.size()) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(m_skipLeft, size));
        m_skipLeft -= n;
        m_base += m_buffer.size() + n;
        m_buffer.clear();
        m_pos = 0;
        data += n;
        size -= n;
        if (m_skipLeft == 0)
            m_state = m_afterSkip;
    }
    m_buffer.append(data, size);
    const bool ok = run();
    if (ok && m_pos > 0) {
        m_base += m_pos;
        m_buffer.erase(0, m_pos);
        m_pos = 0;
    }
    return ok;
}

bool ProtoListDecoder::header(std::uint32_t* field, std::uint32_t* wireType, std::uint64_t* length,
                              std::size_t* size, bool* bad) {
    const char* p = m_buffer.data() + m_pos;
    const char* end = m_buffer.data() + m_buffer.size();
    *bad = false;
    std::uint64_t tag = 0;
    const int n = varint(p, end, &tag);
    if (n <= 0) {
        *bad = n < 0;
        return false;
    }
    *field = static_cast<std::uint32_t>(tag >> 3);
    *wireType = static_cast<std::uint32_t>(tag & 7);
    if (*field == 0 || tag > std::numeric_limits<std::uint32_t>::max() ||
        (*wireType != 0 && *wireType != 1 && *wireType != 2 && *wireType != 5)) {
        *bad = true;
        return false;
    }
    *length = *wireType == 1 ? 8 : *wireType == 5 ? 4 : 0;
    int m = 0;
    if (*wireType == 0 || *wireType == 2) {
        std::uint64_t v = 0;
        m = varint(p + n, end, &v);
        if (m <= 0) {
            *bad = m < 0;
            return false;
        }
        if (*wireType == 2)
            *length = v;
    }
    *size = static_cast<std::size_t>(n + m);
    return true;
}

bool ProtoListDecoder::run() {
    for (;;) {
        const std::size_t avail = m_buffer.size() - m_pos;
        const std::uint64_t at = m_base + m_pos;
        switch (m_state) {
        case State::Magic:
            if (avail < kMagic.size())
                return true;
            if (std::string_view(m_buffer).substr(m_pos, kMagic.size()) != kMagic)
                return fail(at, QStringLiteral("the body does not start with the k8s\\0 "
                                               "protobuf prefix"));
            m_pos += kMagic.size();
            m_state = State::Envelope;
            continue;
        case State::Skip: {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(avail, m_skipLeft));
            m_pos += n;
            m_skipLeft -= n;
            if (m_skipLeft > 0)
                return true;
            m_state = m_afterSkip;
            continue;
        }
        case State::Envelope:
        case State::List: {
            const bool inList = m_state == State::List;
            if (inList && m_listLeft == 0) {
                m_state = State::Envelope;
                continue;
            }
            if (avail == 0)
                return true;
            std::uint32_t field = 0, wireType = 0;
            std::uint64_t length = 0;
            std::size_t size = 0;
            bool bad = false;
            if (!header(&field, &wireType, &length, &size, &bad)) {
                if (bad)
                    return fail(at, QStringLiteral("malformed field header in %1")
                                        .arg(inList ? QStringLiteral("the list")
                                                    : QStringLiteral("runtime.Unknown")));
                return true;
            }
            const std::uint64_t total = size + length;
            if (inList && total > m_listLeft)
                return fail(at, QStringLiteral("a field of the list runs past its end"));
            const bool whole = wireType == 2 && (inList ? field == 1 || field == 2 : field == 1);
            if (!inList && wireType == 2 && field == 2) {
                // runtime.Unknown.raw: the list itself, read field by field.
                if (m_sawList)
                    return fail(at, QStringLiteral("runtime.Unknown holds two raw objects"));
                if (m_summary.kind == "Status")
                    return fail(at, QStringLiteral("the body is a Status, not a list"));
                m_sawList = true;
                m_pos += size;
                m_listLeft = length;
                m_state = State::List;
                continue;
            }
            if (!whole) {
                m_pos += size;
                if (inList)
                    m_listLeft -= total;
                m_skipLeft = length;
                m_afterSkip = m_state;
                m_state = State::Skip;
                continue;
            }
            const std::uint64_t limit = inList ? m_maxItemBytes : kMaxTypeMetaBytes;
            if (length > limit)
                return fail(at, QStringLiteral("%1 of %2 bytes is over the %3-byte limit")
                                    .arg(!inList      ? QStringLiteral("runtime.Unknown.typeMeta")
                                         : field == 1 ? QStringLiteral("the list's metadata")
                                                      : QStringLiteral("an item"))
                                    .arg(length)
                                    .arg(limit));
            if (avail < total)
                return true; // the rest of it is still to come
            const std::string_view value(m_buffer.data() + m_pos + size,
                                         static_cast<std::size_t>(length));
            m_pos += static_cast<std::size_t>(total);
            if (inList)
                m_listLeft -= total;
            bool ok = true;
            if (!inList) {
                ok = eachField(value, [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r) {
                    if (wt == 2 && (n == 1 || n == 2))
                        (n == 1 ? m_summary.apiVersion : m_summary.kind).assign(r.bytes());
                    else
                        r.skip(wt);
                    return true;
                });
                if (!ok)
                    return fail(at, QStringLiteral("runtime.Unknown.typeMeta is malformed"));
            } else if (field == 1 ? !readListMeta(value) : !readItem(value)) {
                return fail(at, m_error);
            }
            continue;
        }
        }
    }
}

bool ProtoListDecoder::readListMeta(std::string_view meta) {
    QString why;
    const bool ok = eachField(meta, [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r) {
        if (wt == 2 && (n == 2 || n == 3)) {
            const std::string_view v = r.bytes();
            if (n == 3) {
                m_summary.continueToken.assign(v);
            } else if (r.ok && !parseResourceVersion(v, &m_summary.resourceVersion)) {
                why = QStringLiteral("the list's resourceVersion \"%1\" is not a decimal number")
                          .arg(quoted(v));
                return false;
            }
        } else if (wt == 0 && n == 4) {
            m_summary.remainingItemCount = static_cast<std::int64_t>(r.varint());
        } else {
            r.skip(wt);
        }
        return true;
    });
    m_error = ok              ? QString()
              : why.isEmpty() ? QStringLiteral("the list's metadata is malformed")
                              : why;
    return ok;
}

bool ProtoListDecoder::readItem(std::string_view item) {
    ListItemMeta meta;
    QString why;
    const auto readMeta = [&](std::string_view m) {
        return eachField(m, [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r) {
            if (wt != 2 || (n != 1 && n != 3 && n != 5 && n != 6)) {
                r.skip(wt);
                return true;
            }
            const std::string_view v = r.bytes();
            if (n == 1)
                meta.name.assign(v);
            else if (n == 3)
                meta.ns.assign(v);
            else if (n == 5)
                meta.uid.assign(v);
            else if (r.ok && !parseResourceVersion(v, &meta.resourceVersion)) {
                why = QStringLiteral("an item's resourceVersion \"%1\" is not a decimal number")
                          .arg(quoted(v));
                return false;
            }
            return true;
        });
    };
    const bool ok = eachField(item, [&](std::uint32_t n, std::uint32_t wt, ProtoWireReader& r) {
        if (n == 1 && wt == 2) {
            const std::string_view m = r.bytes();
            return !r.ok || readMeta(m);
        }
        r.skip(wt);
        return true;
    });
    if (!ok) {
        m_error =
            why.isEmpty() ? QStringLiteral("item %1 is malformed").arg(m_summary.itemCount) : why;
        return false;
    }
    ++m_summary.itemCount;
    m_onItem(item, meta);
    return true;
}

bool ProtoListDecoder::finish() {
    if (hasError())
        return false;
    const std::uint64_t at = m_base + m_buffer.size();
    if (m_state == State::Magic)
        return fail(at, m_base + m_buffer.size() == 0
                            ? QStringLiteral("the body is empty")
                            : QStringLiteral("the body ended inside the k8s\\0 prefix"));
    if (m_state != State::Envelope || m_pos != m_buffer.size())
        return fail(at, QStringLiteral("the body ended inside a field (%1 bytes of it received)")
                            .arg(m_buffer.size() - m_pos));
    if (!m_sawList) {
        const std::string& kind = m_summary.kind;
        const bool listKind = kind.size() > 4 && kind.compare(kind.size() - 4, 4, "List") == 0;
        return fail(at, kind.empty() || listKind
                            ? QStringLiteral("runtime.Unknown holds no object")
                            : QStringLiteral("the body is a %1, not a list").arg(quoted(kind)));
    }
    return true;
}

} // namespace ws
