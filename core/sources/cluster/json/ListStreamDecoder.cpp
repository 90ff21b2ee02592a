#include "ListStreamDecoder.h"

#include "JsonFieldReaders.h"
#include "JsonValueScanner.h"
#include "PaddedJsonBuffer.h"

#include <algorithm>
#include <exception>

namespace ws {

using namespace jsonread;

namespace {

constexpr std::size_t kKeptBufferBytes = std::size_t(1) << 20;

bool isJsonWhitespace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

QString describeByte(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
        return QStringLiteral("'%1'").arg(QLatin1Char(c));
    return QStringLiteral("0x%1").arg(u, 2, 16, QLatin1Char('0'));
}

} // namespace

struct ListStreamDecoder::Impl {
    // Where the reader is in {"k":v,...,"items":[{...},...],...}.
    enum class State : std::uint8_t {
        BeforeRoot,  // before the list's '{'
        FirstMember, // after '{': a key or '}'
        NextMember,  // after ',': a key
        Key,         // inside a key string
        AfterKey,    // ':'
        BeforeValue, // the first byte of a member's value
        Value,       // inside a member's value (not items)
        AfterValue,  // ',' or '}'
        ItemsStart,  // after "items":[ : an item or ']'
        Item,        // inside an item
        AfterItem,   // ',' or ']'
        NextItem,    // after ',' in items: an item
        Done,        // after the list's '}': whitespace only
    };

    Impl(ItemCallback callback, std::size_t limit)
        : onItem(std::move(callback)), maxItemBytes(limit) {}

    bool feed(const char* data, std::size_t size);
    bool finish();
    bool fail(std::uint64_t offset, QString message);
    bool grew(std::size_t held, std::uint64_t offset, const char* what);
    bool completeItem();
    bool readSummary();
    std::size_t buffered() const { return item.size() + members.size() + key.size(); }
    void notePeak() {
        const std::size_t held = buffered();
        if (held > peakBuffered)
            peakBuffered = held;
    }

    ItemCallback onItem;
    std::size_t maxItemBytes;

    State state = State::BeforeRoot;
    JsonValueScanner scanner;
    std::string key;     // the current member's key, quotes included, as in the body
    std::string members; // the list's other members, "k":v,... verbatim (read at finish())
    bool sawItems = false;
    bool itemsValue = false;     // "items" is not an array (null): its value goes to `members`
    std::uint64_t itemStart = 0; // offset of the current item's '{'
    PaddedJsonBuffer item;
    od::parser parser;
    ListItemMeta meta;
    ListSummary summary;

    std::uint64_t offset = 0; // of the next byte fed
    std::size_t peakBuffered = 0;
    QString error;
    std::uint64_t errorOffset = 0;
};

ListStreamDecoder::ListStreamDecoder(ItemCallback onItem, std::size_t maxItemBytes)
    : m_impl(std::make_unique<Impl>(std::move(onItem), maxItemBytes)) {}

ListStreamDecoder::~ListStreamDecoder() = default;

bool ListStreamDecoder::feed(const char* data, std::size_t size) {
    if (hasError())
        return false;
    try {
        return m_impl->feed(data, size);
    } catch (const std::exception& e) {
        return m_impl->fail(
            m_impl->offset,
            QStringLiteral("cannot decode the list body: %1").arg(QString::fromUtf8(e.what())));
    }
}

bool ListStreamDecoder::finish() {
    if (hasError())
        return false;
    try {
        return m_impl->finish();
    } catch (const std::exception& e) {
        return m_impl->fail(
            m_impl->offset,
            QStringLiteral("cannot decode the list body: %1").arg(QString::fromUtf8(e.what())));
    }
}

const ListSummary& ListStreamDecoder::summary() const {
    return m_impl->summary;
}
bool ListStreamDecoder::hasError() const {
    return !m_impl->error.isEmpty();
}
QString ListStreamDecoder::error() const {
    return m_impl->error;
}
std::uint64_t ListStreamDecoder::errorOffset() const {
    return m_impl->errorOffset;
}
std::uint64_t ListStreamDecoder::bytesConsumed() const {
    return m_impl->offset;
}
std::size_t ListStreamDecoder::bufferedBytes() const {
    return m_impl->buffered();
}
std::size_t ListStreamDecoder::peakBufferedBytes() const {
    return m_impl->peakBuffered;
}

void ListStreamDecoder::reset() {
    m_impl = std::make_unique<Impl>(std::move(m_impl->onItem), m_impl->maxItemBytes);
}

bool ListStreamDecoder::Impl::feed(const char* data, std::size_t size) {
    const char* p = data;
    const char* const end = data + size;
    const auto at = [&](const char* q) { return offset + static_cast<std::uint64_t>(q - data); };
    const auto unexpected = [&](const char* q, const char* expected) {
        return fail(at(q), QStringLiteral("unexpected byte %1 at offset %2 of the list body "
                                          "(expected %3)")
                               .arg(describeByte(*q))
                               .arg(at(q))
                               .arg(QLatin1String(expected)));
    };

    while (p < end) {
        if (state != State::Key && state != State::Value && state != State::Item) {
            while (p < end && isJsonWhitespace(*p))
                ++p;
            if (p == end)
                break;
        }
        const char c = *p;
        switch (state) {
        case State::BeforeRoot:
            if (c != '{')
                return unexpected(p, "'{' opening the list");
            state = State::FirstMember;
            ++p;
            break;
        case State::FirstMember:
            if (c == '}') {
                state = State::Done;
                ++p;
                break;
            }
            [[fallthrough]];
        case State::NextMember:
            if (c != '"')
                return unexpected(p, "a member name");
            key.clear();
            scanner.begin('"');
            state = State::Key;
            break;
        case State::Key: {
            const std::size_t n = scanner.scan(p, static_cast<std::size_t>(end - p));
            key.append(p, n);
            p += n;
            if (!grew(key.size(), at(p), "a member name"))
                return false;
            if (scanner.complete())
                state = State::AfterKey;
            break;
        }
        case State::AfterKey:
            if (c != ':')
                return unexpected(p, "':'");
            state = State::BeforeValue;
            ++p;
            break;
        case State::BeforeValue:
            if (key == "\"items\"") {
                if (sawItems)
                    return fail(at(p),
                                QStringLiteral("a second \"items\" at offset %1").arg(at(p)));
                sawItems = true;
                if (c == '[') {
                    state = State::ItemsStart;
                    ++p;
                    break;
                }
                // Go writes a nil slice as null; anything else is caught by readSummary().
                itemsValue = true;
            }
            if (!scanner.begin(c))
                return unexpected(p, "a value");
            if (!members.empty())
                members += ',';
            members += key;
            members += ':';
            state = State::Value;
            break;
        case State::Value: {
            const std::size_t n = scanner.scan(p, static_cast<std::size_t>(end - p));
            members.append(p, n);
            p += n;
            if (!grew(members.size(), at(p), "the list's members other than items"))
                return false;
            if (scanner.complete())
                state = State::AfterValue;
            break;
        }
        case State::AfterValue:
            if (c == ',')
                state = State::NextMember;
            else if (c == '}')
                state = State::Done;
            else
                return unexpected(p, "',' or '}'");
            ++p;
            break;
        case State::ItemsStart:
            if (c == ']') {
                state = State::AfterValue;
                ++p;
                break;
            }
            [[fallthrough]];
        case State::NextItem:
            if (c != '{') {
                return unexpected(p, state == State::ItemsStart ? "an item object or ']'"
                                                                : "an item object");
            }
            scanner.begin('{');
            item.clear();
            itemStart = at(p);
            state = State::Item;
            break;
        case State::Item: {
            const std::size_t n = scanner.scan(p, static_cast<std::size_t>(end - p));
            item.append(p, n);
            p += n;
            if (!grew(item.size(), itemStart, "item"))
                return false;
            if (scanner.complete()) {
                if (!completeItem())
                    return false;
                state = State::AfterItem;
            }
            break;
        }
        case State::AfterItem:
            if (c == ',')
                state = State::NextItem;
            else if (c == ']')
                state = State::AfterValue;
            else
                return unexpected(p, "',' or ']' after an item");
            ++p;
            break;
        case State::Done:
            return unexpected(p, "nothing after the list's closing '}'");
        }
    }
    offset += size;
    return true;
}

bool ListStreamDecoder::Impl::grew(std::size_t held, std::uint64_t where, const char* what) {
    notePeak();
    if (held <= maxItemBytes)
        return true;
    return fail(where, QStringLiteral("%1 at offset %2 is larger than the %3 MiB limit")
                           .arg(QLatin1String(what))
                           .arg(where)
                           .arg(static_cast<double>(maxItemBytes) / (1024.0 * 1024.0), 0, 'g', 4));
}

bool ListStreamDecoder::Impl::completeItem() {
    item.pad();
    meta.name.clear();
    meta.ns.clear();
    meta.uid.clear();
    meta.resourceVersion = 0;
    const auto bad = [&](const QString& why) {
        return fail(itemStart, QStringLiteral("item %1 (offset %2): %3")
                                   .arg(summary.itemCount)
                                   .arg(itemStart)
                                   .arg(why));
    };
    od::document doc;
    if (const auto code = parser.iterate(item.data(), item.size(), item.capacity()).get(doc))
        return bad(describe(code));
    od::object object;
    if (const auto code = doc.get_object().get(object))
        return bad(describe(code));
    ObjectMetaTarget target;
    target.name = &meta.name;
    target.ns = &meta.ns;
    target.uid = &meta.uid;
    target.resourceVersion = &meta.resourceVersion;
    QString why;
    for (auto member : object) {
        od::field field;
        std::string_view name;
        if (const auto code = std::move(member).get(field))
            return bad(describe(code));
        if (const auto code = field.unescaped_key().get(name))
            return bad(describe(code));
        if (name == "metadata" && !readObjectMeta(field.value(), target, &why))
            return bad(why);
    }
    const char* trailing = nullptr;
    if (doc.current_location().get(trailing) == simdjson::SUCCESS)
        return bad(QStringLiteral("unexpected bytes inside the item"));
    ++summary.itemCount;
    if (onItem)
        onItem(item.view(), meta);
    item.clear();
    // One huge item must not pin its memory (buffer and parser) for the rest of the body.
    item.release(kKeptBufferBytes);
    if (parser.capacity() > kKeptBufferBytes)
        parser = od::parser();
    return true;
}

bool ListStreamDecoder::Impl::finish() {
    switch (state) {
    case State::Done:
        break;
    case State::BeforeRoot:
        return fail(offset, QStringLiteral("the list body is empty"));
    case State::Item:
        return fail(offset, QStringLiteral("the list body ends inside item %1 (offset %2)")
                                .arg(summary.itemCount)
                                .arg(itemStart));
    default:
        return fail(offset, QStringLiteral("the list body ends after %1 bytes, before its "
                                           "closing '}'")
                                .arg(offset));
    }
    return readSummary();
}

bool ListStreamDecoder::Impl::readSummary() {
    // The members other than items, read as the object {members}: their order in the body
    // (metadata before or after items) does not matter. They are small, so simdjson's DOM
    // parser validates every value of them, not only the ones read.
    PaddedJsonBuffer buffer;
    buffer.append("{", 1);
    buffer.append(members.data(), members.size());
    buffer.append("}", 1);
    buffer.pad();
    const auto bad = [&](const QString& why) {
        return fail(offset, QStringLiteral("list body: %1").arg(why));
    };
    const auto text = [](std::string_view s) {
        return QString::fromUtf8(s.data(),
                                 static_cast<qsizetype>(std::min<std::size_t>(s.size(), 64)));
    };
    simdjson::dom::parser domParser;
    simdjson::dom::object root;
    if (const auto code = domParser.parse(buffer.data(), buffer.size(), false).get(root))
        return bad(describe(code));
    bool isStatus = false;
    for (const auto [name, value] : root) {
        if (name == "kind" || name == "apiVersion") {
            std::string_view s;
            if (value.get(s) != simdjson::SUCCESS && !value.is_null())
                return bad(QStringLiteral("%1 is not a string").arg(text(name)));
            (name == "kind" ? summary.kind : summary.apiVersion).assign(s);
            if (name == "kind")
                isStatus = s == "Status";
        } else if (name == "items") {
            if (!value.is_null())
                return bad(QStringLiteral("\"items\" is neither an array nor null"));
        } else if (name == "metadata") {
            simdjson::dom::object metadata;
            if (const auto code = value.get(metadata))
                return bad(QStringLiteral("metadata: %1").arg(describe(code)));
            for (const auto [metaName, metaValue] : metadata) {
                if (metaName == "resourceVersion" || metaName == "continue") {
                    std::string_view s;
                    if (metaValue.get(s) != simdjson::SUCCESS && !metaValue.is_null()) {
                        return bad(
                            QStringLiteral("metadata.%1 is not a string").arg(text(metaName)));
                    }
                    if (metaName == "continue") {
                        summary.continueToken.assign(s);
                    } else if (!parseResourceVersion(s, &summary.resourceVersion)) {
                        return bad(QStringLiteral("metadata.resourceVersion \"%1\" is not a "
                                                  "decimal number")
                                       .arg(text(s)));
                    }
                } else if (metaName == "remainingItemCount" && !metaValue.is_null()) {
                    std::int64_t count = 0;
                    if (const auto code = metaValue.get(count))
                        return bad(
                            QStringLiteral("metadata.remainingItemCount: %1").arg(describe(code)));
                    summary.remainingItemCount = count;
                }
            }
        }
    }
    if (isStatus)
        return bad(QStringLiteral("the body is a metav1.Status, not a list"));
    if (!sawItems)
        return bad(QStringLiteral("no \"items\" member"));
    return true;
}

bool ListStreamDecoder::Impl::fail(std::uint64_t where, QString message) {
    error = std::move(message);
    errorOffset = where;
    item.clear();
    item.release(0);
    members.clear();
    key.clear();
    return false;
}

} // namespace ws
