--
-- setops_batch: array_X_batch(...) OVER (...), the four operations per row
-- as window functions.  Row i's result must be exactly the plain
-- function's on row i's arguments: every check below counts the rows where
-- the two differ (wrong must be 0) next to the rows compared, so a wrong
-- answer shows as a count and a missing row as a smaller total.
--
SET extra_float_digits = 0;

CREATE TABLE batch_rows (id int PRIMARY KEY, grp int, a int4[], b int4[], a8 int8[], b8 int8[]);

-- ordinary rows: sorted, with duplicates (keys 0..19), sizes 0..40
SELECT setseed(0.42);
INSERT INTO batch_rows
SELECT g, g % 5, a, b, a::int8[], b::int8[]
FROM (SELECT g,
             ARRAY(SELECT floor(random() * 20)::int4 FROM generate_series(1, (g * 7) % 41) ORDER BY 1) AS a,
             ARRAY(SELECT floor(random() * 20)::int4 FROM generate_series(1, (g * 3) % 37) ORDER BY 1) AS b
      FROM generate_series(1, 200) g) s;
-- NULL rows, empty arrays, long duplicate runs, the types' extremes
INSERT INTO batch_rows VALUES
    (201, 1, NULL, '{1,2}', NULL, '{1,2}'),
    (202, 2, '{1,2}', NULL, '{1,2}', NULL),
    (203, 3, NULL, NULL, NULL, NULL),
    (204, 4, '{}', '{}', '{}', '{}'),
    (205, 0, '{}', '{3,3,4}', '{}', '{3,3,4}'),
    (206, 1, '{3,3,4}', '{}', '{3,3,4}', '{}'),
    (207, 2, array_fill(7, ARRAY[300]), array_fill(7, ARRAY[120]) || '{8,8}'::int4[],
             array_fill(7::int8, ARRAY[300]), array_fill(7::int8, ARRAY[120]) || '{8,8}'::int8[]),
    (208, 3, '{-2147483648,-2147483648,0,2147483647}', '{-2147483648,2147483647,2147483647}',
             '{-9223372036854775808,-9223372036854775808,0,9223372036854775807}',
             '{-9223372036854775808,-2147483648,9223372036854775807,9223372036854775807}'),
    (209, 4, '{2147483647}', '{-2147483648}', '{9223372036854775807}', '{-9223372036854775808}');

-- per-row B, one partition: every operation, both key types
SELECT op, count(*) AS rows, count(*) FILTER (WHERE NOT ok) AS wrong FROM (
    SELECT 'intersect4' AS op, array_intersect_batch(a, b) OVER () IS NOT DISTINCT FROM array_intersect_gpu(a, b) AS ok FROM batch_rows
    UNION ALL SELECT 'union4', array_union_batch(a, b) OVER () IS NOT DISTINCT FROM array_union_gpu(a, b) FROM batch_rows
    UNION ALL SELECT 'difference4', array_difference_batch(a, b) OVER () IS NOT DISTINCT FROM array_difference_gpu(a, b) FROM batch_rows
    UNION ALL SELECT 'symdiff4', array_symdiff_batch(a, b) OVER () IS NOT DISTINCT FROM array_symdiff_gpu(a, b) FROM batch_rows
    UNION ALL SELECT 'intersect8', array_intersect_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_intersect_gpu(a8, b8) FROM batch_rows
    UNION ALL SELECT 'union8', array_union_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_union_gpu(a8, b8) FROM batch_rows
    UNION ALL SELECT 'difference8', array_difference_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_difference_gpu(a8, b8) FROM batch_rows
    UNION ALL SELECT 'symdiff8', array_symdiff_batch(a8, b8) OVER () IS NOT DISTINCT FROM array_symdiff_gpu(a8, b8) FROM batch_rows
) s GROUP BY op ORDER BY op;

-- NULL in, NULL out (STRICT as the plain functions); empty gives '{}'
SELECT id, array_intersect_batch(a, b) OVER (ORDER BY id) AS i,
       array_union_batch(a8, b8) OVER (ORDER BY id) AS u
FROM batch_rows WHERE id BETWEEN 201 AND 209 AND id <> 207 ORDER BY id;

-- one B shared by every row: a constant, and a column equal in every row
SELECT op, count(*) AS rows, count(*) FILTER (WHERE NOT ok) AS wrong FROM (
    SELECT 'const intersect4' AS op, array_intersect_batch(a, '{0,1,1,5,7,7,7,19,2147483647}'::int4[]) OVER ()
           IS NOT DISTINCT FROM array_intersect_gpu(a, '{0,1,1,5,7,7,7,19,2147483647}'::int4[]) AS ok FROM batch_rows
    UNION ALL SELECT 'const union4', array_union_batch(a, '{0,1,1,5,7,7,7,19}'::int4[]) OVER ()
           IS NOT DISTINCT FROM array_union_gpu(a, '{0,1,1,5,7,7,7,19}'::int4[]) FROM batch_rows
    UNION ALL SELECT 'const difference8', array_difference_batch(a8, '{-9223372036854775808,3,3,4}'::int8[]) OVER ()
           IS NOT DISTINCT FROM array_difference_gpu(a8, '{-9223372036854775808,3,3,4}'::int8[]) FROM batch_rows
    UNION ALL SELECT 'const symdiff8', array_symdiff_batch(a8, '{3,3,4,9223372036854775807}'::int8[]) OVER ()
           IS NOT DISTINCT FROM array_symdiff_gpu(a8, '{3,3,4,9223372036854775807}'::int8[]) FROM batch_rows
    UNION ALL SELECT 'const empty', array_symdiff_batch(a, '{}'::int4[]) OVER ()
           IS NOT DISTINCT FROM array_symdiff_gpu(a, '{}'::int4[]) FROM batch_rows
    UNION ALL SELECT 'const null', array_union_batch(a, NULL::int4[]) OVER () IS NULL FROM batch_rows
    UNION ALL SELECT 'column, same in every row', array_union_batch(a, c) OVER ()
           IS NOT DISTINCT FROM array_union_gpu(a, c) FROM (SELECT a, '{2,2,3}'::int4[] || (11 + id / 1000) AS c FROM batch_rows) t
) s GROUP BY op ORDER BY op;

-- B the same for the first rows, then different (the batch stops sharing it)
SELECT count(*) AS rows, count(*) FILTER (WHERE x IS DISTINCT FROM array_symdiff_gpu(a, c)) AS wrong
FROM (SELECT a, c, array_symdiff_batch(a, c) OVER (ORDER BY id) AS x
      FROM (SELECT id, a, CASE WHEN id < 150 THEN '{1,2,2,3}'::int4[] ELSE b END AS c
            FROM batch_rows) t) u;

-- several partitions, ORDER BY in the window (ascending and descending)
SELECT grp, count(*) AS rows,
       count(*) FILTER (WHERE i IS DISTINCT FROM array_intersect_gpu(a, b)) AS wrong_i,
       count(*) FILTER (WHERE d IS DISTINCT FROM array_difference_gpu(a8, b8)) AS wrong_d
FROM (SELECT grp, a, b, a8, b8,
             array_intersect_batch(a, b) OVER (PARTITION BY grp ORDER BY id DESC) AS i,
             array_difference_batch(a8, b8) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS d
      FROM batch_rows) t
GROUP BY grp ORDER BY grp;

-- a partition per row
SELECT count(*) AS rows, count(*) FILTER (WHERE x IS DISTINCT FROM array_union_gpu(a, b)) AS wrong
FROM (SELECT a, b, array_union_batch(a, b) OVER (PARTITION BY id) AS x FROM batch_rows) t;

-- pairs: values are positions as float8 (a's 0.., b's 1000..), w
-- another set of values for the constant keys
CREATE TABLE pv AS
SELECT id, a, a8, b, b8,
       ARRAY(SELECT generate_series(0, cardinality(a) - 1))::float8[] AS av,
       ARRAY(SELECT generate_series(1000, 999 + cardinality(b)))::float8[] AS bv,
       ARRAY(SELECT generate_series(0, cardinality(a8) - 1))::float8[] AS av8,
       ARRAY(SELECT generate_series(1000, 999 + cardinality(b8)))::float8[] AS bv8,
       ARRAY[id, id + 0.5, id + 0.25, -id]::float8[] AS w
FROM batch_rows WHERE a IS NOT NULL AND b IS NOT NULL;
INSERT INTO pv VALUES (500, NULL, NULL, '{1}', '{1}', '{}', '{1}', '{}', '{1}', '{1,2,3,4}');

-- pairs: (keys, vals) records equal to the plain function's, every
-- operation, values of another type than the keys
SELECT op, count(*) AS rows, count(*) FILTER (WHERE NOT ok) AS wrong FROM (
    SELECT 'intersect4' AS op, array_intersect_batch(a, av, b, bv) OVER ()
           IS NOT DISTINCT FROM array_intersect_gpu(a, av, b, bv) AS ok FROM pv
    UNION ALL SELECT 'union4', array_union_batch(a, av, b, bv) OVER ()
           IS NOT DISTINCT FROM array_union_gpu(a, av, b, bv) FROM pv
    UNION ALL SELECT 'difference8', array_difference_batch(a8, av8, b8, bv8) OVER ()
           IS NOT DISTINCT FROM array_difference_gpu(a8, av8, b8, bv8) FROM pv
    UNION ALL SELECT 'symdiff8', array_symdiff_batch(a8, av8, b8, bv8) OVER ()
           IS NOT DISTINCT FROM array_symdiff_gpu(a8, av8, b8, bv8) FROM pv
    UNION ALL SELECT 'union4 const b', array_union_batch(a, av, '{1,1,5,19}'::int4[], '{-1,-2,-5,-19}'::float8[]) OVER ()
           IS NOT DISTINCT FROM array_union_gpu(a, av, '{1,1,5,19}'::int4[], '{-1,-2,-5,-19}'::float8[]) FROM pv
    UNION ALL SELECT 'symdiff4 b keys shared, values not', array_symdiff_batch(a, av, '{1,1,5,19}'::int4[], w) OVER (ORDER BY id)
           IS NOT DISTINCT FROM array_symdiff_gpu(a, av, '{1,1,5,19}'::int4[], w) FROM pv
) s GROUP BY op ORDER BY op;


-- a row's whole record (field access on a window function's record is
-- not possible in PostgreSQL: the parser cannot see its row type)
SELECT id, array_symdiff_batch(a, av, b, bv) OVER (ORDER BY id)
FROM (VALUES (1, '{1,2,2,5}'::int4[], '{0,1,2,3}'::int4[], '{2,2,2,3}'::int4[], '{4,5,6,7}'::int4[]),
             (2, NULL, '{}', '{}', '{}'),
             (3, '{}', '{}', '{1}', '{9}')) v(id, a, av, b, bv);

-- errors: the batch function's name and the argument, as the plain ones
SELECT array_intersect_batch(a, '{1,2}'::int4[]) OVER (ORDER BY id)
FROM (VALUES (1, '{1,2}'::int4[]), (2, NULL), (3, '{1,5,3}')) v(id, a);
SELECT array_union_batch(a, b) OVER (ORDER BY id)
FROM (VALUES (1, '{1,2}'::int8[], '{1}'::int8[]), (2, '{1}', '{4,2}')) v(id, a, b);
SELECT array_difference_batch(a, '{9,1}'::int4[]) OVER () FROM (VALUES ('{1}'::int4[])) v(a);
SELECT array_symdiff_batch(a, '{1,2}'::int4[]) OVER () FROM (VALUES ('{1,NULL,3}'::int4[])) v(a);
SELECT array_intersect_batch(a, '{1,2}'::int4[]) OVER () FROM (VALUES ('{{1,2},{3,4}}'::int4[])) v(a);
SELECT array_union_batch(a, '{1,2,3}'::int4[], b, '{1}'::int4[]) OVER ()
FROM (VALUES ('{1}'::int4[], '{1}'::int4[])) v(a, b);
-- unsorted A before unsorted B in the same row: A is reported, as plain
SELECT array_intersect_batch(a, b) OVER () FROM (VALUES ('{2,1}'::int4[], '{2,1}'::int4[])) v(a, b);
SELECT array_intersect_gpu(a, b) FROM (VALUES ('{2,1}'::int4[], '{2,1}'::int4[])) v(a, b);
-- a window function needs OVER
SELECT array_intersect_batch('{1}'::int4[], '{1}'::int4[]);

-- chunks: more rows than one chunk takes (65536), and rows larger than
-- one chunk's element budget (16M keys), each row still its own answer
SELECT count(*) AS rows,
       count(*) FILTER (WHERE x IS DISTINCT FROM array_difference_gpu(a, '{3,5}'::int4[])) AS wrong,
       count(*) FILTER (WHERE y IS DISTINCT FROM array_intersect_gpu(a, b)) AS wrong_per_row_b
FROM (SELECT a, b, array_difference_batch(a, '{3,5}'::int4[]) OVER (ORDER BY g) AS x,
             array_intersect_batch(a, b) OVER (ORDER BY g) AS y
      FROM (SELECT g, ARRAY[g % 7, g % 7 + 3]::int4[] AS a, ARRAY[g % 5]::int4[] AS b
            FROM generate_series(1, 70000) g) t) u;
SELECT g, cardinality(array_intersect_batch(a, '{0,5,4999999,5000000}'::int4[]) OVER (ORDER BY g)) AS n,
       cardinality(array_union_batch(a, '{-1}'::int4[]) OVER (ORDER BY g)) AS u
FROM (SELECT g, ARRAY(SELECT generate_series(g, 5000000 + g))::int4[] AS a
      FROM generate_series(0, 4) g) t
ORDER BY g;

-- rows of large computed arrays (held in the window's own rows, not
-- TOASTed): each argument survives the fetch of the next one
SELECT count(*) FILTER (WHERE r IS DISTINCT FROM array_intersect_gpu(a, b)) AS wrong,
       count(*) FILTER (WHERE q IS DISTINCT FROM array_union_gpu(b, a)) AS wrong_swapped,
       sum(cardinality(r)) AS total
FROM (SELECT a, b, array_intersect_batch(a, b) OVER () AS r, array_union_batch(b, a) OVER () AS q
      FROM (SELECT ARRAY(SELECT generate_series(1, 100000 + g))::int4[] AS a,
                   ARRAY(SELECT generate_series(1, 100000, 2 + g))::int4[] AS b
            FROM generate_series(1, 5) g) s) t;

DROP TABLE batch_rows, pv;
