--
-- setops_jaccard_distance: array_jaccard_distance and its operator <%>
-- (0.4), 1 - array_jaccard, for ORDER BY ... LIMIT k.  The property tests
-- (random rows, every form, errors, plans) are test/pgtap/16_jaccard_distance.sql.
--
SELECT '{1,1,2,3}'::packed_int4 <%> '{1,2,2,4}'::packed_int4 AS packed4,
       '{1,1,2,3}'::int8[] <%> '{1,2,2,4}'::int8[] AS int8,
       1 - array_jaccard('{1,1,2,3}'::int4[], '{1,2,2,4}'::int4[]) AS one_minus_jaccard,
       '{}'::packed_int8 <%> '{}'::packed_int8 AS both_empty,
       '{5}'::int4[] <%> '{}'::int4[] AS one_empty,
       NULL::int4[] <%> '{1}'::int4[] AS null_arg;
SELECT '{3,1}'::int4[] <%> '{1}'::int4[];
-- the operators: one per type, each its own commutator; no estimators (not boolean)
SELECT o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype, o.oprcode,
       o.oprcom = o.oid AS self_commutator, o.oprrest, o.oprjoin
FROM pg_operator o WHERE o.oprname = '<%>' ORDER BY o.oprleft::regtype::text;
SELECT p.proname, count(*) AS forms, bool_and(p.provolatile = 'i') AS immutable,
       bool_and(p.proisstrict) AS strict, bool_and(p.proparallel = 's') AS parallel_safe
FROM pg_proc p WHERE p.proname = 'array_jaccard_distance' GROUP BY 1;
-- nearest first: the bounded sort of ORDER BY ... LIMIT
CREATE TABLE jd_seg (id int, members packed_int4);
INSERT INTO jd_seg VALUES (1, '{1,2,3}'), (2, '{2,3,4,5}'), (3, '{7,8}'), (4, '{1,2,3,4}'), (5, '{}');
SELECT id, members <%> '{1,2,3,4}' AS distance FROM jd_seg ORDER BY members <%> '{1,2,3,4}', id LIMIT 3;
DROP TABLE jd_seg;
