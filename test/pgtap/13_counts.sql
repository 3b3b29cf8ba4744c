-- 13_counts.sql: the counts, similarity and predicates of 0.2
-- (array_{intersect,union,difference,symdiff}_count, array_jaccard,
-- array_overlaps, array_contains, array_contained_by, and the packed
-- operators && @> <@ & | - #) against the SQL reference (reference.psql:
-- the key-rank definition, independent of the extension): every count is
-- the length of the reference's result, overlaps is "the reference
-- intersection is not empty", contains "it is all of b".  Every form: int8[],
-- int4[] (where the keys fit), packed/packed, packed/array, array/packed.
-- Random and adversarial inputs: long runs, empty, all-equal, disjoint,
-- the only common key first or last, one copy short, sizes and runs on the
-- count kernel's tile boundaries (tiles.psql: the sizes come from the
-- kernels' header), skewed sizes around the 32x galloping ratio,
-- extremes, and one case over 2^20 keys (the GPU under auto).  Every case
-- again stored out of line (the GPU service's device cache, cold and
-- warm), and 2M-key stored pairs (one within the other) against the CPU
-- engine.
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
    tile int                    -- the tile it is built on, if any
);

SELECT setseed(0.1313);

INSERT INTO cases (label, a, b)
SELECT format('random %s/%s, keys 0..%s', na, nb, r),
       pg_temp.rand_sorted(na, 0, r), pg_temp.rand_sorted(nb, 0, r)
FROM (VALUES (5, 50, 80), (20, 700, 500), (300, 3000, 2000), (100000, 4000, 4000),
             (2000, 2500, 2500)) AS v(r, na, nb);
INSERT INTO cases (label, a, b) VALUES
    ('long runs vs long runs', pg_temp.rand_runs(6, 2000, 5000), pg_temp.rand_runs(6, 2000, 5000)),
    ('long runs vs dup-heavy', pg_temp.rand_runs(4, 2000, 5000), pg_temp.rand_sorted(3000, 0, 20)),
    ('all equal 3000 vs 2500', array_fill(7::int8, ARRAY[3000]), array_fill(7::int8, ARRAY[2500])),
    ('all equal, different keys', array_fill(3::int8, ARRAY[2000]), array_fill(4::int8, ARRAY[2000])),
    ('disjoint, a below b', pg_temp.rand_sorted(1000, 0, 499), pg_temp.rand_sorted(1000, 500, 999)),
    ('evens and odds', ARRAY(SELECT 2 * g FROM generate_series(1, 3000) g)::int8[],
                       ARRAY(SELECT 2 * g + 1 FROM generate_series(1, 2500) g)::int8[]),
    ('only the first key common', ARRAY(SELECT 2 * g FROM generate_series(1, 3000) g)::int8[],
                       '{2}'::int8[] || ARRAY(SELECT 2 * g + 1 FROM generate_series(1, 2500) g)::int8[]),
    ('only the last key common', ARRAY(SELECT 2 * g FROM generate_series(1, 3000) g)::int8[],
                       ARRAY(SELECT 2 * g + 1 FROM generate_series(1, 2500) g)::int8[] || '{6000}'::int8[]),
    ('empty vs random', '{}', pg_temp.rand_sorted(100, 0, 30)),
    ('both empty', '{}', '{}'),
    ('single equal', '{5}', '{5}'),
    ('single vs dup-heavy', '{5}', pg_temp.rand_sorted(2000, 0, 10));
-- containment: b drawn from a (within), and b one copy over a on one key
INSERT INTO cases (label, a, b)
SELECT 'b a sample of a', a, ARRAY(SELECT k FROM unnest(a) WITH ORDINALITY t(k, o)
                                    WHERE o % 3 = 1 ORDER BY o)
FROM (SELECT pg_temp.rand_sorted(5000, 0, 900) AS a) s;
INSERT INTO cases (label, a, b)
SELECT 'b = a plus one copy of its middle key', a,
       a[1:2500] || a[2500:5000]
FROM (SELECT pg_temp.rand_sorted(5000, 0, 900) AS a) s;
INSERT INTO cases (label, a, b)
SELECT 'identical', a, a FROM (SELECT pg_temp.rand_runs(5, 1000, 3000) AS a) s;
-- sizes and runs on the count's tiles, int4's and int8's
INSERT INTO cases (label, a, b, tile)
SELECT t.label, t.a, t.b, v.tile
FROM (VALUES (:tile_count4), (:tile_count8)) AS v(tile),
     LATERAL pg_temp.tile_cases('count', v.tile) t
ORDER BY v.tile DESC, t.n;
-- skewed around the 32x galloping ratio
INSERT INTO cases (label, a, b)
SELECT format('skewed %s vs %s', na, nb), pg_temp.rand_sorted(na, 0, 2000), pg_temp.rand_sorted(nb, 0, 2000)
FROM (VALUES (100, 3199), (100, 3200), (100, 3201), (3, 20000), (20000, 40)) AS v(na, nb);
-- extremes
INSERT INTO cases (label, a, b)
SELECT format('int%s extremes %s/%s', bits / 8, na, nb), pg_temp.rand_extreme(na, bits),
       pg_temp.rand_extreme(nb, bits)
FROM (VALUES (32, 1000, 1200), (32, 7, 3000), (64, 3000, 2000), (64, 2000, 7)) AS v(bits, na, nb);
-- over 2^20 keys in all
INSERT INTO cases (label, a, b) VALUES
    ('huge 600000 vs 500000', pg_temp.rand_sorted(600000, 0, 200000), pg_temp.rand_sorted(500000, 0, 200000));

-- every case both ways round
INSERT INTO cases (label, a, b, tile) SELECT label || ' (swapped)', b, a, tile FROM cases ORDER BY id;

-- what each function must answer, from the reference
CREATE TEMP TABLE expect AS
SELECT c.id,
       format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
              cardinality(r.i), cardinality(r.u), cardinality(r.d), cardinality(r.s),
              CASE WHEN cardinality(r.u) = 0 THEN 1 ELSE cardinality(r.i)::float8 / cardinality(r.u) END,
              cardinality(r.i) > 0, cardinality(r.i) = cardinality(c.b),
              cardinality(r.i) = cardinality(c.a)) AS want,
       -- the packed operators' (&& @> <@, then the sizes of & | - #)
       format('ov=%s ab=%s ba=%s i=%s u=%s d=%s s=%s',
              cardinality(r.i) > 0, cardinality(r.i) = cardinality(c.b),
              cardinality(r.i) = cardinality(c.a),
              cardinality(r.i), cardinality(r.u), cardinality(r.d), cardinality(r.s)) AS ops_want,
       r.i AS ri, r.u AS ru, r.d AS rd, r.s AS rs,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true)
        FROM unnest(c.a || c.b) k) AS fits4
FROM cases c, pg_temp.ref_setops(c.a, c.b) r;

-- Stored out of line, as tables keep large arrays: through the GPU service
-- these go by their identity, and the device cache answers (cold on the
-- first round, warm on the second); small ones stay inline.
CREATE TEMP TABLE stored (id int PRIMARY KEY, a int8[], b int8[], a4 int4[], b4 int4[]);
ALTER TABLE stored ALTER a SET STORAGE EXTERNAL, ALTER b SET STORAGE EXTERNAL,
    ALTER a4 SET STORAGE EXTERNAL, ALTER b4 SET STORAGE EXTERNAL;
INSERT INTO stored
SELECT c.id, c.a, c.b, CASE WHEN e.fits4 THEN c.a::int4[] END, CASE WHEN e.fits4 THEN c.b::int4[] END
FROM cases c JOIN expect e USING (id);
-- and one pair large enough for many tiles on every GPU block (4M keys),
-- against the CPU engine's answers (the engine is held to the reference above)
CREATE TEMP TABLE big (id int PRIMARY KEY, a int4[]);
ALTER TABLE big ALTER a SET STORAGE EXTERNAL;
INSERT INTO big VALUES (1, pg_temp.rand_sorted(2000000, 0, 3000000)::int4[]),
                       (2, pg_temp.rand_sorted(2000000, 0, 3000000)::int4[]);
INSERT INTO big SELECT 3, a[1:1500000] FROM big WHERE id = 1;	-- within row 1
SET LOCAL setops.device = cpu;
CREATE TEMP TABLE big_want AS
SELECT x.id AS xid, y.id AS yid,
       format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
              array_intersect_count(x.a, y.a), array_union_count(x.a, y.a),
              array_difference_count(x.a, y.a), array_symdiff_count(x.a, y.a),
              array_jaccard(x.a, y.a), array_overlaps(x.a, y.a), array_contains(x.a, y.a),
              array_contained_by(x.a, y.a)) AS want
FROM big x, big y WHERE x.id <> y.id;
RESET setops.device;

SELECT plan(5 + 9 * 112 + 4 * 112 + 2 * 6);

SELECT is((SELECT count(*) FROM cases), 112::bigint, 'number of cases');
SELECT is((SELECT count(*) FILTER (WHERE pg_temp.on_tile(cardinality(a), cardinality(b), tile)) FROM cases),
          52::bigint, format('52 cases (26 both ways round) on the count''s int4 tile (%s slots) and int8 tile (%s slots)',
                             :tile_count4, :tile_count8));
SELECT is((SELECT count(*) FROM expect WHERE NOT fits4), 4::bigint, 'cases with int8-only keys');
SELECT is(array_intersect_count('{1,1,2,3}'::int4[], '{1,1,1,3,4}'), 3::int8, 'literal count');
SELECT is(array_jaccard('{}'::int8[], '{}'), 1::float8, 'two empty inputs: similarity 1');

-- int8[] and, where the keys fit, int4[] arrays
SELECT is(format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
                 array_intersect_count(c.a, c.b), array_union_count(c.a, c.b),
                 array_difference_count(c.a, c.b), array_symdiff_count(c.a, c.b),
                 array_jaccard(c.a, c.b), array_overlaps(c.a, c.b), array_contains(c.a, c.b),
                 array_contained_by(c.a, c.b)), e.want, 'int8[] ' || c.label)
FROM cases c JOIN expect e USING (id) ORDER BY id;
SELECT is(CASE WHEN e.fits4 THEN
          format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
                 array_intersect_count(c.a::int4[], c.b::int4[]), array_union_count(c.a::int4[], c.b::int4[]),
                 array_difference_count(c.a::int4[], c.b::int4[]), array_symdiff_count(c.a::int4[], c.b::int4[]),
                 array_jaccard(c.a::int4[], c.b::int4[]), array_overlaps(c.a::int4[], c.b::int4[]),
                 array_contains(c.a::int4[], c.b::int4[]), array_contained_by(c.a::int4[], c.b::int4[]))
          ELSE e.want END, e.want, 'int4[] ' || c.label)
FROM cases c JOIN expect e USING (id) ORDER BY id;

-- packed forms (int8; int4 where the keys fit), and a packed value with an array
SELECT is(format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
                 array_intersect_count(p.a, p.b), array_union_count(p.a, p.b),
                 array_difference_count(p.a, p.b), array_symdiff_count(p.a, p.b),
                 array_jaccard(p.a, p.b), array_overlaps(p.a, p.b), array_contains(p.a, p.b),
                 array_contained_by(p.a, p.b)), e.want, 'packed_int8 ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT c.a::packed_int8 AS a, c.b::packed_int8 AS b) p ORDER BY id;
SELECT is(format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
                 array_intersect_count(c.a::packed_int8, c.b), array_union_count(c.a, c.b::packed_int8),
                 array_difference_count(c.a::packed_int8, c.b), array_symdiff_count(c.a, c.b::packed_int8),
                 array_jaccard(c.a::packed_int8, c.b), array_overlaps(c.a, c.b::packed_int8),
                 array_contains(c.a::packed_int8, c.b), array_contained_by(c.a, c.b::packed_int8)),
          e.want, 'packed_int8 with int8[] ' || c.label)
FROM cases c JOIN expect e USING (id) ORDER BY id;
SELECT is(CASE WHEN e.fits4 THEN
          format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
                 array_intersect_count(p.a, p.b), array_union_count(p.a, c.b::int4[]),
                 array_difference_count(c.a::int4[], p.b), array_symdiff_count(p.a, p.b),
                 array_jaccard(p.a, p.b), array_overlaps(p.a, p.b), array_contains(p.a, p.b),
                 array_contained_by(p.a, p.b))
          ELSE e.want END, e.want, 'packed_int4 ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT CASE WHEN e.fits4 THEN c.a::int4[]::packed_int4 END AS a,
                     CASE WHEN e.fits4 THEN c.b::int4[]::packed_int4 END AS b) p ORDER BY id;

-- the packed operators: predicates and the sizes of & | - # against the
-- reference, and their keys against the reference's arrays
SELECT is(format('ov=%s ab=%s ba=%s i=%s u=%s d=%s s=%s',
                 p.a && p.b, p.a @> p.b, p.a <@ p.b,
                 cardinality(p.a & p.b), cardinality(p.a | p.b), cardinality(p.a - p.b),
                 cardinality(p.a # p.b)),
          e.ops_want, 'packed_int8 operators ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT c.a::packed_int8 AS a, c.b::packed_int8 AS b) p ORDER BY id;
SELECT ok((p.a & p.b)::int8[] = e.ri AND (p.a | p.b)::int8[] = e.ru AND
          (p.a - p.b)::int8[] = e.rd AND (p.a # p.b)::int8[] = e.rs,
          'packed_int8 & | - # keys ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT c.a::packed_int8 AS a, c.b::packed_int8 AS b) p ORDER BY id;
SELECT is(CASE WHEN e.fits4 THEN
          format('ov=%s ab=%s ba=%s i=%s u=%s d=%s s=%s',
                 p.a && p.b, p.a @> p.b, p.a <@ p.b,
                 cardinality(p.a & p.b), cardinality(p.a | p.b), cardinality(p.a - p.b),
                 cardinality(p.a # p.b)) END,
          CASE WHEN e.fits4 THEN e.ops_want END,
          'packed_int4 operators ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT CASE WHEN e.fits4 THEN c.a::int4[]::packed_int4 END AS a,
                     CASE WHEN e.fits4 THEN c.b::int4[]::packed_int4 END AS b) p ORDER BY id;
SELECT ok(CASE WHEN e.fits4 THEN
          (p.a & p.b)::int4[] = e.ri::int4[] AND (p.a | p.b)::int4[] = e.ru::int4[] AND
          (p.a - p.b)::int4[] = e.rd::int4[] AND (p.a # p.b)::int4[] = e.rs::int4[] ELSE true END,
          'packed_int4 & | - # keys ' || c.label)
FROM cases c JOIN expect e USING (id),
     LATERAL (SELECT CASE WHEN e.fits4 THEN c.a::int4[]::packed_int4 END AS a,
                     CASE WHEN e.fits4 THEN c.b::int4[]::packed_int4 END AS b) p ORDER BY id;

-- stored, twice: cold, then warm
SELECT is(format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
                 array_intersect_count(s.a, s.b), array_union_count(s.a, s.b),
                 array_difference_count(s.a, s.b), array_symdiff_count(s.a, s.b),
                 array_jaccard(s.a, s.b), array_overlaps(s.a, s.b), array_contains(s.a, s.b),
                 array_contained_by(s.a, s.b)), e.want, format('stored int8[], round %s, %s', r, c.label))
FROM generate_series(1, 2) r, stored s JOIN expect e USING (id) JOIN cases c USING (id) ORDER BY r, id;
SELECT is(CASE WHEN e.fits4 THEN
          format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
                 array_intersect_count(s.a4, s.b4), array_union_count(s.a4, s.b4),
                 array_difference_count(s.a4, s.b4), array_symdiff_count(s.a4, s.b4),
                 array_jaccard(s.a4, s.b4), array_overlaps(s.a4, s.b4), array_contains(s.a4, s.b4),
                 array_contained_by(s.a4, s.b4))
          ELSE e.want END, e.want, format('stored int4[], round %s, %s', r, c.label))
FROM generate_series(1, 2) r, stored s JOIN expect e USING (id) JOIN cases c USING (id) ORDER BY r, id;
SELECT is(format('i=%s u=%s d=%s s=%s j=%s ov=%s ab=%s ba=%s',
                 array_intersect_count(x.a, y.a), array_union_count(x.a, y.a),
                 array_difference_count(x.a, y.a), array_symdiff_count(x.a, y.a),
                 array_jaccard(x.a, y.a), array_overlaps(x.a, y.a), array_contains(x.a, y.a),
                 array_contained_by(x.a, y.a)), w.want,
          format('stored 2M-key int4[] %s with %s, round %s', x.id, y.id, r))
FROM generate_series(1, 2) r, big_want w JOIN big x ON x.id = w.xid JOIN big y ON y.id = w.yid
ORDER BY r, w.xid, w.yid;

SELECT * FROM finish();
ROLLBACK;
