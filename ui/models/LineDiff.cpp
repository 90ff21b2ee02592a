#include "LineDiff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ws {

namespace {
constexpr qint64 kMaxCells = 4'000'000;
} // namespace

QVector<DiffLine> LineDiff::compute(const QStringList& a, const QStringList& b) {
    QVector<DiffLine> out;
    qsizetype head = 0;
    while (head < a.size() && head < b.size() && a[head] == b[head])
        ++head;
    qsizetype tail = 0;
    while (tail < a.size() - head && tail < b.size() - head &&
           a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
        ++tail;
    for (qsizetype i = 0; i < head; ++i)
        out.push_back({DiffLine::Same, a[i]});
    const qsizetype n = a.size() - head - tail;
    const qsizetype m = b.size() - head - tail;
    if (n > 0 && m > 0 && qint64(n) * qint64(m) <= kMaxCells) {
        // lcs[i][j]: the longest common subsequence of a[head+i..] and b[head+j..].
        const auto w = std::size_t(m + 1);
        std::vector<std::uint32_t> lcs(std::size_t(n + 1) * w, 0);
        for (qsizetype i = n - 1; i >= 0; --i)
            for (qsizetype j = m - 1; j >= 0; --j)
                lcs[std::size_t(i) * w + std::size_t(j)] =
                    a[head + i] == b[head + j]
                        ? lcs[std::size_t(i + 1) * w + std::size_t(j + 1)] + 1
                        : std::max(lcs[std::size_t(i + 1) * w + std::size_t(j)],
                                   lcs[std::size_t(i) * w + std::size_t(j + 1)]);
        qsizetype i = 0, j = 0;
        while (i < n && j < m) {
            if (a[head + i] == b[head + j]) {
                out.push_back({DiffLine::Same, a[head + i]});
                ++i;
                ++j;
            } else if (lcs[std::size_t(i + 1) * w + std::size_t(j)] >=
                       lcs[std::size_t(i) * w + std::size_t(j + 1)]) {
                out.push_back({DiffLine::Removed, a[head + i++]});
            } else {
                out.push_back({DiffLine::Added, b[head + j++]});
            }
        }
        for (; i < n; ++i)
            out.push_back({DiffLine::Removed, a[head + i]});
        for (; j < m; ++j)
            out.push_back({DiffLine::Added, b[head + j]});
    } else {
        for (qsizetype i = 0; i < n; ++i)
            out.push_back({DiffLine::Removed, a[head + i]});
        for (qsizetype j = 0; j < m; ++j)
            out.push_back({DiffLine::Added, b[head + j]});
    }
    for (qsizetype i = a.size() - tail; i < a.size(); ++i)
        out.push_back({DiffLine::Same, a[i]});
    return out;
}

int LineDiff::changes(const QVector<DiffLine>& diff) {
    return int(std::count_if(diff.begin(), diff.end(),
                             [](const DiffLine& l) { return l.op != DiffLine::Same; }));
}

} // namespace ws
