-- 16_jaccard_distance.sql: the Jaccard distance of issue 34,
-- array_jaccard_distance(a, b) and its operator <%> (packed_int4,
-- packed_int8, int4[], int8[]): on random multisets (duplicates), stored
-- rows and edge rows, equal to the bit to 1 - array_jaccard(a, b) and to
-- 1 - |i| / |u| of the SQL reference (reference.psql, independent of the
-- extension); NULL for a NULL argument; the input rules' errors as
-- array_jaccard raises them, naming array_jaccard_distance.  And
-- ORDER BY col <%> q LIMIT k: the same rows as the reference's order, in a
-- plan that EXPLAIN ANALYZE shows is PostgreSQL's bounded sort (top-N
-- heapsort), for an operator and for a window function under the sort.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql

SELECT setseed(0.1616);

CREATE TEMP TABLE cases (
    id serial PRIMARY KEY,
    label text NOT NULL,
    a int8[] NOT NULL,
    b int8[] NOT NULL
);
INSERT INTO cases (label, a, b)
SELECT format('random %s/%s, keys 0..%s', na, nb, r),
       pg_temp.rand_sorted(na, 0, r), pg_temp.rand_sorted(nb, 0, r)
FROM (VALUES (5, 50, 80), (40, 700, 500), (3000, 3000, 2000), (100000, 4000, 4000),
             (50, 9, 3000)) AS v(r, na, nb);
INSERT INTO cases (label, a, b) VALUES
    ('both empty', '{}', '{}'),
    ('empty vs random', '{}', pg_temp.rand_sorted(100, 0, 30)),
    ('identical runs', '{1,1,1,2,9,9}', '{1,1,1,2,9,9}'),
    ('one copy short', '{1,1,1,2,9,9}', '{1,1,2,9,9}'),
    ('disjoint', '{1,3,5}', '{2,4,6}'),
    ('all equal, different counts', array_fill(7::int8, ARRAY[3000]), array_fill(7::int8, ARRAY[2500])),
    ('int8 extremes', pg_temp.rand_extreme(500, 64), pg_temp.rand_extreme(700, 64)),
    ('int4 extremes', pg_temp.rand_extreme(500, 32), pg_temp.rand_extreme(700, 32));
INSERT INTO cases (label, a, b) SELECT label || ' (swapped)', b, a FROM cases ORDER BY id;

-- 1 - |i| / |u| from the reference; 0 for two empty inputs (similarity 1)
CREATE TEMP TABLE expect AS
SELECT c.id,
       1 - CASE WHEN cardinality(r.u) = 0 THEN 1 ELSE cardinality(r.i)::float8 / cardinality(r.u) END AS dist,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true)
        FROM unnest(c.a || c.b) k) AS fits4
FROM cases c, pg_temp.ref_setops(c.a, c.b) r;

-- rows stored out of line (the device cache's path through the GPU service)
CREATE TEMP TABLE stored (id int PRIMARY KEY, a int8[], b int8[], pa packed_int8, pb packed_int8);
ALTER TABLE stored ALTER a SET STORAGE EXTERNAL, ALTER b SET STORAGE EXTERNAL;
INSERT INTO stored SELECT id, a, b, a, b FROM cases;

-- a table to order: 300 rows against one query, and their distances from the reference
CREATE TEMP TABLE seg (id int PRIMARY KEY, m4 int4[], p4 packed_int4, m8 int8[], p8 packed_int8);
INSERT INTO seg SELECT g, k::int4[], k::int4[], k, k
FROM generate_series(1, 300) g, LATERAL (SELECT pg_temp.rand_sorted(20 + g % 50, 0, 200 + 0 * g) AS k) s;
CREATE TEMP TABLE seg_q AS SELECT pg_temp.rand_sorted(80, 0, 200) AS q;
CREATE TEMP TABLE seg_want AS
SELECT s.id, 1 - cardinality(r.i)::float8 / cardinality(r.u) AS dist
FROM seg s, seg_q, pg_temp.ref_setops(s.m8, seg_q.q) r;
ANALYZE seg;

SELECT plan(4 + 6 * 26 + 2 + 4 + 3 + 4 + 4);

SELECT is((SELECT count(*) FROM cases), 26::bigint, 'number of cases');
SELECT is((SELECT count(*) FROM expect WHERE NOT fits4), 2::bigint, 'cases with int8-only keys');
SELECT is('{}'::packed_int4 <%> '{}'::packed_int4, 0::float8, 'two empty inputs: distance 0');
SELECT is('{1,2}'::int8[] <%> '{3}', 1::float8, 'disjoint: distance 1');

-- every form against 1 - array_jaccard and the reference, to the bit
SELECT is(array[c.a <%> c.b, array_jaccard_distance(c.a, c.b), 1 - array_jaccard(c.a, c.b)],
          array_fill(e.dist, ARRAY[3]), 'int8[] ' || c.label)
FROM cases c JOIN expect e USING (id) ORDER BY id;
SELECT is(CASE WHEN e.fits4 THEN array[a4 <%> b4, array_jaccard_distance(a4, b4), 1 - array_jaccard(a4, b4)]
               ELSE array_fill(e.dist, ARRAY[3]) END,
          array_fill(e.dist, ARRAY[3]), 'int4[] ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT CASE WHEN e.fits4 THEN c.a::int4[] END AS a4, CASE WHEN e.fits4 THEN c.b::int4[] END AS b4) x
ORDER BY id;
SELECT is(array[pa <%> pb, array_jaccard_distance(pa, pb), 1 - array_jaccard(pa, pb),
                array_jaccard_distance(pa, c.b), array_jaccard_distance(c.a, pb)],
          array_fill(e.dist, ARRAY[5]), 'packed_int8 ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT c.a::packed_int8 AS pa, c.b::packed_int8 AS pb) x ORDER BY id;
SELECT is(CASE WHEN e.fits4 THEN
               array[pa <%> pb, array_jaccard_distance(pa, pb), 1 - array_jaccard(pa, pb),
                     array_jaccard_distance(pa, c.b::int4[]), array_jaccard_distance(c.a::int4[], pb)]
               ELSE array_fill(e.dist, ARRAY[5]) END,
          array_fill(e.dist, ARRAY[5]), 'packed_int4 ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT CASE WHEN e.fits4 THEN c.a::int4[]::packed_int4 END AS pa,
                     CASE WHEN e.fits4 THEN c.b::int4[]::packed_int4 END AS pb) x ORDER BY id;
-- stored, twice (the device cache cold, then warm)
SELECT is(array[s.a <%> s.b, s.pa <%> s.pb, 1 - array_jaccard(s.a, s.b)],
          array_fill(e.dist, ARRAY[3]), format('stored %s, round %s', c.label, round))
FROM cases c JOIN expect e USING (id) JOIN stored s USING (id), generate_series(1, 2) round
ORDER BY round, id;

-- NULL in, NULL out
SELECT is(NULL::int4[] <%> '{1}'::int4[], NULL::float8, 'NULL argument: NULL');
SELECT is(array_jaccard_distance('{1}'::packed_int8, NULL::int8[]), NULL::float8, 'NULL packed argument: NULL');

-- the input rules: array_jaccard's errors, naming array_jaccard_distance
CREATE FUNCTION pg_temp.error_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT is(pg_temp.error_of(format('SELECT %s(%s, %s)', 'array_jaccard_distance', x.a, x.b)),
          replace(pg_temp.error_of(format('SELECT %s(%s, %s)', 'array_jaccard', x.a, x.b)),
                  'array_jaccard', 'array_jaccard_distance'),
          'the error of array_jaccard: ' || x.label)
FROM (VALUES ('unsorted first', $$'{3,1}'::int4[]$$, $$'{1}'::int4[]$$),
             ('unsorted second', $$'{1}'::int8[]$$, $$'{1,5,4}'::int8[]$$),
             ('NULL element', $$'{1,NULL}'::int4[]$$, $$'{1}'::int4[]$$),
             ('two dimensions', $$'{{1,2},{3,4}}'::int8[]$$, $$'{1}'::int8[]$$)) AS x(label, a, b);
SELECT throws_ok($$SELECT '{3,1}'::int4[] <%> '{1}'::int4[]$$, '22023',
                 'array_jaccard_distance: argument 1 is not sorted ascending at position 2',
                 'the operator raises the function''s error');
SELECT is(pg_temp.error_of($$SELECT '{1,2}'::int4[] <%> '{1,3,2}'::int4[]$$),
            '22023: array_jaccard_distance: argument 2 is not sorted ascending at position 3',
            'argument 2 unsorted, through the operator');
SELECT is(pg_temp.error_of($$SELECT '{1}'::packed_int8 <%> '{1}'::packed_int8$$), 'no error', 'packed');

-- ORDER BY <%> LIMIT k: the reference's nearest rows (ties by id), in every form
SELECT is(array(SELECT id FROM seg, seg_q ORDER BY m4 <%> q::int4[], id LIMIT 10),
          array(SELECT id FROM seg_want ORDER BY dist, id LIMIT 10), 'int4[]: the 10 nearest');
SELECT is(array(SELECT id FROM seg, seg_q ORDER BY p4 <%> q::int4[]::packed_int4, id LIMIT 10),
          array(SELECT id FROM seg_want ORDER BY dist, id LIMIT 10), 'packed_int4: the 10 nearest');
SELECT is(array(SELECT id FROM seg, seg_q ORDER BY m8 <%> q, id LIMIT 10),
          array(SELECT id FROM seg_want ORDER BY dist, id LIMIT 10), 'int8[]: the 10 nearest');
SELECT is(array(SELECT id FROM seg, seg_q ORDER BY p8 <%> q::packed_int8, id LIMIT 10),
          array(SELECT id FROM seg_want ORDER BY dist, id LIMIT 10), 'packed_int8: the 10 nearest');

-- the plans: PostgreSQL's bounded sort, whatever else the plan holds
SELECT format('%L::packed_int4', q::int4[]::packed_int4) AS qp4, format('%L::int4[]', q::int4[]) AS q4
FROM seg_q \gset
SELECT matches(pg_temp.plan_of(format('SELECT id FROM seg ORDER BY p4 <%%> %s LIMIT 10', :'qp4'),
                               'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF'),
               'Sort Method: top-N heapsort', 'packed_int4 <%> ... LIMIT 10: a top-N heapsort');
SELECT matches(pg_temp.plan_of(format('SELECT id FROM seg ORDER BY m4 <%%> %s LIMIT 10', :'q4'),
                               'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF'),
               'Sort Method: top-N heapsort', 'int4[] <%> ... LIMIT 10: a top-N heapsort');
-- a window function's value ordered on: the WindowAgg under the bounded sort
SELECT matches(pg_temp.plan_of(format('SELECT id FROM seg ORDER BY array_jaccard_batch(m4, %s) OVER () DESC LIMIT 10', :'q4'),
                               'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF'),
               '(?s)Limit.*Sort.*Sort Method: top-N heapsort.*WindowAgg',
               'ORDER BY array_jaccard_batch(..) OVER () DESC LIMIT 10: WindowAgg under a top-N heapsort');
SELECT is(array(SELECT id FROM seg ORDER BY array_jaccard_batch(m4, (SELECT q::int4[] FROM seg_q)) OVER () DESC, id LIMIT 10),
          array(SELECT s.id FROM seg s, seg_q ORDER BY array_jaccard(s.m4, seg_q.q::int4[]) DESC, s.id LIMIT 10),
          'ORDER BY array_jaccard_batch(..) OVER () DESC LIMIT 10: the rows per-row array_jaccard puts first');

SELECT * FROM finish();
ROLLBACK;
