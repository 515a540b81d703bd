-- Every kind of value the renderer must handle; golden outputs in golden/formats.<format>.
-- Row 3 holds a double quote, a comma, a pipe, a tab and a newline; row 4 an integer beyond int64
-- (SQLite makes it a real) and a NULL blob; big holds both int64 limits.
SELECT 1 AS id, 'plain' AS txt, NULL AS nul, 0.5 AS num, 9223372036854775807 AS big, x'' AS raw
UNION ALL
SELECT 2, 'ünïcödé 日本語 🙂', NULL, -1e-05, -9223372036854775808, x'00ff10'
UNION ALL
SELECT 3, 'quote " comma , pipe | tab' || char(9) || 'end' || char(10) || 'line 2', 'x', 1e300, 0, x'41'
UNION ALL
SELECT 4, '', 'NULL', 3.0, 18446744073709551616, NULL;

-- An empty result: header only (none at all in json).
SELECT 'never' AS empty_result, 2 AS two WHERE 0;
