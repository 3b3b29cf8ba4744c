--
-- setops_similarity_batch: the counts, Jaccard and predicates per row as
-- window functions (array_X_count_batch, array_jaccard_batch,
-- array_overlaps_batch, array_contains_batch, array_contained_by_batch).
-- Row i's value must be the per-row function's on row i's arguments: the
-- checks count the rows where the two differ (wrong must be 0) next to the
-- rows compared, and a few rows are shown whole, with a plain-SQL
-- reference (unnest, copies numbered per key) beside them.
--
SET extra_float_digits = 0;

CREATE TABLE sim_rows (id int PRIMARY KEY, a int4[], b int4[], a8 int8[], b8 int8[]);
SELECT setseed(0.34);
INSERT INTO sim_rows
SELECT g, a, b, a::int8[], b::int8[]
FROM (SELECT g,
             ARRAY(SELECT floor(random() * 12)::int4 FROM generate_series(1, (g * 7) % 23) ORDER BY 1) AS a,
             ARRAY(SELECT floor(random() * 12)::int4 FROM generate_series(1, (g * 3) % 19) ORDER BY 1) AS b
      FROM generate_series(1, 200) g) s;
-- NULL rows, empty rows, duplicates, the types' extremes, one row much
-- larger than the rest, rows within each other
INSERT INTO sim_rows VALUES
    (201, NULL, '{1,2}', NULL, '{1,2}'),
    (202, '{1,2}', NULL, '{1,2}', NULL),
    (203, '{}', '{}', '{}', '{}'),
    (204, '{}', '{3,3,4}', '{}', '{3,3,4}'),
    (205, '{3,3,4}', '{}', '{3,3,4}', '{}'),
    (206, '{3,3,3,4}', '{3,3,4,4}', '{3,3,3,4}', '{3,3,4,4}'),
    (207, '{-2147483648,-2147483648,0,2147483647}', '{-2147483648,2147483647,2147483647}',
          '{-9223372036854775808,-9223372036854775808,0,9223372036854775807}',
          '{-9223372036854775808,9223372036854775807,9223372036854775807}'),
    (208, '{2147483647}', '{-2147483648}', '{9223372036854775807}', '{-9223372036854775808}'),
    (209, '{1,2,2}', '{1,2,2,2,5}', '{1,2,2}', '{1,2,2,2,5}'),
    (210, ARRAY(SELECT i / 3 FROM generate_series(0, 299999) i), '{0,0,0,7,99999,100000}',
          ARRAY(SELECT (i / 3)::int8 * 4294967296 FROM generate_series(0, 299999) i), '{0,0,0,30064771072}');

-- the reference: per row, the key-rank intersection, union and differences' sizes
CREATE FUNCTION sim_ref(a anyarray, b anyarray, OUT i int8, OUT u int8, OUT d int8, OUT e int8)
LANGUAGE sql STRICT AS $$
    WITH ra AS (SELECT k, row_number() OVER (PARTITION BY k) AS r FROM unnest(a) k),
         rb AS (SELECT k, row_number() OVER (PARTITION BY k) AS r FROM unnest(b) k),
         j AS (SELECT ra.k IS NOT NULL AS in_a, rb.k IS NOT NULL AS in_b
               FROM ra FULL JOIN rb ON ra.k = rb.k AND ra.r = rb.r)
    SELECT count(*) FILTER (WHERE in_a AND in_b), count(*),
           count(*) FILTER (WHERE in_a AND NOT in_b), count(*) FILTER (WHERE in_b AND NOT in_a)
    FROM j
$$;

-- every function, int4[] and int8[], b per row: against the per-row function
SELECT fn, count(*) AS rows, count(*) FILTER (WHERE NOT ok) AS wrong FROM (
    SELECT 'intersect_count4' AS fn, array_intersect_count_batch(a, b) OVER () IS NOT DISTINCT FROM array_intersect_count(a, b) AS ok FROM sim_rows
    UNION ALL SELECT 'union_count4', array_union_count_batch(a, b) OVER () IS NOT DISTINCT FROM array_union_count(a, b) FROM sim_rows
    UNION ALL SELECT 'difference_count4', array_difference_count_batch(a, b) OVER () IS NOT DISTINCT FROM array_difference_count(a, b) FROM sim_rows
    UNION ALL SELECT 'symdiff_count4', array_symdiff_count_batch(a, b) OVER () IS NOT DISTINCT FROM array_symdiff_count(a, b) FROM sim_rows
    UNION ALL SELECT 'jaccard4', array_jaccard_batch(a, b) OVER () IS NOT DISTINCT FROM array_jaccard(a, b) FROM sim_rows
    UNION ALL SELECT 'overlaps4', array_overlaps_batch(a, b) OVER () IS NOT DISTINCT FROM array_overlaps(a, b) FROM sim_rows
    UNION ALL SELECT 'contains4', array_contains_batch(a, b) OVER () IS NOT DISTINCT FROM array_contains(a, b) FROM sim_rows
    UNION ALL SELECT 'contained_by4', array_contained_by_batch(a, b) OVER () IS NOT DISTINCT FROM array_contained_by(a, b) FROM sim_rows
    UNION ALL SELECT 'intersect_count8', array_intersect_count_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_intersect_count(a8, b8) FROM sim_rows
    UNION ALL SELECT 'union_count8', array_union_count_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_union_count(a8, b8) FROM sim_rows
    UNION ALL SELECT 'difference_count8', array_difference_count_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_difference_count(a8, b8) FROM sim_rows
    UNION ALL SELECT 'symdiff_count8', array_symdiff_count_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_symdiff_count(a8, b8) FROM sim_rows
    UNION ALL SELECT 'jaccard8', array_jaccard_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_jaccard(a8, b8) FROM sim_rows
    UNION ALL SELECT 'overlaps8', array_overlaps_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_overlaps(a8, b8) FROM sim_rows
    UNION ALL SELECT 'contains8', array_contains_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_contains(a8, b8) FROM sim_rows
    UNION ALL SELECT 'contained_by8', array_contained_by_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_contained_by(a8, b8) FROM sim_rows
) s GROUP BY fn ORDER BY fn;

-- the packed forms (packed with packed, and with an array either way), a constant b
SELECT fn, count(*) AS rows, count(*) FILTER (WHERE NOT ok) AS wrong FROM (
    SELECT 'jaccard p4 p4' AS fn, array_jaccard_batch(a::packed_int4, b::packed_int4) OVER () IS NOT DISTINCT FROM array_jaccard(a::packed_int4, b::packed_int4) AS ok FROM sim_rows
    UNION ALL SELECT 'intersect_count p4 a4', array_intersect_count_batch(a::packed_int4, b) OVER () IS NOT DISTINCT FROM array_intersect_count(a::packed_int4, b) FROM sim_rows
    UNION ALL SELECT 'contains a4 p4', array_contains_batch(a, b::packed_int4) OVER () IS NOT DISTINCT FROM array_contains(a, b::packed_int4) FROM sim_rows
    UNION ALL SELECT 'overlaps p8 p8', array_overlaps_batch(a8::packed_int8, b8::packed_int8) OVER () IS NOT DISTINCT FROM array_overlaps(a8::packed_int8, b8::packed_int8) FROM sim_rows
    UNION ALL SELECT 'symdiff_count p8 a8', array_symdiff_count_batch(a8::packed_int8, b8) OVER () IS NOT DISTINCT FROM array_symdiff_count(a8::packed_int8, b8) FROM sim_rows
    UNION ALL SELECT 'contained_by a8 p8', array_contained_by_batch(a8, b8::packed_int8) OVER () IS NOT DISTINCT FROM array_contained_by(a8, b8::packed_int8) FROM sim_rows
    UNION ALL SELECT 'const jaccard4', array_jaccard_batch(a, '{0,1,1,5,7,7,7,11,2147483647}'::int4[]) OVER () IS NOT DISTINCT FROM array_jaccard(a, '{0,1,1,5,7,7,7,11,2147483647}'::int4[]) FROM sim_rows
    UNION ALL SELECT 'const contained_by8', array_contained_by_batch(a8, '{0,1,1,2,2,3,4,5,6,7,8,9,10,11}'::int8[]) OVER () IS NOT DISTINCT FROM array_contained_by(a8, '{0,1,1,2,2,3,4,5,6,7,8,9,10,11}'::int8[]) FROM sim_rows
    UNION ALL SELECT 'const contains packed', array_contains_batch(a::packed_int4, '{3,3}'::packed_int4) OVER () IS NOT DISTINCT FROM array_contains(a::packed_int4, '{3,3}'::packed_int4) FROM sim_rows
) s GROUP BY fn ORDER BY fn;

-- against the plain-SQL reference
SELECT count(*) AS rows,
       count(*) FILTER (WHERE ic IS DISTINCT FROM r.i OR uc IS DISTINCT FROM r.u OR dc IS DISTINCT FROM r.d
                          OR sc IS DISTINCT FROM r.d + r.e
                          OR j IS DISTINCT FROM CASE WHEN r.u = 0 THEN 1 ELSE r.i::float8 / r.u END
                          OR o IS DISTINCT FROM (r.i > 0) OR c IS DISTINCT FROM (r.e = 0)
                          OR cb IS DISTINCT FROM (r.d = 0)) AS wrong
FROM (SELECT a, b, array_intersect_count_batch(a, b) OVER w AS ic, array_union_count_batch(a, b) OVER w AS uc,
             array_difference_count_batch(a, b) OVER w AS dc, array_symdiff_count_batch(a, b) OVER w AS sc,
             array_jaccard_batch(a, b) OVER w AS j, array_overlaps_batch(a, b) OVER w AS o,
             array_contains_batch(a, b) OVER w AS c, array_contained_by_batch(a, b) OVER w AS cb
      FROM sim_rows WHERE id < 210 WINDOW w AS (ORDER BY id)) t,
     LATERAL (SELECT * FROM sim_ref(t.a, t.b)) r;

-- rows shown whole: NULL in, NULL out; empty/empty: Jaccard 1, contained both ways
SELECT id, array_intersect_count_batch(a, b) OVER w AS ic, array_union_count_batch(a8, b8) OVER w AS uc8,
       array_difference_count_batch(a, b) OVER w AS dc, array_symdiff_count_batch(a8::packed_int8, b8) OVER w AS sc,
       array_jaccard_batch(a, b) OVER w AS j, array_overlaps_batch(a8, b8) OVER w AS o,
       array_contains_batch(a::packed_int4, b::packed_int4) OVER w AS c,
       array_contained_by_batch(a, b) OVER w AS cb
FROM sim_rows WHERE id > 200 WINDOW w AS (ORDER BY id) ORDER BY id;

-- a NULL query: every row NULL
SELECT count(*) AS rows, count(x) AS not_null
FROM (SELECT array_jaccard_batch(a, NULL::int4[]) OVER () AS x FROM sim_rows) t;
SELECT count(*) AS rows, count(x) AS not_null
FROM (SELECT array_contains_batch(a8::packed_int8, NULL::packed_int8) OVER () AS x FROM sim_rows) t;

-- b the same for the first rows, then different (the batch stops sharing it)
SELECT count(*) AS rows, count(*) FILTER (WHERE x IS DISTINCT FROM array_jaccard(a, c)) AS wrong
FROM (SELECT a, c, array_jaccard_batch(a, c) OVER (ORDER BY id) AS x
      FROM (SELECT id, a, CASE WHEN id < 150 THEN '{1,2,2,3}'::int4[] ELSE b END AS c FROM sim_rows) t) u;

-- several partitions, a frame (ignored)
SELECT count(*) AS rows, count(*) FILTER (WHERE x IS DISTINCT FROM array_symdiff_count(a8, b8)) AS wrong
FROM (SELECT a8, b8, array_symdiff_count_batch(a8, b8) OVER (PARTITION BY id % 7 ORDER BY id DESC
                                                             ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS x
      FROM sim_rows) t;

-- top 5 by Jaccard against a constant: the batch's order is the per-row one's
SELECT id, array_jaccard_batch(a, '{1,2,3,3,4,5,6}'::int4[]) OVER () AS j
FROM sim_rows ORDER BY j DESC NULLS LAST, id LIMIT 5;
SELECT id, array_jaccard(a, '{1,2,3,3,4,5,6}'::int4[]) AS j
FROM sim_rows ORDER BY j DESC NULLS LAST, id LIMIT 5;

-- errors: the per-row function's, naming the batch function; in a later row of the chunk
SELECT array_intersect_count_batch(a, b) OVER (ORDER BY id)
FROM (VALUES (1, '{1,2}'::int4[], '{2}'::int4[]), (2, '{1,3,2}', '{7}')) v(id, a, b);
SELECT array_intersect_count('{1,3,2}'::int4[], '{7}'::int4[]);
SELECT array_jaccard_batch(a, b) OVER (ORDER BY id)
FROM (VALUES (1, '{1,2}'::int8[], '{2}'::int8[]), (2, '{1}', '{9,8}')) v(id, a, b);
SELECT array_jaccard('{1}'::int8[], '{9,8}'::int8[]);
-- is contained by checks b first, as array_contained_by does
SELECT array_contained_by_batch(a, b) OVER (ORDER BY id)
FROM (VALUES (1, '{3,2}'::int4[], '{5,4}'::int4[])) v(id, a, b);
SELECT array_contained_by('{3,2}'::int4[], '{5,4}'::int4[]);
SELECT array_contains_batch(a, b) OVER (ORDER BY id)
FROM (VALUES (1, '{3,2}'::int4[], '{5,4}'::int4[])) v(id, a, b);
-- overlaps: "no" only after both were found in order, "yes" in any order
SELECT array_overlaps_batch(a, b) OVER (ORDER BY id)
FROM (VALUES (1, '{1,3,2}'::int4[], '{7,8}'::int4[])) v(id, a, b);
SELECT id, array_overlaps_batch(a, b) OVER (ORDER BY id)
FROM (VALUES (1, '{1,3,2}'::int4[], '{1}'::int4[]), (2, '{5}', '{5}'), (3, '{5}', '{6}')) v(id, a, b);
SELECT array_overlaps('{1,3,2}'::int4[], '{1}'::int4[]);
-- a constant B is read once for the chunk: with the first row answered
-- while read (overlaps over an order break; a large stored row, so that
-- what it reads reuses memory) B must still be there for the rows after
-- it, the sorted ones and those out of order (a key in both answers true)
CREATE TEMP TABLE ov_rows (id int, a int4[]);
ALTER TABLE ov_rows ALTER a SET STORAGE EXTERNAL;
INSERT INTO ov_rows VALUES
  (1, '{1,5}'::int4[] || array(SELECT generate_series(100, 10000)) || 3 || array(SELECT generate_series(20000, 25000))),
  (2, array(SELECT generate_series(1, 9000))), (3, '{5,2,1}'), (4, '{6,2,1}'), (5, '{7,8}'),
  (6, array(SELECT generate_series(2, 9000, 2)));
SELECT id, array_overlaps(a, '{5,6}'::int4[]) AS per_row,
       array_overlaps_batch(a, '{5,6}'::int4[]) OVER (ORDER BY id) AS batch
FROM ov_rows ORDER BY id;
DROP TABLE ov_rows;
-- NULL elements and several dimensions, packed with an unsorted array
SELECT array_union_count_batch(a, b) OVER () FROM (VALUES ('{1,NULL}'::int4[], '{1}'::int4[])) v(a, b);
SELECT array_union_count('{1,NULL}'::int4[], '{1}'::int4[]);
SELECT array_difference_count_batch(a, b) OVER () FROM (VALUES ('{{1,2},{3,4}}'::int4[], '{1}'::int4[])) v(a, b);
SELECT array_symdiff_count_batch(a::packed_int4, b) OVER () FROM (VALUES ('{1}'::int4[], '{3,1}'::int4[])) v(a, b);
SELECT array_symdiff_count('{1}'::int4[]::packed_int4, '{3,1}'::int4[]);

-- properties of the batch functions: every form, immutable window functions
SELECT p.proname, count(*) AS forms, bool_and(p.prokind = 'w') AS window, bool_and(p.provolatile = 'i') AS immutable,
       bool_and(p.proparallel = 's') AS parallel_safe
FROM pg_proc p
WHERE p.proname IN ('array_intersect_count_batch', 'array_union_count_batch', 'array_difference_count_batch',
                    'array_symdiff_count_batch', 'array_jaccard_batch', 'array_overlaps_batch',
                    'array_contains_batch', 'array_contained_by_batch')
GROUP BY 1 ORDER BY 1;

DROP FUNCTION sim_ref(anyarray, anyarray);
DROP TABLE sim_rows;
