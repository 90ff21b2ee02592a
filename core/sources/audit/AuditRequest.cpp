#include "AuditRequest.h"

namespace ws {

QString AuditRequest::selector() const {
    if (query.labelSelector.isEmpty())
        return query.fieldSelector;
    if (query.fieldSelector.isEmpty())
        return query.labelSelector;
    return query.labelSelector + u',' + query.fieldSelector;
}

ResourceVersion AuditRequest::requestedRv() const {
    bool ok = false;
    const qint64 rv = query.resourceVersion.toLongLong(&ok);
    return ok && rv > 0 ? rv : 0;
}

} // namespace ws
