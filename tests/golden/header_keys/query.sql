-- Case: header_keys
-- Checks: top-level keys before AND after traceEvents all land in traces.metadata (a JSON object of
-- every top-level key except traceEvents, values verbatim); rank/world_size come from
-- distributedInfo; deviceProperties entries become devices rows (id -> device, totalGlobalMem ->
-- total_memory, computeMajor/Minor, numSms; the whole entry in properties).
-- json_each/json_extract re-render values, so the output does not depend on how the text is stored.
-- Key order below is SQLite BINARY collation (upper case sorts before lower case).
SELECT rank, world_size, root_shape, event_count, base_time_ns, start_ts, end_ts
FROM traces
ORDER BY id;

SELECT j.key, j.type
FROM traces AS t, json_each(t.metadata) AS j
ORDER BY j.key;

SELECT json_extract(metadata, '$.roctracer_version') AS roctracer,
       json_extract(metadata, '$.distributedInfo.nccl_version') AS nccl,
       json_extract(metadata, '$.INFO[1]') AS info1,
       json_extract(metadata, '$.metadata.harness.ok') AS ok,
       json_type(metadata, '$.metadata.harness.none') AS none_type,
       json_extract(metadata, '$.metadata') AS nested,
       json_extract(metadata, '$.trace_id') AS trace_id
FROM traces
ORDER BY id;

SELECT device, name, compute_major, compute_minor, total_memory, num_sms,
       json_extract(properties, '$.warpSize') AS warp_size
FROM devices
ORDER BY device;
