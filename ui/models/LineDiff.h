#pragma once

#include <QStringList>
#include <QVector>

namespace ws {

// One line of a line-based diff.
struct DiffLine {
    enum Op : char { Same = ' ', Removed = '-', Added = '+' };
    Op op = Same;
    QString text;
    friend bool operator==(const DiffLine&, const DiffLine&) = default;
};

// A line diff of two texts (the previous version of an object and this one): the common head
// and tail are matched first, the lines between by a longest common subsequence; when that
// middle is too large to compare line by line (more than 4 million line pairs) it is shown
// as removed and added whole.
class LineDiff {
public:
    static QVector<DiffLine> compute(const QStringList& before, const QStringList& after);
    // How many lines are added or removed.
    static int changes(const QVector<DiffLine>& diff);
};

} // namespace ws
