-- 01_setops_keys.sql: the four multiset operations on keys (int4[] and
-- int8[]) against the SQL reference (reference.psql), on random and
-- structured inputs: heavy duplicates, long runs, all-equal, disjoint, empty,
-- single elements, sizes and runs on the GPU kernels' tile boundaries
-- (tiles.psql), skewed sizes, extremes,
-- negative keys and a few large inputs (one over 2^20 elements in all).
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql
\ir tiles.psql

CREATE TEMP TABLE cases (
    id serial PRIMARY KEY,
    label text NOT NULL,
    a int8[] NOT NULL,
    b int8[] NOT NULL,
    swap boolean NOT NULL DEFAULT false,   -- also run as (b, a)
    tile int                               -- the tile it is built on, if any
);

SELECT setseed(0.0101);

-- heavy duplicates: small key ranges
INSERT INTO cases (label, a, b)
SELECT format('dup-heavy random, keys 0..%s', r),
       pg_temp.rand_sorted(na, 0, r), pg_temp.rand_sorted(nb, 0, r)
FROM (VALUES (0, 50, 80), (1, 5, 3), (2, 40, 60), (3, 200, 150), (5, 700, 500),
             (8, 1000, 1000), (20, 5000, 4000), (100, 3000, 6000), (500, 4100, 4000))
     AS v(r, na, nb);

-- fewer duplicates, and sparse keys (few repeats: the SIMD windows)
INSERT INTO cases (label, a, b)
SELECT format('random, keys 0..%s', r),
       pg_temp.rand_sorted(na, 0, r), pg_temp.rand_sorted(nb, 0, r)
FROM (VALUES (2000, 1000, 3000), (2000, 2500, 2500), (1000000, 5000, 5000),
             (100000, 20000, 30000), (40, 7, 9)) AS v(r, na, nb);

-- long runs (2000-5000 copies of a key), crossing any tile boundary
INSERT INTO cases (label, a, b, swap) VALUES
    ('long runs vs long runs', pg_temp.rand_runs(6, 2000, 5000), pg_temp.rand_runs(6, 2000, 5000), true),
    ('long runs vs dup-heavy random', pg_temp.rand_runs(4, 2000, 5000), pg_temp.rand_sorted(3000, 0, 20), true),
    ('one long run inside random keys',
     pg_temp.rand_sorted(100, -50, 9) || array_fill(10::int8, ARRAY[4500]) || pg_temp.rand_sorted(100, 11, 50),
     pg_temp.rand_sorted(300, -50, 9) || array_fill(10::int8, ARRAY[3000]) || pg_temp.rand_sorted(200, 11, 50), true);

-- all keys equal
INSERT INTO cases (label, a, b, swap) VALUES
    ('all equal 3000 vs 2500', array_fill(7::int8, ARRAY[3000]), array_fill(7::int8, ARRAY[2500]), true),
    ('all equal 1500 vs 4000', array_fill(7::int8, ARRAY[1500]), array_fill(7::int8, ARRAY[4000]), false),
    ('all equal 2048 vs 2048', array_fill(-1::int8, ARRAY[2048]), array_fill(-1::int8, ARRAY[2048]), false),
    ('all equal 5000 vs one', array_fill(0::int8, ARRAY[5000]), '{0}', true),
    ('all equal, different keys', array_fill(3::int8, ARRAY[2000]), array_fill(4::int8, ARRAY[2000]), true);

-- disjoint
INSERT INTO cases (label, a, b, swap) VALUES
    ('disjoint, a below b', pg_temp.rand_sorted(1000, 0, 499), pg_temp.rand_sorted(1000, 500, 999), true),
    ('disjoint, interleaved evens and odds',
     ARRAY(SELECT 2 * g FROM generate_series(1, 3000) g)::int8[],
     ARRAY(SELECT 2 * g + 1 FROM generate_series(1, 2500) g)::int8[], true),
    ('disjoint, dup-heavy, a above b', pg_temp.rand_sorted(2000, 10000, 10020), pg_temp.rand_sorted(300, -100, -90), false);

-- empty and single elements
INSERT INTO cases (label, a, b, swap) VALUES
    ('empty vs random', '{}', pg_temp.rand_sorted(100, 0, 30), true),
    ('both empty', '{}', '{}', false),
    ('single equal', '{5}', '{5}', false),
    ('single different', '{5}', '{6}', true),
    ('single vs dup-heavy', '{5}', pg_temp.rand_sorted(2000, 0, 10), true),
    ('single vs empty', '{-3}', '{}', true);

-- sizes and runs on the GPU tiles' boundaries (tiles.psql: the sizes come
-- from the kernels' header), for the int4 tile and the int8 tile; every
-- case runs as int8 and as int4, the runs across diagonals both ways round
INSERT INTO cases (label, a, b, swap, tile)
SELECT t.label, t.a, t.b, t.n IN (8, 10), v.tile
FROM (VALUES (:tile_setop4), (:tile_setop8)) AS v(tile),
     LATERAL pg_temp.tile_cases('setop', v.tile) t
ORDER BY v.tile DESC, t.n;

-- skewed sizes (one side 32x smaller or more: galloping)
INSERT INTO cases (label, a, b, swap) VALUES
    ('skewed 10 vs 5000', pg_temp.rand_sorted(10, 0, 1000), pg_temp.rand_sorted(5000, 0, 1000), true),
    ('skewed 3 vs 20000', pg_temp.rand_sorted(3, 0, 5000), pg_temp.rand_sorted(20000, 0, 5000), false),
    ('skewed 40 vs 5000, dup-heavy', pg_temp.rand_sorted(40, 0, 20), pg_temp.rand_sorted(5000, 0, 200), true),
    ('skewed 100 vs long runs', pg_temp.rand_sorted(100, 0, 10), pg_temp.rand_runs(3, 2000, 5000), true);

-- extremes of the key types mixed with ordinary keys
INSERT INTO cases (label, a, b)
SELECT format('int4 extremes %s/%s', na, nb), pg_temp.rand_extreme(na, 32), pg_temp.rand_extreme(nb, 32)
FROM (VALUES (50, 60), (1000, 1200), (3000, 2000), (7, 3000)) AS v(na, nb);
INSERT INTO cases (label, a, b)
SELECT format('int8 extremes %s/%s', na, nb), pg_temp.rand_extreme(na, 64), pg_temp.rand_extreme(nb, 64)
FROM (VALUES (50, 60), (1000, 1200), (3000, 2000), (2000, 7)) AS v(na, nb);

-- negative keys
INSERT INTO cases (label, a, b) VALUES
    ('negative keys', pg_temp.rand_sorted(2000, -1000, -1), pg_temp.rand_sorted(1500, -1200, -300)),
    ('keys around -2^31', pg_temp.rand_sorted(1000, -2147483700, -2147483600),
                          pg_temp.rand_sorted(1000, -2147483660, -2147483560));

-- large
INSERT INTO cases (label, a, b) VALUES
    ('large 50000 vs 100000, keys 0..30000', pg_temp.rand_sorted(50000, 0, 30000), pg_temp.rand_sorted(100000, 0, 30000)),
    ('large 100000 vs 100000, sparse keys', pg_temp.rand_sorted(100000, -1000000000, 1000000000),
                                            pg_temp.rand_sorted(100000, -1000000000, 1000000000)),
    ('large long runs vs dup-heavy', pg_temp.rand_runs(15, 2000, 5000), pg_temp.rand_sorted(60000, 0, 50)),
    -- over 2^20 elements in all: several chunks on the CPU, the GPU under auto
    ('huge 600000 vs 500000, keys 0..200000', pg_temp.rand_sorted(600000, 0, 200000), pg_temp.rand_sorted(500000, 0, 200000)),
    ('huge long runs vs dup-heavy, over 2^20 keys', pg_temp.rand_runs(150, 2000, 5000), pg_temp.rand_sorted(600000, 0, 300));

INSERT INTO cases (label, a, b, tile)
SELECT label || ' (swapped)', b, a, tile FROM cases WHERE swap ORDER BY id;

CREATE TEMP TABLE expect AS
SELECT c.id, r.i, r.u, r.d, r.s,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true)
        FROM unnest(c.a || c.b) k) AS fits4
FROM cases c, pg_temp.ref_setops(c.a, c.b) r;

CREATE TEMP TABLE ops (op text PRIMARY KEY);
INSERT INTO ops VALUES ('intersect'), ('union'), ('difference'), ('symdiff');

SELECT plan(4 + 6 + 4 * 95 + 4 * 90);

SELECT is((SELECT count(*) FROM cases), 95::bigint, 'number of int8 cases');
SELECT is((SELECT count(*) FROM expect WHERE fits4), 90::bigint, 'number of int4 cases');
SELECT is((SELECT count(*) FILTER (WHERE pg_temp.on_tile(cardinality(a), cardinality(b), tile)) FROM cases),
          30::bigint, format('30 cases on the int4 tile (%s slots) and the int8 tile (%s slots)',
                             :tile_setop4, :tile_setop8));
SELECT ok((SELECT bool_and(pg_temp.well_formed(i) AND pg_temp.well_formed(u)
                           AND pg_temp.well_formed(d) AND pg_temp.well_formed(s)) FROM expect),
          'the reference gives well-formed arrays');

-- the reference itself, on the example of setop_kind.h's semantics
SELECT is(r.*::text, '("{1,1,3}","{1,1,1,2,3,4}",{2},"{1,2,4}")',
          'reference: {1,1,2,3} vs {1,1,1,3,4}')
FROM pg_temp.ref_setops('{1,1,2,3}'::int4[], '{1,1,1,3,4}'::int4[]) r;
SELECT is(r.*::text, '("{2,2,5}","{1,2,2,2,2,3,5,5,5}","{1,2,2}","{1,2,2,3,5,5}")',
          'reference: {1,2,2,2,2,5} vs {2,2,3,5,5,5}')
FROM pg_temp.ref_setops('{1,2,2,2,2,5}'::int8[], '{2,2,3,5,5,5}'::int8[]) r;
-- and the extension on the same literals
SELECT is(array_intersect_gpu('{1,1,2,3}'::int4[], '{1,1,1,3,4}'), '{1,1,3}', 'literal intersect');
SELECT is(array_union_gpu('{1,1,2,3}'::int4[], '{1,1,1,3,4}'), '{1,1,1,2,3,4}', 'literal union');
SELECT is(array_difference_gpu('{1,2,2,2,2,5}'::int8[], '{2,2,3,5,5,5}'), '{1,2,2}', 'literal difference');
SELECT is(array_symdiff_gpu('{1,2,2,2,2,5}'::int8[], '{2,2,3,5,5,5}'), '{1,2,2,3,5,5}', 'literal symdiff');

-- int8 keys: every case, every operation
SELECT pg_temp.arr_is(pg_temp.setop(o.op, c.a, c.b),
                      pg_temp.ref_pick(o.op, e.i, e.u, e.d, e.s),
                      format('int8 %s: %s (%s/%s keys)', o.op, c.label,
                             cardinality(c.a), cardinality(c.b)))
FROM cases c JOIN expect e USING (id) CROSS JOIN ops o
ORDER BY c.id, o.op;

-- int4 keys: every case whose keys fit
SELECT pg_temp.arr_is(pg_temp.setop(o.op, c.a::int4[], c.b::int4[]),
                      pg_temp.ref_pick(o.op, e.i, e.u, e.d, e.s)::int4[],
                      format('int4 %s: %s (%s/%s keys)', o.op, c.label,
                             cardinality(c.a), cardinality(c.b)))
FROM cases c JOIN expect e USING (id) CROSS JOIN ops o
WHERE e.fits4
ORDER BY c.id, o.op;

SELECT * FROM finish();
ROLLBACK;
