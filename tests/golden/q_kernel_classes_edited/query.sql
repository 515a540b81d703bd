-- Case: q_kernel_classes_edited. kernel_class_rules is plain data: the user adds a rule (it gets
-- id 24, after the 23 default rules) that makes kernels named probe... class 'other' above the
-- compute catch-all (priority 200 > 0), and deletes the memset rule (6), so the memset matches
-- nothing: class 'other', rule NULL. Every bundled query that classifies follows the edited table (see README.md).
INSERT INTO kernel_class_rules (priority, class, kind, pattern, syntax, note)
VALUES (200, 'other', 'kernel', 'PROBE%', 'like', 'user rule: probes are not compute');
DELETE FROM kernel_class_rules WHERE id = 6;
SELECT id, priority, class, kind, pattern, syntax FROM kernel_class_rules
WHERE id BETWEEN 5 AND 11 OR id > 23 ORDER BY id;
