// Import diagnostics: every counter declared once, with its severity and meaning (-> import_stats).
#ifndef SRC_IMPORT_STATS_H_
#define SRC_IMPORT_STATS_H_

#include <cstdint>

namespace tracesql {

#define TRACESQL_STATS(F)                                                                                          \
  F(overlapping_slices, "info", "slices that overlap a sibling on their track without nesting (kept; parent is the nearest slice that fully contains them)") \
  F(duplicate_metadata, "info", "M events repeating a (name, pid, tid) already seen (the last one wins)")           \
  F(unknown_metadata, "info", "M events with a name other than process_name/labels/sort_index, thread_name/sort_index (skipped)") \
  F(unknown_phases, "warning", "events with a ph other than X, i, I, B, E, C, M, s, t, f (stored as events)")      \
  F(missing_phase, "warning", "events without a ph (stored with ph '?')")                                          \
  F(big_integers, "info", "integers beyond int64 (stored as text of their exact digits)")                          \
  F(bad_timestamps, "warning", "ts or dur values that are not numbers, or times (ts, ts + dur, baseTimeNanoseconds) beyond +-2^62 ns, about 146 years (stored as NULL; such a baseTimeNanoseconds is ignored)") \
  F(events_without_ts, "warning", "timed events without a ts (stored with ts NULL, not nested)")                   \
  F(slices_without_dur, "warning", "X events without dur (stored with dur NULL)")                                  \
  F(negative_durations, "warning", "slices with a negative dur (stored, not nested)")                              \
  F(numeric_string_ids, "info", "events whose pid or tid is a numeric string (normalised to an integer)")          \
  F(unmatched_begin, "warning", "B events without a matching E (stored with dur NULL)")                            \
  F(unmatched_end, "warning", "E events without a matching B (counted, not stored)")                    \
  F(flow_points, "info", "flow events (s, t, f) read")                                                             \
  F(flow_starts_unbound, "info", "flow starts with no slice containing their ts on their track")                   \
  F(flow_ends_unbound, "info", "flow ends with no slice to bind to on their track")                                \
  F(flow_starts_without_end, "info", "flow starts whose (cat, id) has no end (e.g. GPU work outside the window)")  \
  F(flow_ends_without_start, "info", "flow ends whose (cat, id) has no start (e.g. runtime calls without GPU work)") \
  F(flows_without_id, "warning", "flow events without an id (skipped)")                                            \
  F(unknown_event_keys, "info", "event keys other than ph, cat, name, pid, tid, ts, dur, id, bp, s, args (ignored)") \
  F(non_object_events, "warning", "traceEvents elements that are not JSON objects (skipped)")                     \
  F(oversized_items, "warning", "events or top-level values larger than 64 MiB (skipped as they stream by, never held in memory)") \
  F(non_finite_numbers, "warning", "NaN / Infinity / inf literals, which are not JSON (args and metadata: stored as JSON strings of their text; ts/dur: NULL; pid/tid/id: text)") \
  F(invalid_strings, "warning", "events or top-level values whose strings held invalid UTF-8, raw control characters or unpaired surrogate escapes (stored repaired: U+FFFD, \\u00XX)") \
  F(nul_characters, "info", "events whose name, cat or ph holds U+0000 (a \\u0000 escape; stored as is, but some SQLite functions and tools stop at it)") \
  F(too_deep_values, "warning", "args or top-level values nested deeper than 256 levels (stored as a JSON string of their text, which SQLite's JSON functions can read)") \
  F(duplicate_keys, "warning", "keys repeated within one event, one args object or the top-level object (the last value wins)") \
  F(wrong_types, "warning", "event fields of an unexpected JSON type: ph, cat or name not a string (stored as their JSON text), bp not a string (ignored)") \
  F(views_by_sql, "info", "times or durations beyond +-2^61 ns (year 2043): this trace's rows of op_kernel_links, idle_gaps, stream_idle_gaps, stream_queue, autograd_pairs and gpu_segments were made by their SQL (slower) rather than by the importer") \
  F(duplicate_rank, "warning", "another trace of the database has the same distributedInfo rank: the value is that trace's traces.id (cross-rank queries such as collectives take both as that rank)") \
  F(truncated_at_byte, "warning", "the file ends early: byte offset (in the JSON) of the first incomplete item; every complete event before it was imported")

enum class StatId {
#define TRACESQL_STAT_ENUM(name, sev, desc) name,
  TRACESQL_STATS(TRACESQL_STAT_ENUM)
#undef TRACESQL_STAT_ENUM
      kCount
};

struct StatInfo {
  const char* name;
  const char* severity;
  const char* description;
};

inline constexpr StatInfo kStatInfo[] = {
#define TRACESQL_STAT_INFO(name, sev, desc) {#name, sev, desc},
    TRACESQL_STATS(TRACESQL_STAT_INFO)
#undef TRACESQL_STAT_INFO
};

struct Stats {
  int64_t values[static_cast<int>(StatId::kCount)] = {};
  bool set[static_cast<int>(StatId::kCount)] = {};
  void Add(StatId id, int64_t n = 1) {
    values[static_cast<int>(id)] += n;
    set[static_cast<int>(id)] = true;
  }
  void Set(StatId id, int64_t v) {
    values[static_cast<int>(id)] = v;
    set[static_cast<int>(id)] = true;
  }
  int64_t Get(StatId id) const { return values[static_cast<int>(id)]; }
};

}  // namespace tracesql

#endif  // SRC_IMPORT_STATS_H_
