#include "EtcdLoadGenerator.h"

#include "util/ProtoWireWriter.h"

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

namespace ws {

namespace {

void putBytes(std::string& out, int field, std::string_view bytes) {
    ProtoWireWriter{&out}.bytes(static_cast<std::uint32_t>(field), bytes);
}

void putInt(std::string& out, int field, std::uint64_t v) {
    ProtoWireWriter w{&out};
    w.tag(static_cast<std::uint32_t>(field), 0);
    w.varint(v);
}

std::string mapEntry(std::string_view k, std::string_view v) {
    std::string e;
    putBytes(e, 1, k);
    putBytes(e, 2, v);
    return e;
}

std::string filler(std::int64_t generation, std::size_t bytes) {
    std::string s;
    s.reserve(bytes);
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::uint64_t x = static_cast<std::uint64_t>(generation) * 0x9e3779b97f4a7c15ull + 1;
    while (s.size() < bytes) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_back(alphabet[x % 36]);
    }
    return s;
}

constexpr std::int64_t kCreationSeconds = 1795000000; // a fixed creationTimestamp

enum { Create, Update, Delete, Compaction };

} // namespace

EtcdLoadGenerator::EtcdLoadGenerator(EtcdLoadOptions options) : m_options(std::move(options)) {
    if (m_options.objects < 1)
        m_options.objects = 1;
    if (m_options.concurrency < 1)
        m_options.concurrency = 1;
}

EtcdLoadGenerator::~EtcdLoadGenerator() = default;

std::string EtcdLoadGenerator::configMapKey(const std::string& prefix, const std::string& ns,
                                            const std::string& name) {
    return prefix + "configmaps/" + ns + "/" + name;
}

std::string EtcdLoadGenerator::cronTabKey(const std::string& prefix, const std::string& ns,
                                          const std::string& name) {
    return prefix + "stable.example.com/crontabs/" + ns + "/" + name;
}

std::string EtcdLoadGenerator::configMapValue(const std::string& name, const std::string& ns,
                                              const std::string& uid, std::int64_t generation,
                                              int valueBytes) {
    // ObjectMeta: name=1, namespace=3, uid=5, creationTimestamp=8 {seconds=1}, labels=11.
    std::string meta;
    putBytes(meta, 1, name);
    putBytes(meta, 3, ns);
    putBytes(meta, 5, uid);
    std::string ts;
    putInt(ts, 1, kCreationSeconds);
    putBytes(meta, 8, ts);
    putBytes(meta, 11, mapEntry("app", "watchscope-load"));
    // ConfigMap: metadata=1, data=2 (map<string,string>).
    std::string cm;
    putBytes(cm, 1, meta);
    putBytes(cm, 2, mapEntry("generation", std::to_string(generation)));
    const std::size_t used = cm.size() + 60;
    const std::size_t pad = valueBytes > static_cast<int>(used) ? valueBytes - used : 16;
    putBytes(cm, 2, mapEntry("payload", filler(generation, pad)));
    // runtime.Unknown: typeMeta=1 {apiVersion=1, kind=2}, raw=2, contentEncoding=3,
    // contentType=4.
    std::string typeMeta;
    putBytes(typeMeta, 1, "v1");
    putBytes(typeMeta, 2, "ConfigMap");
    std::string out("k8s\0", 4);
    putBytes(out, 1, typeMeta);
    putBytes(out, 2, cm);
    putBytes(out, 3, "");
    putBytes(out, 4, "");
    return out;
}

std::string EtcdLoadGenerator::cronTabValue(const std::string& name, const std::string& ns,
                                            const std::string& uid, std::int64_t generation,
                                            int valueBytes) {
    std::string out = R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{)";
    out += R"("name":")" + name + R"(","namespace":")" + ns + R"(","uid":")" + uid +
           R"(","generation":)" + std::to_string(generation) +
           R"(,"creationTimestamp":"2026-11-18T08:26:40Z","labels":{"app":"watchscope-load"}},)";
    out += R"("spec":{"cronSpec":"* * * * */5","image":"my-cron-image","replicas":)" +
           std::to_string(generation % 7) + R"(,"payload":")";
    const std::size_t pad =
        valueBytes > static_cast<int>(out.size() + 3) ? valueBytes - out.size() - 3 : 16;
    out += filler(generation, pad) + "\"}}";
    return out;
}

EtcdLoadStats EtcdLoadGenerator::stats() const {
    std::lock_guard lock(m_mutex);
    return m_stats;
}

void EtcdLoadGenerator::record(ResourceVersion rev, int kind, const QString& error) {
    std::lock_guard lock(m_mutex);
    if (rev == 0) {
        ++m_stats.errors;
        m_stats.lastError = error;
        return;
    }
    switch (kind) {
    case Create:
        ++m_stats.creates;
        break;
    case Update:
        ++m_stats.updates;
        break;
    case Delete:
        ++m_stats.deletes;
        break;
    default:
        ++m_stats.compactions;
        m_stats.compactRevision = std::max(m_stats.compactRevision, rev);
        return;
    }
    if (m_stats.firstRevision == 0 || rev < m_stats.firstRevision)
        m_stats.firstRevision = rev;
    m_stats.lastRevision = std::max(m_stats.lastRevision, rev);
}

void EtcdLoadGenerator::writer(int index, EtcdClient& client) {
    const int n = m_options.concurrency;
    std::vector<int> mine;
    for (int i = index; i < m_options.objects; i += n)
        mine.push_back(i);
    if (mine.empty())
        return;
    std::vector<std::int64_t> generation(mine.size(), 0); // 0: absent
    std::mt19937_64 rng(m_options.seed * 1000003u + static_cast<std::uint64_t>(index));
    std::uniform_int_distribution<std::size_t> pick(0, mine.size() - 1);
    std::uniform_real_distribution<double> coin(0, 1);
    const int customCount = static_cast<int>(m_options.objects * m_options.customResourceShare);
    const int batch = std::clamp(m_options.batch, 1, static_cast<int>(mine.size()));
    const double perWriterRate = m_options.rate > 0 ? m_options.rate / n : 0;
    auto next = std::chrono::steady_clock::now();
    const auto interval = perWriterRate > 0
                              ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(batch / perWriterRate))
                              : std::chrono::steady_clock::duration::zero();
    std::int64_t serial = 0;
    struct Planned {
        std::size_t slot;
        std::int64_t generation; // after the write; 0: deleted
        int kind;
    };
    std::vector<EtcdClient::Write> writes;
    std::vector<Planned> planned;
    while (!m_stop) {
        if (m_options.duration.count() > 0 &&
            std::chrono::steady_clock::now() - m_start >= m_options.duration)
            break;
        if (m_options.maxWrites > 0 && m_budget.fetch_add(batch) >= m_options.maxWrites)
            break;
        if (perWriterRate > 0) {
            next += interval;
            const auto now = std::chrono::steady_clock::now();
            if (next > now)
                std::this_thread::sleep_until(next);
            else if (now - next > std::chrono::seconds(1))
                next = now; // fell behind: do not burst to catch up
        }
        // `batch` distinct objects: consecutive slots from a random one.
        const std::size_t first = pick(rng);
        writes.clear();
        planned.clear();
        for (int b = 0; b < batch; ++b) {
            const std::size_t slot = (first + static_cast<std::size_t>(b)) % mine.size();
            const int object = mine[slot];
            const bool custom = object < customCount;
            const std::string name = (custom ? "load-ct-" : "load-cm-") + std::to_string(object);
            EtcdClient::Write w;
            w.key = custom ? cronTabKey(m_options.prefix, m_options.namespace_, name)
                           : configMapKey(m_options.prefix, m_options.namespace_, name);
            const std::int64_t gen = generation[slot];
            if (gen > 0 && coin(rng) < m_options.deleteShare) {
                w.remove = true;
                planned.push_back({slot, 0, Delete});
            } else {
                const bool create = gen == 0;
                const std::int64_t g = create ? 1 : gen + 1;
                // A new uid per incarnation, as the apiserver assigns one on every create.
                const std::string uid =
                    "00000000-0000-4000-8000-" +
                    std::to_string(1000000000000 + object * 1000000 + (serial++ % 1000000));
                w.value =
                    custom
                        ? cronTabValue(name, m_options.namespace_, uid, g, m_options.valueBytes)
                        : configMapValue(name, m_options.namespace_, uid, g, m_options.valueBytes);
                planned.push_back({slot, g, create ? Create : Update});
            }
            writes.push_back(std::move(w));
        }
        QString error;
        ResourceVersion rev = 0;
        if (batch == 1)
            rev = writes.front().remove
                      ? client.remove(writes.front().key, &error)
                      : client.put(writes.front().key, writes.front().value, &error);
        else
            rev = client.writeAll(writes, &error);
        for (const Planned& p : planned) {
            record(rev, p.kind, error);
            if (rev)
                generation[p.slot] = p.generation;
        }
    }
}

bool EtcdLoadGenerator::run(QString* error) {
    EtcdClient client(m_options.connect);
    if (!client.ok()) {
        *error = client.error();
        return false;
    }
    const auto status = client.status(error);
    if (!status)
        return false;
    m_start = std::chrono::steady_clock::now();
    std::vector<std::thread> writers;
    for (int i = 0; i < m_options.concurrency; ++i)
        writers.emplace_back([this, i, &client] { writer(i, client); });

    // Progress and compaction on this thread until the writers are done.
    auto nextProgress = m_start + std::chrono::seconds(1);
    auto nextCompaction = m_start + m_options.compactEvery;
    ResourceVersion compactTarget = 0;
    std::atomic_int running{static_cast<int>(writers.size())};
    std::thread joiner([&] {
        for (auto& w : writers)
            w.join();
        running = 0;
    });
    while (running > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const auto now = std::chrono::steady_clock::now();
        if (m_options.compactEvery.count() > 0 && now >= nextCompaction) {
            nextCompaction = now + m_options.compactEvery;
            QString err;
            if (compactTarget > 0) {
                const bool ok = client.compact(compactTarget, false, &err);
                record(ok ? compactTarget : 0, Compaction, err);
            }
            if (auto st = client.status(&err))
                compactTarget = st->revision;
        }
        if (onProgress && now >= nextProgress) {
            nextProgress = now + std::chrono::seconds(1);
            onProgress(stats());
        }
    }
    joiner.join();
    if (onProgress)
        onProgress(stats());
    return true;
}

} // namespace ws
