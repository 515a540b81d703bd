// Exact conversion of trace time literals (microseconds as JSON number text) to integer nanoseconds.
#ifndef TRACESQL_TIMESTAMP_H_
#define TRACESQL_TIMESTAMP_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace tracesql {

// Parses a JSON number literal holding microseconds ("5.1", "1419247332972.313", "68.0", "-3",
// "1.5e3") into nanoseconds without going through a double: integer part x 1000 plus the first
// three fraction digits; further digits round half to even. Returns nullopt for text that is not a
// JSON number or whose value does not fit in int64 nanoseconds.
std::optional<int64_t> MicrosToNanos(std::string_view text);

// Parses a JSON integer literal into int64; nullopt when it is not an integer or out of range.
std::optional<int64_t> ParseInt64(std::string_view text);

}  // namespace tracesql

#endif  // TRACESQL_TIMESTAMP_H_
