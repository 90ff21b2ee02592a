#include "ProcessMemory.h"

#include <cstdio>
#include <unistd.h>

namespace ws {

qint64 residentMemoryBytes() {
    // statm: size resident shared text lib data dt, in pages.
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    long long size = 0;
    long long resident = 0;
    const int read = std::fscanf(f, "%lld %lld", &size, &resident);
    std::fclose(f);
    const long page = sysconf(_SC_PAGESIZE);
    if (read != 2 || page <= 0)
        return -1;
    return qint64(resident) * page;
}

} // namespace ws
