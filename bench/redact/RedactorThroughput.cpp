// Throughput of the Secret redactors (SPEC §4) on the bodies and messages they see: JSON bodies
// fed in 16 KiB chunks (JsonSecretRedactor) and etcd Watch responses of 1000 events
// (EtcdSecretRedactor), with and without Secrets. Prints MB per CPU second per input.
//
//   ws-bench-redact [--seconds 0.5]

#include "kube/JsonSecretRedactor.h"
#include "rpc.pb.h"
#include "sources/etcd/EtcdSecretRedactor.h"
#include "util/ProtoWireWriter.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <time.h>

using namespace ws;

namespace {

const QByteArray kSalt("0123456789abcdef");

std::string field(std::uint32_t n, const std::string& bytes) {
    std::string out;
    ProtoWireWriter{&out}.bytes(n, bytes);
    return out;
}
std::string entry(const std::string& k, const std::string& v) {
    return field(1, k) + field(2, v);
}

std::string protobufObject(const char* kind, const std::string& name, bool secret) {
    std::string meta = field(1, name) + field(3, "prod") + field(5, "uid-" + name) +
                       field(6, "12345") + field(11, entry("app", "web"));
    std::string body = field(1, meta);
    const std::string value(48, 'v');
    for (int i = 0; i < 4; ++i)
        body += field(2, entry("key-" + std::to_string(i), value));
    if (secret)
        body += field(3, "Opaque");
    return std::string("k8s\0", 4) + field(1, field(1, "v1") + field(2, kind)) + field(2, body);
}

std::string jsonObject(const std::string& name, bool secret) {
    std::string o = "{\"kind\":\"" + std::string(secret ? "Secret" : "Pod") +
                    "\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" + name +
                    "\",\"namespace\":\"prod\",\"uid\":\"0b7f3c1e-1d2a-4c55-9a1e-2f1b6f7d8e90\","
                    "\"resourceVersion\":\"12001\",\"labels\":{\"app\":\"web\"},"
                    "\"managedFields\":[{\"manager\":\"kubectl\",\"fieldsV1\":{\"f:data\":{"
                    "\"f:a\":{},\"f:b\":{}}}}]},";
    if (secret)
        o += "\"data\":{\"a\":\"" + std::string(64, 'Q') + "\",\"b\":\"" + std::string(24, 'Z') +
             "\"},\"type\":\"Opaque\"}";
    else
        o += "\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx:1.25\",\"ports\":"
             "[{\"containerPort\":8080}]}]},\"status\":{\"phase\":\"Running\"}}";
    return o;
}

std::string jsonList(bool secret) {
    std::string s = "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":"
                    "\"9\"},\"items\":[";
    for (int i = 0; i < 2000; ++i) {
        if (i)
            s += ',';
        s += jsonObject("obj-" + std::to_string(i), secret);
    }
    return s + "]}\n";
}

std::string watchResponse(const std::string& resource, bool json, bool secret) {
    etcdserverpb::WatchResponse pb;
    pb.mutable_header()->set_revision(100000);
    for (int i = 0; i < 1000; ++i) {
        mvccpb::Event* e = pb.add_events();
        const std::string name = "obj-" + std::to_string(i);
        e->mutable_kv()->set_key("/registry/" + resource + "/prod/" + name);
        e->mutable_kv()->set_value(
            json ? jsonObject(name, secret)
                 : protobufObject(secret ? "Secret" : "ConfigMap", name, secret));
        e->mutable_kv()->set_mod_revision(1000 + i);
        e->mutable_kv()->set_create_revision(1000);
        e->mutable_kv()->set_version(i + 1);
    }
    return pb.SerializeAsString();
}

// CPU time of this thread: the machine may be busy with other work.
double cpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// Runs `once` (which handles `bytes` bytes) for about `seconds` of CPU time; MB/s of CPU time.
double measure(double seconds, std::size_t bytes, const std::function<std::size_t()>& once) {
    std::size_t sink = 0;
    long runs = 0;
    const double start = cpuSeconds();
    double elapsed = 0;
    do {
        sink += once();
        ++runs;
        elapsed = cpuSeconds() - start;
    } while (elapsed < seconds);
    if (sink == 42)
        std::puts("");
    return double(bytes) * double(runs) / elapsed / 1e6;
}

} // namespace

int main(int argc, char** argv) {
    double seconds = 0.5;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--seconds") == 0)
            seconds = std::atof(argv[++i]);

    std::printf("%-52s %10s %10s\n", "input", "bytes", "MB/s");
    for (const bool secret : {false, true}) {
        const std::string body = jsonList(secret);
        JsonSecretRedactor r(kSalt);
        QByteArray out;
        const double mbs = measure(seconds, body.size(), [&] {
            r.reset();
            std::size_t n = 0;
            constexpr std::size_t kChunk = 16 * 1024;
            for (std::size_t at = 0; at < body.size(); at += kChunk) {
                out.clear();
                r.feedInto(body.data() + at, std::min(kChunk, body.size() - at), &out);
                n += std::size_t(out.size());
            }
            return n;
        });
        std::printf("%-52s %10zu %10.0f\n",
                    secret ? "JSON list, 2000 Secrets (16 KiB chunks)"
                           : "JSON list, 2000 Pods, no data (16 KiB chunks)",
                    body.size(), mbs);
    }
    struct Case {
        const char* name;
        std::string resource;
        bool json;
        bool secret;
    };
    for (const Case& c :
         {Case{"etcd watch, 1000 ConfigMaps (no \"secrets/\")", "configmaps", false, false},
          Case{"etcd watch, 1000 ConfigMaps under \"x-secrets/\"", "x-secrets", false, false},
          Case{"etcd watch, 1000 protobuf Secrets", "secrets", false, true},
          Case{"etcd watch, 1000 JSON Secrets", "secrets", true, true}}) {
        const QByteArray message = [&] {
            const std::string s = watchResponse(c.resource, c.json, c.secret);
            return QByteArray(s.data(), qsizetype(s.size()));
        }();
        EtcdSecretRedactor r(kSalt);
        const double mbs = measure(seconds, std::size_t(message.size()), [&] {
            return std::size_t(r.redact(EtcdFrameKind::WatchResponse, message).size());
        });
        std::printf("%-52s %10lld %10.0f\n", c.name, static_cast<long long>(message.size()), mbs);
    }
    return 0;
}
