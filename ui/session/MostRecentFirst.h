#pragma once

#include <QList>

namespace ws {

// The rule of the window's "recent" lists (captures, connections): the item picked again moves
// to the front, an equal one (by `same`) goes, and at most `max` stay.
template <typename T, typename Same>
void rememberFirst(QList<T>& list, const T& item, Same same, qsizetype max) {
    list.removeIf([&](const T& other) { return same(other, item); });
    list.prepend(item);
    while (list.size() > max)
        list.removeLast();
}

} // namespace ws
