-- Case: counter_events
-- Checks: "C" counter events (current Kineto hardware_counters, pid "GPU 0 Counters") are stored as
-- events rows with ph 'C', dur NULL and their args; the value keeps its JSON type (87.5 real,
-- 90 integer). The counter track carries no CPU/GPU category -> kind 'other'.
SELECT e.name, e.ph, e.pid, e.tid, e.ts, e.dur, a.value, typeof(a.value) AS value_type, t.kind
FROM events AS e
JOIN threads AS t ON t.id = e.thread_id
LEFT JOIN args AS a ON a.event_id = e.id AND a.key = 'value'
ORDER BY e.ts, e.name;
