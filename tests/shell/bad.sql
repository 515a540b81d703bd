-- A query file with a syntax error on line 5 (tests/shell: file and line in the message).
SELECT 1 AS ok;

SELECT name
FRM events;
