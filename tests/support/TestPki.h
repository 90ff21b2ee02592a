#pragma once

// A throwaway PKI made with the `openssl` command line in a temporary directory, for tests that
// need real TLS: a CA, a server certificate for 127.0.0.1 and localhost signed by it, client
// certificates (CN=alice, O=devs) with RSA and EC keys in each PEM form kubeconfigs carry, and a
// second, unrelated CA with a client certificate of its own. Every member is a file path.

#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace ws::test {

struct TestPki {
    QString dir;

    QString caCert, caKey; // "watchscope-test-ca"
    // CN=127.0.0.1, SAN IP:127.0.0.1 and DNS:localhost, serverAuth; RSA key in PKCS#8.
    QString serverCert, serverKey;
    // CN=alice, O=devs, clientAuth, signed by the CA. RSA: PKCS#8 ("PRIVATE KEY") and PKCS#1
    // ("RSA PRIVATE KEY") forms of one key.
    QString clientCert, clientKey, clientKeyPkcs1;
    // CN=alice, O=devs with a P-256 key: SEC1 ("EC PRIVATE KEY") and PKCS#8 forms of one key.
    QString clientEcCert, clientEcKey, clientEcKeyPkcs8;
    // A P-256 key of no certificate (to pair wrongly with clientEcCert).
    QString otherEcKey;
    // An unrelated CA, and a client certificate (CN=mallory) it signed.
    QString otherCaCert, otherCaKey;
    QString otherClientCert, otherClientKey;

    static bool available() { return !QStandardPaths::findExecutable("openssl").isEmpty(); }

    // Makes everything; on failure false and the failing openssl step in *error.
    bool create(QString* error) {
        m_dir = std::make_unique<QTemporaryDir>();
        if (!m_dir->isValid())
            return fail(error, QStringLiteral("cannot create a temporary directory"));
        dir = m_dir->path();
        // Our own minimal config: independent of the system's openssl.cnf.
        if (!write(QStringLiteral("openssl.cnf"),
                   "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\n"
                   "[ca]\nbasicConstraints = critical,CA:TRUE\n"
                   "keyUsage = critical,keyCertSign,cRLSign\n"
                   "subjectKeyIdentifier = hash\n"
                   "[server]\nbasicConstraints = CA:FALSE\n"
                   "keyUsage = critical,digitalSignature,keyEncipherment\n"
                   "extendedKeyUsage = serverAuth\n"
                   "subjectAltName = IP:127.0.0.1,DNS:localhost\n"
                   "[client]\nbasicConstraints = CA:FALSE\n"
                   "keyUsage = critical,digitalSignature,keyEncipherment\n"
                   "extendedKeyUsage = clientAuth\n"))
            return fail(error, QStringLiteral("cannot write openssl.cnf"));

        caCert = path("ca.pem");
        caKey = path("ca.key");
        serverCert = path("server.pem");
        serverKey = path("server.key");
        clientCert = path("client.pem");
        clientKey = path("client.key");
        clientKeyPkcs1 = path("client-pkcs1.key");
        clientEcCert = path("client-ec.pem");
        clientEcKey = path("client-ec.key");
        clientEcKeyPkcs8 = path("client-ec-pkcs8.key");
        otherEcKey = path("other-ec.key");
        otherCaCert = path("other-ca.pem");
        otherCaKey = path("other-ca.key");
        otherClientCert = path("other-client.pem");
        otherClientKey = path("other-client.key");

        return makeCa(caCert, caKey, "/CN=watchscope-test-ca", error) &&
               makeCa(otherCaCert, otherCaKey, "/CN=watchscope-other-ca", error) &&
               run({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
                    serverKey},
                   error) &&
               sign(serverKey, "/CN=127.0.0.1", "server", caCert, caKey, serverCert, error) &&
               run({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
                    clientKey},
                   error) &&
               run({"rsa", "-in", clientKey, "-traditional", "-out", clientKeyPkcs1}, error) &&
               sign(clientKey, "/O=devs/CN=alice", "client", caCert, caKey, clientCert, error) &&
               run({"ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", clientEcKey},
                   error) &&
               run({"pkcs8", "-topk8", "-nocrypt", "-in", clientEcKey, "-out", clientEcKeyPkcs8},
                   error) &&
               sign(clientEcKey, "/O=devs/CN=alice", "client", caCert, caKey, clientEcCert,
                    error) &&
               run({"ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", otherEcKey},
                   error) &&
               run({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
                    otherClientKey},
                   error) &&
               sign(otherClientKey, "/O=devs/CN=mallory", "client", otherCaCert, otherCaKey,
                    otherClientCert, error);
    }

    // CN=alice, O=devs, signed by the CA, valid for one day in 2020 only: expired.
    QString expiredClientCert;

    // Makes expiredClientCert (for clientKey) with `openssl ca`, the one openssl 3.0 command
    // that takes explicit dates. After create().
    bool createExpiredClient(QString* error) {
        expiredClientCert = path("client-expired.pem");
        const QString csr = expiredClientCert + QStringLiteral(".csr");
        return write(QStringLiteral("index.txt"), {}) &&
               write(QStringLiteral("serial"), "1000\n") &&
               write(QStringLiteral("ca.cnf"),
                     "[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\n"
                     "new_certs_dir = .\nserial = serial\ndefault_md = sha256\n"
                     "policy = any\nunique_subject = no\n[any]\norganizationName = optional\n"
                     "commonName = supplied\n[client]\nbasicConstraints = CA:FALSE\n"
                     "keyUsage = critical,digitalSignature,keyEncipherment\n"
                     "extendedKeyUsage = clientAuth\n") &&
               run({"req", "-new", "-config", path("openssl.cnf"), "-key", clientKey, "-subj",
                    "/O=devs/CN=alice", "-out", csr},
                   error) &&
               run({"ca", "-batch", "-config", path("ca.cnf"), "-cert", caCert, "-keyfile", caKey,
                    "-in", csr, "-out", expiredClientCert, "-notext", "-extensions", "client",
                    "-startdate", "20200101000000Z", "-enddate", "20200102000000Z"},
                   error);
    }

    static QByteArray pem(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;

    QString path(const char* name) const { return dir + QLatin1Char('/') + QLatin1String(name); }

    static bool fail(QString* error, const QString& message) {
        if (error)
            *error = message;
        return false;
    }

    bool write(const QString& name, const QByteArray& bytes) const {
        QFile f(dir + QLatin1Char('/') + name);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    }

    bool run(const QStringList& args, QString* error) const {
        QProcess p;
        p.setWorkingDirectory(dir);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("openssl"), args);
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit ||
            p.exitCode() != 0)
            return fail(error,
                        QStringLiteral("openssl %1 failed: %2")
                            .arg(args.value(0), QString::fromLocal8Bit(p.readAll()).simplified()));
        return true;
    }

    bool makeCa(const QString& cert, const QString& key, const QString& subject,
                QString* error) const {
        return run({"req", "-x509", "-config", path("openssl.cnf"), "-extensions", "ca", "-newkey",
                    "rsa:2048", "-nodes", "-days", "3", "-subj", subject, "-keyout", key, "-out",
                    cert},
                   error);
    }

    // A certificate for `key` with `subject` and the extensions of section `profile`.
    bool sign(const QString& key, const QString& subject, const QString& profile, const QString& ca,
              const QString& caKeyPath, const QString& out, QString* error) const {
        const QString csr = out + QStringLiteral(".csr");
        return run({"req", "-new", "-config", path("openssl.cnf"), "-key", key, "-subj", subject,
                    "-out", csr},
                   error) &&
               run({"x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKeyPath, "-CAcreateserial",
                    "-days", "3", "-extfile", path("openssl.cnf"), "-extensions", profile, "-out",
                    out},
                   error);
    }
};

} // namespace ws::test
