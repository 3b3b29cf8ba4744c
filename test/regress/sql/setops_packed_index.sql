--
-- setops_packed_index: equality, order and hashing of packed values (= <>
-- < <= > >=, the btree and hash operator classes: DISTINCT, GROUP BY,
-- UNION, ORDER BY, merge and hash joins), and the GIN operator classes for
-- && @> <@ = (0.2).
--

-- equal: the same keys with the same counts
SELECT '{1,2,2,3}'::packed_int4 = '{1,2,2,3}'::packed_int4 AS same,
       '{1,2,3}'::packed_int4 = '{1,2,2,3}'::packed_int4 AS one_copy_less,
       '{1,2,2,3}'::packed_int4 <> '{1,2,3,3}'::packed_int4 AS other_copy,
       '{}'::packed_int4 = '{}'::packed_int4 AS both_empty,
       '{}'::packed_int8 <> '{0}'::packed_int8 AS empty_vs_zero,
       '{-9223372036854775808,9223372036854775807}'::packed_int8 =
       '{-9223372036854775808,9223372036854775807}'::packed_int8 AS extremes;
-- multi-chunk values (1024 keys a chunk): the last key differs
SELECT array_pack(ARRAY(SELECT g FROM generate_series(1, 3000) g)) =
       array_pack(ARRAY(SELECT g FROM generate_series(1, 3000) g)) AS equal_3000,
       array_pack(ARRAY(SELECT g FROM generate_series(1, 3000) g)) <
       array_pack(ARRAY(SELECT g FROM generate_series(1, 2999) g) || 3001) AS last_key_less;

-- order: lexicographic over the keys, a proper prefix first
CREATE TABLE pi_order (p packed_int4);
INSERT INTO pi_order VALUES ('{2}'), ('{1,2,3}'), ('{}'), ('{1,1}'), ('{1}'), ('{1,2}'),
    ('{-2147483648}'), ('{2147483647}'), ('{1,3}'), ('{1,2,2}');
SELECT p FROM pi_order ORDER BY p;
SELECT p FROM pi_order ORDER BY p DESC LIMIT 3;
SELECT '{1,2}'::packed_int4 < '{1,2,2}'::packed_int4 AS "prefix <",
       '{1,3}'::packed_int4 > '{1,2,9}'::packed_int4 AS "2nd key >",
       '{5}'::packed_int4 <= '{5}'::packed_int4 AS "<= equal",
       '{5}'::packed_int4 >= '{4,9}'::packed_int4 AS ">=",
       '{-9223372036854775808}'::packed_int8 < '{9223372036854775807}'::packed_int8 AS "int8 extremes",
       packed_cmp('{1,2}'::packed_int4, '{1,2,2}'), packed_cmp('{3}'::packed_int8, '{3}'),
       packed_cmp('{4}'::packed_int8, '{3,9}');
-- the order is the arrays' (PostgreSQL compares one-dimensional arrays
-- the same way): every pair agrees
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.p < b.p) = (a.p::int4[] < b.p::int4[])
                          AND (a.p = b.p) = (a.p::int4[] = b.p::int4[])
                          AND sign(packed_cmp(a.p, b.p)) = sign(btarraycmp(a.p::int4[], b.p::int4[])))
       AS agreeing
FROM pi_order a, pi_order b;

-- Packed bytes are not canonical: the same keys at a wider chunk width.
-- {7,8} packs at width 1 (differences 0, 1: 32 words); at width 2 the same
-- differences take 64 words, the first 32 identical and the rest 0.  In
-- the binary form (after the varlena length): nwords at byte 12, chunk 0's
-- width at 44, word_start[1] at 56, the words last.
CREATE TABLE pi_recoded AS
SELECT p, packed_int4(set_byte(set_byte(set_byte(bytea(p), 12, 64), 44, 2), 56, 64)
                      || decode(repeat('00', 128), 'hex')) AS wide,
       -- and with a padding byte after the widths set (sections start on 8-byte boundaries)
       packed_int4(set_byte(bytea(p), 45, 1)) AS padded
FROM (SELECT '{7,8}'::packed_int4 AS p) s;
SELECT p, wide, padded, length(bytea(p)) AS bytes, length(bytea(wide)) AS wide_bytes,
       bytea(p) = bytea(wide) AS same_bytes, bytea(p) = bytea(padded) AS same_bytes_padded,
       p = wide AS "=", p <> wide AS "<>", p = padded AS "= padded", packed_cmp(p, wide) AS cmp,
       packed_hash(p) = packed_hash(wide) AS same_hash,
       packed_hash_extended(p, 7) = packed_hash_extended(wide, 7) AS same_hash_extended,
       packed_hash(padded) = packed_hash(p) AS same_hash_padded
FROM pi_recoded;
-- hash support 2 with seed 0 has support 1's low 32 bits
SELECT packed_hash_extended(p, 0) & 4294967295 = packed_hash(p)::int8 & 4294967295 AS low_bits,
       packed_hash_extended(p, 0) <> packed_hash_extended(p, 1) AS seeded
FROM pi_recoded;
-- DISTINCT, GROUP BY and UNION see one value, whatever the bytes
SELECT count(DISTINCT v) AS distinct_values, count(*) AS rows
FROM pi_recoded, LATERAL (VALUES (p), (wide), (padded)) t(v);
SELECT v, count(*) FROM pi_recoded, LATERAL (VALUES (p), (wide), (padded)) t(v) GROUP BY v;
SELECT p FROM pi_recoded UNION SELECT wide FROM pi_recoded UNION SELECT padded FROM pi_recoded;

-- the operators as declared
SELECT o.oprname, o.oprleft::regtype, c.oprname AS commutator, n.oprname AS negator,
       o.oprrest, o.oprjoin, o.oprcanhash AS hashes, o.oprcanmerge AS merges
FROM pg_operator o LEFT JOIN pg_operator c ON c.oid = o.oprcom
     LEFT JOIN pg_operator n ON n.oid = o.oprnegate
WHERE o.oprleft IN ('packed_int4'::regtype, 'packed_int8'::regtype)
  AND o.oprname IN ('=', '<>', '<', '<=', '>', '>=')
ORDER BY o.oprleft::regtype::text, 1;
-- the operator classes, their operators by strategy and their support functions
SELECT am.amname, opc.opcname, opc.opcintype::regtype, opc.opcdefault,
       opc.opckeytype::regtype AS storage
FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
WHERE opc.opcintype IN ('packed_int4'::regtype, 'packed_int8'::regtype)
ORDER BY 3, 1;
SELECT am.amname, amop.amopstrategy, amop.amopopr::regoperator
FROM pg_amop amop JOIN pg_am am ON am.oid = amop.amopmethod
WHERE amop.amoplefttype = 'packed_int4'::regtype
ORDER BY 1, 2;
SELECT am.amname, amproc.amprocnum, amproc.amproc::regprocedure
FROM pg_amproc amproc JOIN pg_opfamily f ON f.oid = amproc.amprocfamily
     JOIN pg_am am ON am.oid = f.opfmethod
WHERE amproc.amproclefttype = 'packed_int8'::regtype
ORDER BY 1, 2;
-- every new function: IMMUTABLE STRICT PARALLEL SAFE
SELECT p.proname, count(*) AS forms, bool_and(p.provolatile = 'i') AS immutable,
       bool_and(p.proisstrict) AS strict, bool_and(p.proparallel = 's') AS parallel_safe
FROM pg_proc p
WHERE p.proname LIKE 'packed\_%' AND p.proname NOT LIKE 'packed\_int%'
GROUP BY 1 ORDER BY 1;

-- joins and grouping on packed columns
CREATE TABLE pi_left (id int, p packed_int4);
CREATE TABLE pi_right (id int, p packed_int4);
INSERT INTO pi_left VALUES (1, '{1,2}'), (2, '{1,2,2}'), (3, '{}'), (4, '{5}'), (5, '{1,2}');
INSERT INTO pi_right VALUES (10, '{1,2}'), (11, '{}'), (12, '{5,5}'), (13, '{1,2,2}');
INSERT INTO pi_right SELECT 14, wide FROM pi_recoded;
INSERT INTO pi_left SELECT 6, p FROM pi_recoded;
ANALYZE pi_left;
ANALYZE pi_right;
SET enable_nestloop = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT l.id, r.id FROM pi_left l JOIN pi_right r ON l.p = r.p;
SELECT l.id, r.id, l.p FROM pi_left l JOIN pi_right r ON l.p = r.p ORDER BY 1, 2;
RESET enable_mergejoin;
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT l.id, r.id FROM pi_left l JOIN pi_right r ON l.p = r.p;
SELECT l.id, r.id, l.p FROM pi_left l JOIN pi_right r ON l.p = r.p ORDER BY 1, 2;
RESET enable_hashjoin;
RESET enable_nestloop;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT p, count(*) FROM pi_left GROUP BY p;
SELECT p, count(*) FROM pi_left GROUP BY p ORDER BY p;
RESET enable_sort;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT DISTINCT p FROM pi_left;
SELECT DISTINCT p FROM pi_left ORDER BY p;
RESET enable_hashagg;
SELECT p FROM pi_left UNION SELECT p FROM pi_right ORDER BY p;
SELECT p FROM pi_left INTERSECT SELECT p FROM pi_right ORDER BY p;
-- a unique index knows {7,8} in either packing
CREATE UNIQUE INDEX pi_right_unique ON pi_right (p);
INSERT INTO pi_right VALUES (15, '{7,8}');

-- btree and hash indexes
CREATE TABLE pi_keyed (id int, p packed_int8);
INSERT INTO pi_keyed SELECT g, ARRAY[g % 50, g % 50, g]::int8[] FROM generate_series(1, 2000) g;
CREATE INDEX pi_keyed_btree ON pi_keyed (p);
CREATE INDEX pi_keyed_hash ON pi_keyed USING hash (p);
ANALYZE pi_keyed;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- the btree index: ranges and order (rows {49,49,g}: g = 49 and 99 are below {49,49,100})
EXPLAIN (COSTS OFF) SELECT id FROM pi_keyed WHERE p >= '{49}' AND p < '{49,49,100}';
SELECT id, p FROM pi_keyed WHERE p >= '{49}' AND p < '{49,49,100}';
EXPLAIN (COSTS OFF) SELECT p FROM pi_keyed ORDER BY p DESC LIMIT 3;
SELECT p FROM pi_keyed ORDER BY p DESC LIMIT 3;
-- the hash index: equality
DROP INDEX pi_keyed_btree;
EXPLAIN (COSTS OFF) SELECT id FROM pi_keyed WHERE p = '{7,7,1257}';
SELECT id FROM pi_keyed WHERE p = '{7,7,1257}';
RESET enable_bitmapscan;
RESET enable_seqscan;

-- GIN: realistic rows (20 to 200 keys of 0..100000), chosen by the planner
SELECT setseed(0.16);
CREATE TABLE pi_segments AS
SELECT g AS id,
       (SELECT array_agg(k ORDER BY k)
        FROM (SELECT floor(random() * 100001)::int AS k
              FROM generate_series(1, 20 + (g * 37) % 181)) s)::packed_int4 AS members
FROM generate_series(1, 5000) g;
CREATE INDEX pi_segments_members ON pi_segments USING gin (members);
ANALYZE pi_segments;
EXPLAIN (COSTS OFF) SELECT id FROM pi_segments WHERE members @> '{4242}';
EXPLAIN (COSTS OFF) SELECT id FROM pi_segments WHERE members && '{17,4242,99999}';
-- what the index answers is what a sequential scan answers
CREATE TABLE pi_gin_queries (op text, q packed_int4);
INSERT INTO pi_gin_queries
SELECT op, q FROM (VALUES ('@>'), ('&&'), ('<@'), ('=')) o(op),
    (VALUES ('{}'::packed_int4), ('{4242}'), ('{17,4242,99999}')) v(q)
UNION ALL SELECT '@>', (members::int4[])[1:2]::packed_int4 FROM pi_segments WHERE id = 99
UNION ALL SELECT '=', members FROM pi_segments WHERE id = 99
UNION ALL SELECT '<@', (members::int4[] || ARRAY[100001])::packed_int4 FROM pi_segments WHERE id = 99;
CREATE FUNCTION pi_gin_answer(op text, q packed_int4) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE r int[];
BEGIN
    EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM pi_segments WHERE members %s $1', op)
        INTO r USING q;
    RETURN r;
END $$;
SET enable_seqscan = off;
CREATE TEMP TABLE pi_by_index AS SELECT op, q, pi_gin_answer(op, q) AS ids FROM pi_gin_queries;
RESET enable_seqscan;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
SELECT i.op, cardinality(i.q) AS query_keys, cardinality(i.ids) AS rows,
       i.ids = pi_gin_answer(i.op, i.q) AS same_as_seqscan
FROM pi_by_index i ORDER BY 1, 2;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- GIN on small rows: empty rows and duplicates; counts are rechecked
CREATE TABLE pi_gin (id int, p packed_int8);
INSERT INTO pi_gin VALUES (1, '{}'), (2, '{5}'), (3, '{5,5}'), (4, '{5,5,5,9}'), (5, '{1,9}'),
    (6, '{-9223372036854775808,5,9223372036854775807}'), (7, '{}'), (8, '{9}');
CREATE INDEX pi_gin_p ON pi_gin USING gin (p);
INSERT INTO pi_gin VALUES (9, '{5,5}'), (10, '{}');   -- after the build (pending list)
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM pi_gin WHERE p @> '{5,5}';
EXPLAIN (COSTS OFF) SELECT id FROM pi_gin WHERE p <@ '{5,5}';
EXPLAIN (COSTS OFF) SELECT id FROM pi_gin WHERE p && '{5,5}';
EXPLAIN (COSTS OFF) SELECT id FROM pi_gin WHERE p = '{5,5}';
-- every answer by sequential scan (a CASE is no index condition) ...
SELECT q, op, array_agg(id ORDER BY id) AS ids
FROM (VALUES ('{5,5}'::packed_int8), ('{5}'), ('{}'), ('{5,5,5,9,9}'), ('{9223372036854775807}'),
             ('{-9223372036854775808,5,9223372036854775807}')) v(q),
     (VALUES ('@>'), ('<@'), ('&&'), ('=')) o(op),
     LATERAL (SELECT id FROM pi_gin
              WHERE CASE op WHEN '@>' THEN p @> q WHEN '<@' THEN p <@ q
                            WHEN '&&' THEN p && q ELSE p = q END) s
GROUP BY 1, 2 ORDER BY 1, 2;
-- ... and through the index, one operator at a time (each a Bitmap Index Scan)
SELECT array_agg(id ORDER BY id) AS "@> {5,5}" FROM pi_gin WHERE p @> '{5,5}';
SELECT array_agg(id ORDER BY id) AS "@> {5}" FROM pi_gin WHERE p @> '{5}';
SELECT array_agg(id ORDER BY id) AS "@> {}" FROM pi_gin WHERE p @> '{}';
SELECT array_agg(id ORDER BY id) AS "<@ {5,5}" FROM pi_gin WHERE p <@ '{5,5}';
SELECT array_agg(id ORDER BY id) AS "<@ {}" FROM pi_gin WHERE p <@ '{}';
SELECT array_agg(id ORDER BY id) AS "<@ {5,5,5,9,9}" FROM pi_gin WHERE p <@ '{5,5,5,9,9}';
SELECT array_agg(id ORDER BY id) AS "&& {5,5}" FROM pi_gin WHERE p && '{5,5}';
SELECT array_agg(id ORDER BY id) AS "&& {}" FROM pi_gin WHERE p && '{}';
SELECT array_agg(id ORDER BY id) AS "&& extremes" FROM pi_gin WHERE p && '{9223372036854775807}';
SELECT array_agg(id ORDER BY id) AS "= {5,5}" FROM pi_gin WHERE p = '{5,5}';
SELECT array_agg(id ORDER BY id) AS "= {}" FROM pi_gin WHERE p = '{}';
-- rows rechecked: {5} and {-9223372036854775808,5,9223372036854775807} have
-- the key 5 of {5,5}, but one copy too few
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM pi_gin WHERE p @> '{5,5}';
RESET enable_seqscan;

-- errors: bad packed input is the types' own error; no cross-type operators
SELECT '{2,1}'::packed_int4 = '{1}'::packed_int4;
SELECT packed_int4('\x00'::bytea) = '{1}'::packed_int4;
SELECT '{1}'::packed_int4 = '{1}'::packed_int8;
SELECT '{1}'::packed_int4 < '{1}'::int4[];

DROP FUNCTION pi_gin_answer(text, packed_int4);
DROP TABLE pi_order, pi_recoded, pi_left, pi_right, pi_keyed, pi_segments, pi_gin_queries, pi_gin;
