-- 10_agg_batches.sql: the aggregates' segmented transition state (all rows'
-- keys appended, reduced by the final function in log2(rows) rounds of
-- batches) against references in plain SQL that use no setops function:
-- per key the minimum, maximum and sum of its copies over the non-NULL
-- rows (the intersection keeps the fewest, the union the most, the merge
-- all; a row without the key holds 0 copies), for
--   * groups of many rows (3000 small rows with duplicates, NULL and empty
--     rows, one very large row among small ones, extremes of int4 and
--     int8, and 1500 groups of a few rows each), counted from the rows;
--   * groups too large for counting the rows: 12 rows of about a million
--     keys, built from a table of copies per row and key, from which the
--     reference follows.  These groups hold more than AGG_REDUCE_BYTES
--     (32 MB, exec/aggregate.c) of keys, so an intersection's state is
--     reduced in place while rows still come, and the final reduction
--     combines that run with the rows added after it (unions and merges
--     wait until 512 MB: the same code path).
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql

SELECT setseed(0.1010);

CREATE TEMP TABLE rows10 (
    g int NOT NULL,
    ord int NOT NULL,
    arr int8[],
    PRIMARY KEY (g, ord)
);
CREATE TEMP TABLE groups10 (g int PRIMARY KEY, label text NOT NULL);

-- 1: 3000 small rows with duplicates, NULL and empty rows
INSERT INTO groups10 VALUES (1, '3000 small rows, NULL and empty rows mixed in');
INSERT INTO rows10
SELECT 1, o, CASE WHEN x < 0.04 THEN NULL WHEN x < 0.07 THEN '{}'
                  ELSE pg_temp.rand_sorted(floor(random() * 16)::int, 0, 30) END
FROM (SELECT o, random() AS x FROM generate_series(1, 3000) o) t ORDER BY o;

-- 2: 3000 rows with a common part and one very large row among them
INSERT INTO groups10 VALUES (2, '3000 rows with a common part, one of 200000 keys');
INSERT INTO rows10
SELECT 2, o, CASE WHEN o = 1234 THEN ARRAY(SELECT k FROM unnest(base || pg_temp.rand_sorted(200000, 0, 4999)) k ORDER BY k)
                  WHEN o % 97 = 0 THEN NULL
                  ELSE ARRAY(SELECT k FROM unnest(base || pg_temp.rand_sorted(floor(random() * 12)::int, 0, 60)) k ORDER BY k) END
FROM (SELECT pg_temp.rand_sorted(8, 0, 10) AS base) b, generate_series(1, 3000) o ORDER BY o;

-- 3: one empty row among 3000: the intersection is empty
INSERT INTO groups10 VALUES (3, '3000 rows, one empty');
INSERT INTO rows10
SELECT 3, o, CASE WHEN o = 1500 THEN '{}' ELSE pg_temp.rand_sorted(10, 0, 3) END
FROM generate_series(1, 3000) o ORDER BY o;

-- 4, 5: extremes
INSERT INTO groups10 VALUES (4, '2000 rows of int4 extremes');
INSERT INTO rows10 SELECT 4, o, pg_temp.rand_extreme(floor(random() * 10)::int, 32) FROM generate_series(1, 2000) o ORDER BY o;
INSERT INTO groups10 VALUES (5, '2000 rows of int8 extremes');
INSERT INTO rows10 SELECT 5, o, pg_temp.rand_extreme(floor(random() * 10)::int, 64) FROM generate_series(1, 2000) o ORDER BY o;

-- 6..1505: many groups of 1 to 6 rows (GROUP BY with many states)
INSERT INTO groups10 SELECT g, 'many groups' FROM generate_series(6, 1505) g;
INSERT INTO rows10
SELECT g, o, CASE WHEN random() < 0.05 THEN NULL ELSE pg_temp.rand_sorted(floor(random() * 6)::int, 0, 5) END
FROM generate_series(6, 1505) g, generate_series(1, 1 + g % 6) o ORDER BY g, o;

-- The count reference.
CREATE TEMP TABLE expect10 AS
WITH nn AS (SELECT g, ord, arr FROM rows10 WHERE arr IS NOT NULL),
nrows AS (SELECT g, count(*) AS n FROM nn GROUP BY g),
cnt AS (SELECT g, ord, k, count(*) AS c FROM nn, unnest(arr) k GROUP BY g, ord, k),
per AS (SELECT g, k,
               CASE WHEN count(*) = max(n) THEN min(c) ELSE 0 END AS mn,  -- 0 where a row lacks k
               max(c) AS mx, sum(c) AS sm
        FROM cnt JOIN nrows USING (g) GROUP BY g, k),
arrs AS (SELECT g,
                array_agg(k ORDER BY k) FILTER (WHERE i <= mn) AS i,
                array_agg(k ORDER BY k) FILTER (WHERE i <= mx) AS u,
                array_agg(k ORDER BY k) AS m
         FROM per, generate_series(1, sm) i GROUP BY g)
SELECT gr.g, gr.label,
       pg_temp.mutated(CASE WHEN nr.n IS NOT NULL THEN coalesce(a.i, '{}') END) AS i,
       pg_temp.mutated(CASE WHEN nr.n IS NOT NULL THEN coalesce(a.u, '{}') END) AS u,
       pg_temp.mutated(CASE WHEN nr.n IS NOT NULL THEN coalesce(a.m, '{}') END) AS m,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true)
        FROM rows10 r, unnest(r.arr) k WHERE r.g = gr.g) AS fits4
FROM groups10 gr LEFT JOIN nrows nr USING (g) LEFT JOIN arrs a USING (g);

CREATE TEMP TABLE got10_8 AS
SELECT g, array_intersect_agg(arr) AS i, array_union_agg(arr) AS u, array_merge_agg(arr) AS m
FROM rows10 GROUP BY g;
CREATE TEMP TABLE got10_4 AS
SELECT g, array_intersect_agg(arr::int4[]) AS i, array_union_agg(arr::int4[]) AS u,
       array_merge_agg(arr::int4[]) AS m
FROM rows10 WHERE g <> 5 GROUP BY g;

-- Large groups for the in-place reduction: 12 rows of about a million keys
-- (8 MB as int8, 4 MB as int4), so that a state passes 32 MB after a few
-- rows.  Each row holds each key of [0, 200000) 0 to 10 times (5 on
-- average), drawn into big_copies first: the rows are built from those
-- counts, and so is the reference, in plain SQL (no setops function): per
-- key the intersection keeps the fewest copies of any row, the union the
-- most, the merge their sum.
CREATE TEMP TABLE big_copies AS
SELECT o AS ord, k::int8 AS k, floor(random() * 11)::int AS c
FROM generate_series(1, 12) o, generate_series(0, 199999) k;
CREATE INDEX ON big_copies (ord);
ANALYZE big_copies;
CREATE TEMP TABLE big10 (g int NOT NULL, ord int NOT NULL, arr int8[], PRIMARY KEY (g, ord));
INSERT INTO big10
SELECT 1, o, (SELECT array_agg(x.k ORDER BY x.k) FROM big_copies x, generate_series(1, x.c) WHERE x.ord = o)
FROM generate_series(1, 12) o;
-- the same with a NULL row and an empty row: the intersection is empty
INSERT INTO big10 SELECT 2, ord, CASE ord WHEN 3 THEN NULL WHEN 9 THEN '{}' ELSE arr END FROM big10 WHERE g = 1;

CREATE TEMP TABLE big_per AS
SELECT k, min(c) AS mn, max(c) AS mx, sum(c)::int AS sm,
       max(c) FILTER (WHERE ord NOT IN (3, 9)) AS mx2    -- group 2's union: row 3 NULL, row 9 empty
FROM big_copies GROUP BY k;
CREATE TEMP TABLE bigref AS
SELECT pg_temp.mutated((SELECT array_agg(k ORDER BY k) FROM big_per, generate_series(1, mn))) AS i,
       pg_temp.mutated((SELECT array_agg(k ORDER BY k) FROM big_per, generate_series(1, mx))) AS u,
       pg_temp.mutated((SELECT array_agg(k ORDER BY k) FROM big_per, generate_series(1, sm))) AS m,
       pg_temp.mutated((SELECT array_agg(k ORDER BY k) FROM big_per, generate_series(1, mx2))) AS u2;

SELECT plan(7 + 3 * 1505 + 3 * 1504 + 4 + 6 + 5 + 3 + 2);

SELECT is((SELECT count(*) FROM expect10), 1505::bigint, 'number of groups');
SELECT is((SELECT count(*) FROM expect10 WHERE fits4), 1504::bigint, 'number of int4 groups');
SELECT ok((SELECT count(*) = 3000 AND count(*) FILTER (WHERE arr IS NULL) > 0 AND count(*) FILTER (WHERE arr = '{}') > 0
           FROM rows10 WHERE g = 1), 'group 1: 3000 rows, NULL and empty ones among them');
SELECT ok((SELECT cardinality(i) >= 8 FROM expect10 WHERE g = 2), 'group 2 has a non-empty intersection');
SELECT ok((SELECT max(cardinality(arr)) > 200000 AND count(*) = 3000 FROM rows10 WHERE g = 2),
          'group 2 holds a row of more than 200000 keys');
SELECT ok((SELECT i = '{}' AND cardinality(u) > 0 FROM expect10 WHERE g = 3), 'group 3: empty intersection, non-empty union');
SELECT ok((SELECT count(*) FILTER (WHERE i IS NULL) > 0 AND count(*) FILTER (WHERE cardinality(m) > 0) > 1000
           FROM expect10 WHERE g >= 6), 'the many groups include all-NULL ones and non-empty ones');

-- every group, every aggregate, both key types
SELECT pg_temp.arr_is(x.got, x.want, format('int8 %s: group %s, %s', x.agg, e.g, e.label))
FROM expect10 e JOIN got10_8 r USING (g),
     LATERAL (VALUES ('array_intersect_agg', r.i, e.i), ('array_union_agg', r.u, e.u),
                     ('array_merge_agg', r.m, e.m)) AS x(agg, got, want)
ORDER BY e.g, x.agg;
SELECT pg_temp.arr_is(x.got, x.want::int4[], format('int4 %s: group %s, %s', x.agg, e.g, e.label))
FROM expect10 e JOIN got10_4 r USING (g),
     LATERAL (VALUES ('array_intersect_agg', r.i, e.i), ('array_union_agg', r.u, e.u),
                     ('array_merge_agg', r.m, e.m)) AS x(agg, got, want)
WHERE e.fits4
ORDER BY e.g, x.agg;

-- packed rows give the same answers, packed
SELECT pg_temp.arr_is(array_unpack(array_union_agg(array_pack(arr))), (SELECT u FROM expect10 WHERE g = 1),
                      'packed_int8 array_union_agg: group 1') FROM rows10 WHERE g = 1;
SELECT pg_temp.arr_is(array_unpack(array_intersect_agg(array_pack(arr))), (SELECT i FROM expect10 WHERE g = 2),
                      'packed_int8 array_intersect_agg: group 2') FROM rows10 WHERE g = 2;
SELECT pg_temp.arr_is(array_unpack(array_merge_agg(array_pack(arr::int4[]))), (SELECT m::int4[] FROM expect10 WHERE g = 2),
                      'packed_int4 array_merge_agg: group 2') FROM rows10 WHERE g = 2;
SELECT pg_temp.arr_is(array_unpack(array_intersect_agg(array_pack(arr::int4[]))), (SELECT i::int4[] FROM expect10 WHERE g = 3),
                      'packed_int4 array_intersect_agg: group 3 (an empty row)') FROM rows10 WHERE g = 3;

-- the large groups, against their reference
SELECT ok((SELECT sum(cardinality(arr)) * 4 > 32 * 1024 * 1024 FROM big10 WHERE g = 1),
          'the large group holds more than 32 MB of keys even as int4');
SELECT ok((SELECT cardinality(i) > 0 AND cardinality(u) > cardinality(i) FROM bigref),
          'the large group has a non-empty intersection, and a larger union');
SELECT pg_temp.arr_is(array_intersect_agg(arr), (SELECT i FROM bigref), 'int8 array_intersect_agg: large group')
FROM big10 WHERE g = 1;
SELECT pg_temp.arr_is(array_union_agg(arr ORDER BY ord DESC), (SELECT u FROM bigref),
                      'int8 array_union_agg: large group, rows in reverse order')
FROM big10 WHERE g = 1;
SELECT pg_temp.arr_is(array_merge_agg(arr::int4[])::int8[], (SELECT m FROM bigref), 'int4 array_merge_agg: large group')
FROM big10 WHERE g = 1;
SELECT pg_temp.arr_is(array_intersect_agg(arr::int4[] ORDER BY md5(ord::text))::int8[], (SELECT i FROM bigref),
                      'int4 array_intersect_agg: large group, rows shuffled')
FROM big10 WHERE g = 1;

SELECT pg_temp.arr_is(array_union_agg(arr::int4[])::int8[], (SELECT u FROM bigref), 'int4 array_union_agg: large group')
FROM big10 WHERE g = 1;
SELECT pg_temp.arr_is(array_merge_agg(arr ORDER BY ord DESC), (SELECT m FROM bigref),
                      'int8 array_merge_agg: large group, rows in reverse order')
FROM big10 WHERE g = 1;
SELECT pg_temp.arr_is(array_union_agg(arr), (SELECT u2 FROM bigref), 'int8 array_union_agg: large group with a NULL and an empty row')
FROM big10 WHERE g = 2;
SELECT is(array_intersect_agg(arr), '{}', 'int8 array_intersect_agg: large group with an empty row is empty')
FROM big10 WHERE g = 2;
SELECT is(array_intersect_agg(arr::int4[] ORDER BY ord DESC), '{}',
          'int4 array_intersect_agg: large group with an empty row, reversed, is empty')
FROM big10 WHERE g = 2;

-- packed rows of the large group
SELECT pg_temp.arr_is(array_unpack(array_union_agg(array_pack(arr))), (SELECT u FROM bigref),
                      'packed_int8 array_union_agg: large group') FROM big10 WHERE g = 1;
SELECT pg_temp.arr_is(array_unpack(array_intersect_agg(array_pack(arr::int4[])))::int8[], (SELECT i FROM bigref),
                      'packed_int4 array_intersect_agg: large group') FROM big10 WHERE g = 1;
SELECT pg_temp.arr_is(array_unpack(array_merge_agg(array_pack(arr))), (SELECT m FROM bigref),
                      'packed_int8 array_merge_agg: large group') FROM big10 WHERE g = 1;

-- the same state finalized twice, and rows after a reduction still checked
SELECT ok(x = y AND x = (SELECT u FROM bigref), 'array_union_agg twice in one query: large group')
FROM (SELECT array_union_agg(arr) AS x, array_union_agg(arr) AS y FROM big10 WHERE g = 1) t;
SELECT throws_like(
    $$SELECT array_intersect_agg(arr ORDER BY o) FROM (SELECT ord AS o, arr FROM big10 WHERE g = 1
                                                       UNION ALL SELECT 13, '{5,4}') t$$,
    '%array_intersect_agg: argument 1 is not sorted ascending at position 2%',
    'array_intersect_agg rejects an unsorted row after a large state was reduced');

SELECT * FROM finish();
ROLLBACK;
