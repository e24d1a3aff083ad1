// Message sizes on the command line and the size sweep (nccl-tests' -b -e -f -i).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "algorithms/types.hpp"

namespace cb {

// "8", "64K", "1M", "2G" (also "64KiB", "1MB" forms: K/M/G are powers of
// 1024 either way). Throws UsageError naming `flag` and the bad value.
std::size_t parse_bytes(std::string_view text, std::string_view flag);

// "8 B", "64 KiB", "1.5 MiB": for tables and messages.
std::string format_bytes(std::size_t bytes);

// The requested sizes S in bytes: begin, then begin*factor ... (or
// begin+increment ... when increment > 0) up to end inclusive. Throws
// UsageError for begin 0, begin > end, factor < 2.
std::vector<std::size_t> size_sweep(std::size_t begin, std::size_t end, std::size_t factor,
                                    std::size_t increment);

// The count (elements, MPI meaning) a requested size S gives for a
// collective: S is count*elem for allreduce and count*elem*p for the others;
// rounds down to the nearest size that divides evenly, as nccl-tests does.
// May be 0 (the caller skips it).
std::size_t count_for_bytes(Collective coll, DataType dtype, int p, std::size_t bytes);
// S for a count (inverse of the above, exact).
std::size_t bytes_for_count(Collective coll, DataType dtype, int p, std::size_t count);

}  // namespace cb
