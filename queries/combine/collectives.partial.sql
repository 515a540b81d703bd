-- partial: collectives
-- Per partition: its trace's collective ops (view collective_ops), one row per collective instance,
-- with what matching them across ranks needs; trace_rank is traces.rank (NULL where the trace has
-- none: the combining query puts the job's trace id in its place, as collective_ops does).
SELECT o.process_group, o.seq, o.trace_id, t.rank AS trace_rank, o.ts, o.dur, o.collective, o.kernel,
       o.pg_desc, o.pg_ranks, o.group_size, o.dtype, o.in_nelems, o.out_nelems, o.msg_bytes, o.bus_factor
FROM collective_ops AS o
JOIN traces AS t ON t.id = o.trace_id;
