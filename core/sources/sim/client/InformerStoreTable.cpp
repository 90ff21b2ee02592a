#include "InformerStoreTable.h"

namespace ws {

int InformerStoreTable::addColumn() {
    const int column = m_columns++;
    if (!m_rowKey.empty()) {
        // Re-lay out the existing rows with one more column (only when informers join late).
        std::vector<KeyValuePtr> cells(m_rowKey.size() * static_cast<size_t>(m_columns));
        for (std::size_t r = 0; r < m_rowKey.size(); ++r)
            for (int c = 0; c < m_columns - 1; ++c)
                cells[r * m_columns + c] = std::move(m_cells[r * (m_columns - 1) + c]);
        m_cells = std::move(cells);
    }
    return column;
}

KeyValuePtr& InformerStoreTable::cell(KeyId key, int column) {
    if (key >= m_rowOf.size())
        m_rowOf.resize(static_cast<size_t>(key) + 1, -1);
    if (m_rowOf[key] < 0) {
        m_rowOf[key] = static_cast<int>(m_rowKey.size());
        m_rowKey.push_back(key);
        m_cells.resize(m_cells.size() + static_cast<size_t>(m_columns));
    }
    return m_cells[static_cast<size_t>(m_rowOf[key]) * m_columns + column];
}

InformerStore::InformerStore()
    : m_own(std::make_unique<InformerStoreTable>()), m_table(m_own.get()),
      m_column(m_own->addColumn()) {}

InformerStore::InformerStore(InformerStoreTable* table)
    : m_table(table), m_column(table->addColumn()) {}

void InformerStore::clear() {
    for (std::size_t r = 0; r < m_table->rows(); ++r)
        m_table->at(r, m_column) = nullptr;
    m_size = 0;
}

} // namespace ws
