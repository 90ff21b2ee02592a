#pragma once

#include <QString>
#include <QStringView>

namespace ws {

// A release number as sessions report them: "1.27.0", "v1.31.2-eks-1234" (a vendor suffix is
// ignored), "0.18.3", "3.4.23", "1.28" (no patch). Invalid when there is no MAJOR.MINOR.
struct ReleaseVersion {
    int major = -1;
    int minor = -1;
    int patch = -1; // -1: not given ("1.28")
    QString text;   // as given

    bool valid() const { return major >= 0 && minor >= 0; }
    bool hasPatch() const { return patch >= 0; }
    // MAJOR.MINOR[.PATCH] without the "v" and any suffix: "1.31.2".
    QString plain() const;
    // Same major and at least minor.patch; a missing patch counts as .0.
    bool atLeast(int minorAtLeast, int patchAtLeast = 0) const {
        return minor > minorAtLeast || (minor == minorAtLeast && qMax(patch, 0) >= patchAtLeast);
    }

    static ReleaseVersion parse(QStringView text);
};

} // namespace ws
