-- 04_sort_distinct.sql: array_sort_gpu (sorted, duplicates kept) and
-- array_distinct_gpu (sorted, one copy of each key) on int4[] and int8[],
-- against ORDER BY / DISTINCT over unnest: random unsorted input with
-- duplicates, sorted, reversed and all-equal input, extremes, keys that
-- differ only in their high bytes, empty and single-element arrays, sizes
-- and runs on the boundaries of array_distinct_gpu's compaction tiles
-- (tiles.psql: the size comes from the kernels' header; array_sort_gpu is
-- CUB's radix sort, with tiles of CUB's own) and a few large arrays (one
-- over 2^20 elements).
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql
\ir tiles.psql

-- n random keys in [lo, hi], in random order
CREATE FUNCTION pg_temp.rand_unsorted(n int, lo int8, hi int8) RETURNS int8[]
LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(array_agg(lo + floor(random() * (hi - lo + 1)::float8)::int8), '{}')
    FROM generate_series(1, n)
$$;
-- x in random order
CREATE FUNCTION pg_temp.shuffle(x int8[]) RETURNS int8[] LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(array_agg(k ORDER BY random()), '{}') FROM unnest(x) k
$$;

CREATE TEMP TABLE cases (id serial PRIMARY KEY, label text NOT NULL, a int8[] NOT NULL,
                         tile int);   -- the tile it is built on, if any

SELECT setseed(0.0404);

INSERT INTO cases (label, a) VALUES
    ('empty', '{}'),
    ('single', '{42}'),
    ('two, descending', '{5,-5}'),
    ('two, equal', '{7,7}'),
    ('three, descending with a duplicate', '{3,3,1}');
INSERT INTO cases (label, a)
SELECT format('random %s keys in 0..%s', n, r), pg_temp.rand_unsorted(n, 0, r)
FROM (VALUES (10, 3), (64, 1000), (65, 1000), (1000, 50), (5000, 0)) AS v(n, r);
-- on the distinct's tiles of d slots: sizes at k*d +- 1, a run across the
-- first boundary, a boundary between two copies of a key, and between two
-- keys
INSERT INTO cases (label, a, tile)
SELECT format('distinct tile %s: %s (%s keys)', d, what, cardinality(x)), x, d
FROM (VALUES (:tile_distinct)) AS t(d),
     LATERAL (VALUES
        ('random in 0..100, d-1', pg_temp.rand_unsorted(d - 1, 0, 100)),
        ('random in 0..1000000, d', pg_temp.rand_unsorted(d, 0, 1000000)),
        ('random in 0..300, d+1', pg_temp.rand_unsorted(d + 1, 0, 300)),
        ('random in 0..700, 2d-1', pg_temp.rand_unsorted(2 * d - 1, 0, 700)),
        ('random in 0..100000, 2d+1', pg_temp.rand_unsorted(2 * d + 1, 0, 100000)),
        ('random in 0..20, 3d+1', pg_temp.rand_unsorted(3 * d + 1, 0, 20)),
        ('a run of 300 across position d, shuffled', pg_temp.shuffle(pg_temp.run_at(2 * d + 1, d - 150, 300))),
        ('keys d and d+1 of the sorted input equal, shuffled',
         pg_temp.shuffle(ARRAY(SELECT g FROM generate_series(1, d) g UNION ALL
                               SELECT g FROM generate_series(d, 2 * d) g)::int8[])),
        ('keys 1..d+1 once each, shuffled', pg_temp.shuffle(ARRAY(SELECT generate_series(1, d + 1))::int8[]))) AS c(what, x);
INSERT INTO cases (label, a) VALUES
    ('already sorted 5000', pg_temp.rand_sorted(5000, 0, 3000)),
    ('already sorted and distinct 3000', ARRAY(SELECT DISTINCT floor(random() * 100000)::int8 FROM generate_series(1, 3000) ORDER BY 1)),
    ('reverse sorted 5000', ARRAY(SELECT k FROM unnest(pg_temp.rand_sorted(5000, -3000, 3000)) k ORDER BY k DESC)),
    ('organ pipe 4000', ARRAY(SELECT g FROM generate_series(1, 2000) g UNION ALL
                              SELECT g FROM generate_series(2000, 1, -1) g)::int8[]),
    ('sorted with one element out of place', pg_temp.rand_sorted(3000, 0, 10000) || '{-1}'::int8[]),
    ('long runs shuffled', pg_temp.shuffle(pg_temp.rand_runs(3, 2000, 5000))),
    ('negative keys', pg_temp.rand_unsorted(3000, -1000, -1)),
    ('int4 extremes', pg_temp.shuffle(pg_temp.rand_extreme(2000, 32))),
    ('int8 extremes', pg_temp.shuffle(pg_temp.rand_extreme(2000, 64))),
    ('int4 keys differing only in the high byte',
     ARRAY(SELECT (floor(random() * 256)::int8 - 128) * 16777216 FROM generate_series(1, 3000))),
    ('int8 keys differing only in the high bytes',
     ARRAY(SELECT (floor(random() * 65536)::int8 - 32768) * 281474976710656 FROM generate_series(1, 3000))),
    ('int4 full range', pg_temp.rand_unsorted(100000, -2147483648, 2147483647)),
    ('int8 full range', ARRAY(SELECT ((floor(random() * 4294967296)::int8 - 2147483648) << 32)
                                     | floor(random() * 4294967296)::int8 FROM generate_series(1, 50000))),
    ('large 100000 in 0..1000', pg_temp.rand_unsorted(100000, 0, 1000)),
    ('huge 1200000 in 0..1000000', pg_temp.rand_unsorted(1200000, 0, 1000000));

CREATE TEMP TABLE expect AS
SELECT id,
       pg_temp.mutated(ARRAY(SELECT k FROM unnest(a) k ORDER BY k)) AS sorted,
       pg_temp.mutated(ARRAY(SELECT DISTINCT k FROM unnest(a) k ORDER BY k)) AS dist,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true) FROM unnest(a) k) AS fits4
FROM cases;

SELECT plan(3 + 2 * 34 + 2 * 31 + 12);

SELECT is((SELECT count(*) FROM cases), 34::bigint, 'number of cases');
SELECT is((SELECT count(*) FROM expect WHERE fits4), 31::bigint, 'number of int4 cases');
SELECT is((SELECT count(*) FILTER (WHERE pg_temp.on_tile(cardinality(a), 0, tile)) FROM cases), 9::bigint,
          format('9 cases on the distinct''s tile (%s slots)', :tile_distinct));

SELECT pg_temp.arr_is(x.got, x.want, format('int8 %s: %s (%s keys)', x.fn, c.label, cardinality(c.a)))
FROM cases c JOIN expect e USING (id),
     LATERAL (VALUES ('array_sort_gpu', array_sort_gpu(c.a), e.sorted),
                     ('array_distinct_gpu', array_distinct_gpu(c.a), e.dist)) AS x(fn, got, want)
ORDER BY c.id, x.fn;
SELECT pg_temp.arr_is(x.got, x.want::int4[], format('int4 %s: %s (%s keys)', x.fn, c.label, cardinality(c.a)))
FROM cases c JOIN expect e USING (id),
     LATERAL (VALUES ('array_sort_gpu', array_sort_gpu(c.a::int4[]), e.sorted),
                     ('array_distinct_gpu', array_distinct_gpu(c.a::int4[]), e.dist)) AS x(fn, got, want)
WHERE e.fits4
ORDER BY c.id, x.fn;

-- shapes, nulls and dimensions
SELECT is(array_sort_gpu('[3:5]={3,1,2}'::int4[]), '{1,2,3}', 'array_sort_gpu: lower bound 3 in, 1 out');
SELECT is(array_distinct_gpu('[-2:2]={3,1,3,2,1}'::int8[]), '{1,2,3}', 'array_distinct_gpu: lower bound -2 in, 1 out');
SELECT is(array_sort_gpu('{}'::int8[]), '{}', 'array_sort_gpu of ''{}'' is ''{}''');
SELECT is(array_distinct_gpu('{}'::int4[]), '{}', 'array_distinct_gpu of ''{}'' is ''{}''');
SELECT is(array_sort_gpu(NULL::int4[]), NULL, 'array_sort_gpu of NULL is NULL');
SELECT throws_like($$SELECT array_sort_gpu('{3,NULL,1}'::int4[])$$, '%must not contain nulls%',
                   'array_sort_gpu rejects NULL elements');
SELECT throws_like($$SELECT array_distinct_gpu('{{3,2},{1,0}}'::int8[])$$, '%must be a one-dimensional array%',
                   'array_distinct_gpu rejects two dimensions');
-- the input is not sorted in place
SELECT is(x::text || ' ' || array_sort_gpu(x)::text, '{3,1,2} {1,2,3}', 'array_sort_gpu leaves its input alone')
FROM (SELECT '{3,1,2}'::int4[] AS x) t;
SELECT is(x::text || ' ' || array_distinct_gpu(x)::text || ' ' || x::text, '{3,1,3} {1,3} {3,1,3}',
          'array_distinct_gpu leaves its input alone')
FROM (SELECT '{3,1,3}'::int8[] AS x) t;
-- the way into the set operations for unsorted input
SELECT pg_temp.arr_is(array_union_gpu(array_sort_gpu(c.a), array_sort_gpu(d.a)),
                      (pg_temp.ref_setops(e.sorted, f.sorted)).u,
                      'array_union_gpu of two array_sort_gpu results')
FROM cases c JOIN expect e USING (id), cases d JOIN expect f USING (id)
WHERE c.label = 'random 1000 keys in 0..50' AND d.label = 'long runs shuffled';
SELECT pg_temp.arr_is(array_intersect_gpu(array_distinct_gpu(c.a::int4[]), array_sort_gpu(d.a::int4[])),
                      (pg_temp.ref_setops(f.dist, e.sorted)).i::int4[],
                      'array_intersect_gpu of array_distinct_gpu and array_sort_gpu results')
FROM cases c JOIN expect f USING (id), cases d JOIN expect e USING (id)
WHERE c.label LIKE 'distinct tile %: random in 0..700, 2d-1 %' AND d.label LIKE 'distinct tile %: random in 0..300, d+1 %';
-- sorting a sorted array: the reference's order, not the first sort's
SELECT ok((SELECT bool_and(array_sort_gpu(array_sort_gpu(c.a)) = e.sorted)
           FROM cases c JOIN expect e USING (id)),
          'array_sort_gpu of its own result is the reference''s order on every case');

SELECT * FROM finish();
ROLLBACK;
