-- partial: collective_ranks
-- Per partition: its trace's collective ops (view collective_ops), one row per collective instance;
-- trace_rank is traces.rank (NULL where the trace has none: the combining query puts the job's
-- trace id in its place, as collective_ops does). Every partition runs, also with -p trace_id: the
-- waits compare a trace with every other.
SELECT o.process_group, o.seq, o.collective, t.rank AS trace_rank, o.trace_id, o.ts, o.dur, o.msg_bytes,
       o.group_size, o.bus_factor
FROM collective_ops AS o
JOIN traces AS t ON t.id = o.trace_id;
