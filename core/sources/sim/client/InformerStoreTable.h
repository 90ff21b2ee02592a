#pragma once

#include "kube/KeyValue.h"

#include <memory>
#include <vector>

namespace ws {

// The stores of all informers of one resource, laid out key-major: the cells of one key for
// every informer are adjacent. Each informer owns one column and sees only its own cells; the
// layout only makes the common case cheap: many informers applying the same event one after the
// other touch neighbouring cache lines instead of one cold line in each of a thousand stores.
class InformerStoreTable {
public:
    int addColumn();
    int columns() const { return m_columns; }

    const KeyValuePtr& get(KeyId key, int column) const {
        if (key >= m_rowOf.size() || m_rowOf[key] < 0)
            return kNoObject;
        return m_cells[static_cast<size_t>(m_rowOf[key]) * m_columns + column];
    }
    KeyValuePtr& cell(KeyId key, int column);
    // Prefetch hints for an event about to be applied (see InformerStore::prefetch).
    void prefetchRow(KeyId key) const {
        if (key < m_rowOf.size() && m_rowOf[key] >= 0)
            __builtin_prefetch(&m_cells[static_cast<size_t>(m_rowOf[key]) * m_columns], 1, 3);
    }
    void prefetchObject(KeyId key, int column) const { get(key, column).prefetch(); }

    std::size_t rows() const { return m_rowKey.size(); }
    KeyId rowKey(std::size_t row) const { return m_rowKey[row]; }
    const KeyValuePtr& at(std::size_t row, int column) const {
        return m_cells[row * static_cast<size_t>(m_columns) + column];
    }
    KeyValuePtr& at(std::size_t row, int column) {
        return m_cells[row * static_cast<size_t>(m_columns) + column];
    }

private:
    int m_columns = 0;
    std::vector<int> m_rowOf; // KeyId -> row, -1 when the key has no row yet
    std::vector<KeyId> m_rowKey;
    std::vector<KeyValuePtr> m_cells; // rows * columns
};

// One informer's store (its indexer): a column of an InformerStoreTable.
class InformerStore {
public:
    InformerStore();
    explicit InformerStore(InformerStoreTable* table);

    const KeyValuePtr& get(KeyId key) const { return m_table->get(key, m_column); }
    void set(KeyId key, KeyValuePtr object) {
        KeyValuePtr& c = m_table->cell(key, m_column);
        if (!c)
            ++m_size;
        c = std::move(object);
    }
    void erase(KeyId key) {
        if (get(key)) {
            m_table->cell(key, m_column) = nullptr;
            --m_size;
        }
    }
    void clear();
    std::size_t size() const { return m_size; }
    // Applying an event releases the object it replaces, written long before and cold: a
    // reader asks for the row of an event `far` ahead and for the object of one `near` ahead
    // (whose row has arrived by then), so that neither waits on memory when its turn comes.
    void prefetch(KeyId far, KeyId near) const {
        m_table->prefetchRow(far);
        m_table->prefetchObject(near, m_column);
    }

    template <typename F> void forEach(F f) const {
        for (std::size_t r = 0; r < m_table->rows(); ++r)
            if (const KeyValuePtr& o = m_table->at(r, m_column))
                f(m_table->rowKey(r), o);
    }

private:
    std::unique_ptr<InformerStoreTable> m_own; // when not given a shared table
    InformerStoreTable* m_table = nullptr;
    int m_column = 0;
    std::size_t m_size = 0;
};

} // namespace ws
