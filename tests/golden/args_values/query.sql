-- Case: args_values
-- Checks lossless args:
--  * events.args is the minified JSON object text: keys in file order, whitespace outside strings
--    removed, numbers exactly as written (5.0 stays 5.0, 0.0004464285714285714 keeps all digits),
--    strings as written (the \" escape stays \"); NULL when the event has no "args" key; an empty
--    object "args": {} is kept as {} (it is present, just empty).
--  * an integer beyond int64 (Comms Id 10159970886766084423, hash 18446744073709551615 = uint64 max)
--    is stored as a JSON string of its digits -> the args view gives text; INT64_MAX
--    9223372036854775807 still fits and stays an integer; 4294967295 is an ordinary integer.
--  * args view: nested arrays/objects come back as minified JSON text with value_type
--    'array'/'object'; true -> 1 with value_type 'true'; null -> NULL with 'null'; floats are reals.
--  * promoted columns: external_id ('External id'), correlation, seq_num ('Sequence number'),
--    fwd_thread_id ('Fwd thread id'), python_id ('Python id'), python_parent_id ('Python parent id';
--    JSON null -> NULL), device, stream (integers only: the ROCm string "0x0" -> NULL).
--  * import_stats big_integers = 2 (two values, in two different events).
SELECT name, (SELECT args FROM event_args WHERE event_id = events.id) AS args
FROM events
ORDER BY ts;

SELECT e.name, a.key, a.value, typeof(a.value) AS sql_type, a.value_type
FROM args AS a JOIN events AS e ON e.id = a.event_id
ORDER BY e.ts, a.key;

SELECT name, external_id, correlation, seq_num, fwd_thread_id, python_id, python_parent_id,
       device, stream
FROM events
ORDER BY ts;

SELECT name, value
FROM import_stats
WHERE name = 'big_integers'
ORDER BY name;
