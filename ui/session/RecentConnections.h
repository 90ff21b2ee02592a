#pragma once

#include "engine/SourceSpec.h"

#include <QList>
#include <memory>

class QSettings;

namespace ws {

// The cluster connections made from the connect dialog, newest first, kept in the program's
// settings across runs: what was chosen (kubeconfig path, context, servers, client-go,
// resources), never a credential. At most kMax; connecting again to the same place moves it to
// the front with its latest choices.
class RecentConnections {
public:
    static constexpr int kMax = 8;

    // `settings` null: the application's QSettings.
    explicit RecentConnections(QSettings* settings = nullptr);

    QList<SourceSpec> load() const;
    void remember(const SourceSpec& spec);
    void clear();

    // "context kind-dev — ~/.kube/config" or "apiservers https://a:6443, https://b:6443".
    static QString label(const SourceSpec& spec);
    // Same place: kind, kubeconfig, context and servers equal (client-go/resources may differ).
    static bool samePlace(const SourceSpec& a, const SourceSpec& b);

private:
    void save(const QList<SourceSpec>& list);
    QSettings* m_settings;
    std::unique_ptr<QSettings> m_own;
};

} // namespace ws
