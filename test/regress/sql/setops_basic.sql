--
-- setops_basic: the four keys-only multiset operations on int4[] and int8[].
--
-- Semantics (std::set_* on sorted input, key-rank matching): with ca copies
-- of a key in a and cb in b, intersection keeps min(ca, cb), union
-- max(ca, cb), difference max(ca - cb, 0), symdiff |ca - cb|.
--
-- This file creates the extension and the reference function ref_setop(),
-- which the later files (run in the same database) use too.
--
CREATE EXTENSION setops;

--
-- Reference: rank every copy of a key by its position (the i-th copy of a
-- key in a pairs with the i-th copy in b) and FULL JOIN the two sides on
-- (key, rank).  Matched slots are intersection, all slots union, slots
-- with only a difference, slots with one side only symdiff.
--
CREATE FUNCTION ref_setop(op text, a int8[], b int8[]) RETURNS int8[]
LANGUAGE sql IMMUTABLE STRICT AS $$
  WITH ra AS (SELECT k, row_number() OVER (PARTITION BY k ORDER BY o) AS r
              FROM unnest(a) WITH ORDINALITY AS t(k, o)),
       rb AS (SELECT k, row_number() OVER (PARTITION BY k ORDER BY o) AS r
              FROM unnest(b) WITH ORDINALITY AS t(k, o))
  SELECT coalesce(array_agg(coalesce(ra.k, rb.k)
                            ORDER BY coalesce(ra.k, rb.k), coalesce(ra.r, rb.r)),
                  '{}')
  FROM ra FULL JOIN rb ON ra.k = rb.k AND ra.r = rb.r
  WHERE CASE op WHEN 'intersect'  THEN ra.k IS NOT NULL AND rb.k IS NOT NULL
                WHEN 'union'      THEN true
                WHEN 'difference' THEN rb.k IS NULL
                WHEN 'symdiff'    THEN ra.k IS NULL OR rb.k IS NULL
           END
$$;

--
-- The worked example of the Multisets article:
--   A = 1 1 2 3 3 3 5 6 6 6 6 7 7 8 8 9
--   B = 1 2 2 3 3 3 3 6 6 6 6 8
-- intersection 1 2 3 3 3 6 6 6 6 8; union 1 1 2 2 3 3 3 3 5 6 6 6 6 7 7 8 8 9;
-- difference 1 5 7 7 8 9; symdiff 1 2 3 5 7 7 8 9.
--
SELECT array_intersect_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[],
                           '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[]) AS intersection;
SELECT array_intersect_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[],
                           '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[])
       = '{1,2,3,3,3,6,6,6,6,8}'::int4[] AS intersection_ok;
SELECT array_union_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[],
                       '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[]) AS "union";
SELECT array_difference_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[],
                            '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[]) AS difference;
SELECT array_symdiff_gpu('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[],
                         '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[]) AS symdiff;
-- the same on int8[]
SELECT array_intersect_gpu(a, b) AS intersection, array_union_gpu(a, b) AS "union",
       array_difference_gpu(a, b) AS difference, array_symdiff_gpu(a, b) AS symdiff,
       pg_typeof(array_intersect_gpu(a, b)) AS result_type
FROM (VALUES ('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int8[],
              '{1,2,2,3,3,3,3,6,6,6,6,8}'::int8[])) v(a, b);
-- b op a: intersection and symdiff hold the same keys, difference is b - a
SELECT array_intersect_gpu(b, a) AS intersection, array_union_gpu(b, a) AS "union",
       array_difference_gpu(b, a) AS difference, array_symdiff_gpu(b, a) AS symdiff
FROM (VALUES ('{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[],
              '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[])) v(a, b);

--
-- The DemoSets demonstration of the article (MULTISET-KEYS): two sorted
-- 100-element arrays and the published intersection and symmetric
-- difference.
--
CREATE TABLE demo_keys (a int4[], b int4[]);
INSERT INTO demo_keys VALUES (
  '{1,1,3,5,7,7,8,9,10,10,10,11,12,13,14,15,16,16,16,16,17,18,19,20,21,21,25,25,28,29,
    29,29,31,31,31,31,32,33,33,35,36,38,39,40,40,42,44,45,46,47,47,51,51,53,53,53,55,55,56,57,
    58,59,59,59,60,61,62,62,63,63,64,68,68,70,70,72,73,73,75,78,79,82,82,83,84,85,85,85,86,87,
    89,91,91,91,92,95,97,98,98,98}',
  '{1,2,2,3,5,6,6,9,9,10,10,10,11,12,12,12,13,13,15,16,16,17,17,18,21,21,22,24,25,25,
    29,29,31,32,32,32,33,35,35,37,39,39,40,41,41,42,42,44,45,46,46,47,48,49,50,50,51,52,52,53,
    54,54,54,55,56,57,59,60,65,65,66,66,66,67,68,68,70,72,74,74,74,74,74,75,76,76,80,82,89,89,
    90,92,92,93,93,95,95,96,97,98}');
SELECT cardinality(a) AS na, cardinality(b) AS nb FROM demo_keys;
SELECT a FROM demo_keys;
SELECT b FROM demo_keys;
-- Intersection: equals the published result (50 keys)
SELECT array_intersect_gpu(a, b) AS intersection FROM demo_keys;
SELECT array_intersect_gpu(a, b) =
  '{1,3,5,9,10,10,10,11,12,13,15,16,16,17,18,21,21,25,25,29,29,31,32,33,35,39,40,42,44,45,
    46,47,51,53,55,56,57,59,60,68,68,70,72,75,82,89,92,95,97,98}'::int4[] AS matches_article
FROM demo_keys;
-- Symmetric difference: equals the published result (100 keys)
SELECT array_symdiff_gpu(a, b) AS symdiff FROM demo_keys;
SELECT array_symdiff_gpu(a, b) =
  '{1,2,2,6,6,7,7,8,9,12,12,13,14,16,16,17,19,20,22,24,28,29,31,31,31,32,32,33,35,36,
    37,38,39,40,41,41,42,46,47,48,49,50,50,51,52,52,53,53,54,54,54,55,58,59,59,61,62,62,63,63,
    64,65,65,66,66,66,67,70,73,73,74,74,74,74,74,76,76,78,79,80,82,83,84,85,85,85,86,87,89,90,
    91,91,91,92,93,93,95,96,98,98}'::int4[] AS matches_article
FROM demo_keys;
-- the reference agrees with the published results too
SELECT ref_setop('intersect', a, b) = array_intersect_gpu(a, b)::int8[] AS ref_intersection,
       ref_setop('symdiff', a, b) = array_symdiff_gpu(a, b)::int8[] AS ref_symdiff
FROM demo_keys;
-- Union and difference (not printed by the article): against the reference
SELECT array_union_gpu(a, b) AS "union" FROM demo_keys;
SELECT cardinality(array_union_gpu(a, b)) AS n_union,
       array_union_gpu(a, b)::int8[] = ref_setop('union', a, b) AS matches_reference
FROM demo_keys;
SELECT array_difference_gpu(a, b) AS difference FROM demo_keys;
SELECT cardinality(array_difference_gpu(a, b)) AS n_difference,
       array_difference_gpu(a, b)::int8[] = ref_setop('difference', a, b) AS matches_reference
FROM demo_keys;
-- sizes: |A| + |B| = 2|A & B| + |A ^ B|, |A | B| = |A & B| + |A ^ B|
SELECT cardinality(array_union_gpu(a, b)) = cardinality(array_intersect_gpu(a, b))
         + cardinality(array_symdiff_gpu(a, b)) AS union_size_ok,
       cardinality(array_difference_gpu(a, b)) + cardinality(array_difference_gpu(b, a))
         = cardinality(array_symdiff_gpu(a, b)) AS symdiff_size_ok
FROM demo_keys;
-- the same demo on int8[] gives the same keys
SELECT array_intersect_gpu(a::int8[], b::int8[]) = array_intersect_gpu(a, b)::int8[] AS intersection,
       array_union_gpu(a::int8[], b::int8[]) = array_union_gpu(a, b)::int8[] AS "union",
       array_difference_gpu(a::int8[], b::int8[]) = array_difference_gpu(a, b)::int8[] AS difference,
       array_symdiff_gpu(a::int8[], b::int8[]) = array_symdiff_gpu(a, b)::int8[] AS symdiff
FROM demo_keys;

--
-- Hand-picked cases, int4: each record shows a, b and the four results.
--
CREATE TABLE cases (id int PRIMARY KEY, what text, a int4[], b int4[]);
INSERT INTO cases VALUES
  (1,  'both empty',            '{}', '{}'),
  (2,  'a empty',               '{}', '{1,2,2}'),
  (3,  'b empty',               '{1,2,2}', '{}'),
  (4,  'single, equal',         '{5}', '{5}'),
  (5,  'single, a < b',         '{5}', '{7}'),
  (6,  'single, a > b',         '{7}', '{5}'),
  (7,  'all equal, a longer',   '{4,4,4,4,4}', '{4,4}'),
  (8,  'all equal, b longer',   '{4,4}', '{4,4,4,4,4}'),
  (9,  'identical',             '{1,2,2,3}', '{1,2,2,3}'),
  (10, 'disjoint, interleaved', '{1,3,5,7}', '{2,4,6,8}'),
  (11, 'disjoint, a below b',   '{1,2,3}', '{7,8,9}'),
  (12, 'disjoint, a above b',   '{7,8,9}', '{1,2,3}'),
  (13, 'a inside b',            '{2,3,3}', '{1,2,3,3,3,4}'),
  (14, 'negative keys',         '{-5,-3,-3,0,2}', '{-3,0,0,2,9}'),
  (15, 'runs of both lengths',  '{1,1,1,2,2,3}', '{1,2,2,2,3,3,3}'),
  (16, 'int4 extremes',         '{-2147483648,-2147483648,0,2147483647}',
                                '{-2147483648,2147483647,2147483647}'),
  -- one side 32 times smaller or more
  (17, 'few against many',      '{0,10,10,33,70}', array(SELECT generate_series(1, 64) / 2)),
  (18, 'many against few',      array(SELECT generate_series(1, 64) / 2), '{0,10,10,33,70}');
\x on
SELECT id, what, a, b,
       array_intersect_gpu(a, b) AS intersection,
       array_union_gpu(a, b) AS "union",
       array_difference_gpu(a, b) AS difference,
       array_symdiff_gpu(a, b) AS symdiff
FROM cases ORDER BY id;
\x off
-- every case against the reference (no rows: all agree)
SELECT id, op FROM cases,
  LATERAL (VALUES ('intersect', array_intersect_gpu(a, b)), ('union', array_union_gpu(a, b)),
                  ('difference', array_difference_gpu(a, b)), ('symdiff', array_symdiff_gpu(a, b))) r(op, res)
WHERE res::int8[] IS DISTINCT FROM ref_setop(op, a, b);
-- and int8[] gives the same keys as int4[] (no rows)
SELECT id FROM cases
WHERE array_intersect_gpu(a::int8[], b::int8[]) IS DISTINCT FROM array_intersect_gpu(a, b)::int8[]
   OR array_union_gpu(a::int8[], b::int8[]) IS DISTINCT FROM array_union_gpu(a, b)::int8[]
   OR array_difference_gpu(a::int8[], b::int8[]) IS DISTINCT FROM array_difference_gpu(a, b)::int8[]
   OR array_symdiff_gpu(a::int8[], b::int8[]) IS DISTINCT FROM array_symdiff_gpu(a, b)::int8[];

--
-- Hand-picked cases, int8: extremes, and keys that differ only above bit
-- 31 (they would collide if truncated to 32 bits).
--
CREATE TABLE cases8 (id int PRIMARY KEY, what text, a int8[], b int8[]);
INSERT INTO cases8 VALUES
  (1, 'int8 extremes', '{-9223372036854775808,-9223372036854775808,0,9223372036854775807}',
                       '{-9223372036854775808,9223372036854775807,9223372036854775807}'),
  (2, 'above 32 bits', '{0,1,4294967296,4294967296}', '{1,4294967296,4294967297}'),
  (3, 'negative, wide', '{-4294967297,-4294967296,-1,2147483648}',
                        '{-4294967296,-1,-1,2147483648,2147483649}'),
  (4, 'both empty', '{}', '{}'),
  (5, 'one side empty', '{-1,9223372036854775807}', '{}');
\x on
SELECT id, what, a, b,
       array_intersect_gpu(a, b) AS intersection,
       array_union_gpu(a, b) AS "union",
       array_difference_gpu(a, b) AS difference,
       array_symdiff_gpu(a, b) AS symdiff
FROM cases8 ORDER BY id;
\x off
SELECT id, op FROM cases8,
  LATERAL (VALUES ('intersect', array_intersect_gpu(a, b)), ('union', array_union_gpu(a, b)),
                  ('difference', array_difference_gpu(a, b)), ('symdiff', array_symdiff_gpu(a, b))) r(op, res)
WHERE res IS DISTINCT FROM ref_setop(op, a, b);

-- int4[] with int8[]: the int4[] side is cast, the int8[] function runs
SELECT array_union_gpu('{1,3}'::int4[], '{2,3}'::int8[]) AS r,
       pg_typeof(array_union_gpu('{1,3}'::int4[], '{2,3}'::int8[])) AS t;

--
-- Empty results are '{}' (zero-dimensional), never NULL; so are empty
-- inputs, however written.
--
SELECT r, r IS NULL AS is_null, array_ndims(r) AS ndims, cardinality(r) AS n
FROM (VALUES (array_intersect_gpu('{1,2}'::int4[], '{3}'::int4[])),
             (array_union_gpu('{}'::int4[], '{}'::int4[])),
             (array_difference_gpu('{1,1}'::int4[], '{1,1,1}'::int4[])),
             (array_symdiff_gpu('{1,1}'::int4[], '{1,1}'::int4[])),
             (array_intersect_gpu(array(SELECT 1 WHERE false), '{1}'::int4[]))) v(r);
SELECT r, r IS NULL AS is_null, array_ndims(r) AS ndims, cardinality(r) AS n
FROM (VALUES (array_intersect_gpu('{1,2}'::int8[], '{3}'::int8[])),
             (array_union_gpu('{}'::int8[], '{}'::int8[])),
             (array_difference_gpu('{1,1}'::int8[], '{1,1,1}'::int8[])),
             (array_symdiff_gpu('{1,1}'::int8[], '{1,1}'::int8[]))) v(r);
-- the empty int8 result is an int8[]
SELECT pg_typeof(array_intersect_gpu('{}'::int8[], '{}'::int8[]));

--
-- NULL arguments: the functions are STRICT, the result is NULL.
--
SELECT array_intersect_gpu(NULL::int4[], '{1}') IS NULL AS i1,
       array_intersect_gpu('{1}'::int4[], NULL) IS NULL AS i2,
       array_union_gpu(NULL::int4[], '{1}') IS NULL AS u1,
       array_union_gpu('{1}'::int4[], NULL) IS NULL AS u2,
       array_difference_gpu(NULL::int4[], '{1}') IS NULL AS d1,
       array_difference_gpu('{1}'::int4[], NULL) IS NULL AS d2,
       array_symdiff_gpu(NULL::int4[], '{1}') IS NULL AS s1,
       array_symdiff_gpu('{1}'::int4[], NULL) IS NULL AS s2;
SELECT array_intersect_gpu(NULL::int8[], '{1}') IS NULL AS i1,
       array_intersect_gpu('{1}'::int8[], NULL) IS NULL AS i2,
       array_union_gpu(NULL::int8[], '{1}') IS NULL AS u1,
       array_union_gpu('{1}'::int8[], NULL) IS NULL AS u2,
       array_difference_gpu(NULL::int8[], '{1}') IS NULL AS d1,
       array_difference_gpu('{1}'::int8[], NULL) IS NULL AS d2,
       array_symdiff_gpu(NULL::int8[], '{1}') IS NULL AS s1,
       array_symdiff_gpu('{1}'::int8[], NULL) IS NULL AS s2;

--
-- Lower bounds other than 1 are accepted; results always start at 1.
--
SELECT op, r, array_dims(r) AS dims
FROM (VALUES ('intersect', array_intersect_gpu('[5:7]={1,2,3}'::int4[], '[-2:0]={2,3,4}'::int4[])),
             ('union', array_union_gpu('[5:7]={1,2,3}'::int4[], '[-2:0]={2,3,4}'::int4[])),
             ('difference', array_difference_gpu('[5:7]={1,2,3}'::int4[], '[-2:0]={2,3,4}'::int4[])),
             ('symdiff', array_symdiff_gpu('[5:7]={1,2,3}'::int4[], '[-2:0]={2,3,4}'::int4[]))) v(op, r);
SELECT op, r, array_dims(r) AS dims
FROM (VALUES ('intersect', array_intersect_gpu('[5:7]={1,2,3}'::int8[], '{2,3,4}'::int8[])),
             ('union', array_union_gpu('{1,2,3}'::int8[], '[0:2]={2,3,4}'::int8[])),
             ('difference', array_difference_gpu('[5:7]={1,2,3}'::int8[], '[0:2]={2,3,4}'::int8[])),
             ('symdiff', array_symdiff_gpu('[100:102]={1,2,3}'::int8[], '[100:102]={2,3,4}'::int8[]))) v(op, r);

--
-- Long duplicate runs: 1000 copies of 7 against 600: 600, 1000, 400, 400.
--
SELECT cardinality(array_intersect_gpu(a, b)) AS n_intersection,
       cardinality(array_union_gpu(a, b)) AS n_union,
       cardinality(array_difference_gpu(a, b)) AS n_difference,
       cardinality(array_symdiff_gpu(a, b)) AS n_symdiff,
       array_difference_gpu(b, a) AS b_minus_a,
       7 = ALL (array_union_gpu(a, b)) AND 7 = ALL (array_symdiff_gpu(a, b)) AS all_sevens
FROM (SELECT array_fill(7, ARRAY[1000]) AS a, array_fill(7, ARRAY[600]) AS b) s;
SELECT cardinality(array_intersect_gpu(a, b)) AS n_intersection,
       cardinality(array_union_gpu(a, b)) AS n_union,
       cardinality(array_difference_gpu(a, b)) AS n_difference,
       cardinality(array_symdiff_gpu(a, b)) AS n_symdiff
FROM (SELECT array_fill(7::int8, ARRAY[1000]) AS a, array_fill(7::int8, ARRAY[600]) AS b) s;
-- runs of varying lengths on both sides (key k: k % 7 copies in a, k % 5 in b)
CREATE TABLE runs AS
SELECT array(SELECT k FROM generate_series(1, 300) k, generate_series(1, k % 7) ORDER BY k) AS a,
       array(SELECT k FROM generate_series(1, 300) k, generate_series(1, k % 5) ORDER BY k) AS b;
SELECT cardinality(a) AS na, cardinality(b) AS nb,
       cardinality(array_intersect_gpu(a, b)) AS n_intersection,
       cardinality(array_union_gpu(a, b)) AS n_union,
       cardinality(array_difference_gpu(a, b)) AS n_difference,
       cardinality(array_symdiff_gpu(a, b)) AS n_symdiff
FROM runs;
SELECT array_intersect_gpu(a, b)::int8[] = ref_setop('intersect', a, b) AS intersection,
       array_union_gpu(a, b)::int8[] = ref_setop('union', a, b) AS "union",
       array_difference_gpu(a, b)::int8[] = ref_setop('difference', a, b) AS difference,
       array_symdiff_gpu(a, b)::int8[] = ref_setop('symdiff', a, b) AS symdiff,
       array_intersect_gpu(a::int8[], b::int8[]) = ref_setop('intersect', a, b) AS intersection8,
       array_union_gpu(a::int8[], b::int8[]) = ref_setop('union', a, b) AS union8,
       array_difference_gpu(a::int8[], b::int8[]) = ref_setop('difference', a, b) AS difference8,
       array_symdiff_gpu(a::int8[], b::int8[]) = ref_setop('symdiff', a, b) AS symdiff8
FROM runs;

--
-- Medium sizes against the reference: distinct keys (multiples of 2 and
-- of 3 below 20000), and keys with repeats (i / 3 against i / 2).
-- |A| = 10000, |B| = 6667, |A & B| = 3334 (multiples of 6).
--
CREATE TABLE medium AS
SELECT array(SELECT generate_series(0, 19999, 2)) AS a,
       array(SELECT generate_series(0, 19999, 3)) AS b,
       array(SELECT i / 3 FROM generate_series(0, 8999) i) AS c,
       array(SELECT i / 2 + 500 FROM generate_series(0, 7999) i) AS d;
SELECT cardinality(array_intersect_gpu(a, b)) AS n_intersection,
       cardinality(array_union_gpu(a, b)) AS n_union,
       cardinality(array_difference_gpu(a, b)) AS n_difference,
       cardinality(array_symdiff_gpu(a, b)) AS n_symdiff
FROM medium;
SELECT array_intersect_gpu(a, b)::int8[] = ref_setop('intersect', a, b) AS intersection,
       array_union_gpu(a, b)::int8[] = ref_setop('union', a, b) AS "union",
       array_difference_gpu(a, b)::int8[] = ref_setop('difference', a, b) AS difference,
       array_symdiff_gpu(a, b)::int8[] = ref_setop('symdiff', a, b) AS symdiff,
       array_intersect_gpu(a::int8[], b::int8[]) = ref_setop('intersect', a, b) AS intersection8,
       array_union_gpu(a::int8[], b::int8[]) = ref_setop('union', a, b) AS union8,
       array_difference_gpu(a::int8[], b::int8[]) = ref_setop('difference', a, b) AS difference8,
       array_symdiff_gpu(a::int8[], b::int8[]) = ref_setop('symdiff', a, b) AS symdiff8
FROM medium;
SELECT array_intersect_gpu(c, d)::int8[] = ref_setop('intersect', c, d) AS intersection,
       array_union_gpu(c, d)::int8[] = ref_setop('union', c, d) AS "union",
       array_difference_gpu(c, d)::int8[] = ref_setop('difference', c, d) AS difference,
       array_symdiff_gpu(c, d)::int8[] = ref_setop('symdiff', c, d) AS symdiff,
       array_intersect_gpu(c::int8[], d::int8[]) = ref_setop('intersect', c, d) AS intersection8,
       array_union_gpu(c::int8[], d::int8[]) = ref_setop('union', c, d) AS union8,
       array_difference_gpu(c::int8[], d::int8[]) = ref_setop('difference', c, d) AS difference8,
       array_symdiff_gpu(c::int8[], d::int8[]) = ref_setop('symdiff', c, d) AS symdiff8
FROM medium;
DROP TABLE medium;

--
-- Large inputs (over 2^20 elements in all), checked against results built
-- directly with generate_series.
-- Distinct keys: evens below 1400000 (700000) and multiples of 3 (466667).
--
CREATE TABLE large AS
SELECT array(SELECT generate_series(0, 1399999, 2)) AS a,
       array(SELECT generate_series(0, 1399999, 3)) AS b;
SELECT array_intersect_gpu(a, b) = array(SELECT generate_series(0, 1399999, 6)) AS intersection,
       array_union_gpu(a, b) = array(SELECT i FROM generate_series(0, 1399999) i
                                     WHERE i % 2 = 0 OR i % 3 = 0) AS "union",
       array_difference_gpu(a, b) = array(SELECT i FROM generate_series(0, 1399999) i
                                          WHERE i % 2 = 0 AND i % 3 <> 0) AS difference,
       array_symdiff_gpu(a, b) = array(SELECT i FROM generate_series(0, 1399999) i
                                       WHERE (i % 2 = 0) <> (i % 3 = 0)) AS symdiff
FROM large;
SELECT array_intersect_gpu(a::int8[], b::int8[]) = array(SELECT generate_series(0, 1399999, 6)::int8) AS intersection8,
       array_symdiff_gpu(a::int8[], b::int8[]) = array(SELECT i::int8 FROM generate_series(0, 1399999) i
                                                      WHERE (i % 2 = 0) <> (i % 3 = 0)) AS symdiff8
FROM large;
DROP TABLE large;
-- Repeated keys: a holds 0..399999 twice each (800000), b 0..249999 three
-- times each (750000).  Intersection: 0..249999 twice; union: 0..249999
-- three times, then 250000..399999 twice; difference: 250000..399999
-- twice; symdiff: 0..249999 once, then 250000..399999 twice.
CREATE TABLE large AS
SELECT array(SELECT i / 2 FROM generate_series(0, 799999) i) AS a,
       array(SELECT i / 3 FROM generate_series(0, 749999) i) AS b;
SELECT array_intersect_gpu(a, b) = array(SELECT i / 2 FROM generate_series(0, 499999) i) AS intersection,
       array_union_gpu(a, b) = array(SELECT i / 3 FROM generate_series(0, 749999) i)
                            || array(SELECT 250000 + i / 2 FROM generate_series(0, 299999) i) AS "union",
       array_difference_gpu(a, b) = array(SELECT 250000 + i / 2 FROM generate_series(0, 299999) i) AS difference,
       array_symdiff_gpu(a, b) = array(SELECT generate_series(0, 249999))
                              || array(SELECT 250000 + i / 2 FROM generate_series(0, 299999) i) AS symdiff,
       array_difference_gpu(b, a) = array(SELECT generate_series(0, 249999)) AS b_minus_a
FROM large;
SELECT array_union_gpu(a::int8[], b::int8[]) = (array(SELECT i / 3 FROM generate_series(0, 749999) i)
          || array(SELECT 250000 + i / 2 FROM generate_series(0, 299999) i))::int8[] AS union8,
       array_difference_gpu(a::int8[], b::int8[])
          = array(SELECT 250000 + i / 2 FROM generate_series(0, 299999) i)::int8[] AS difference8
FROM large;
DROP TABLE large;

--
-- Arrays built element by element in PL/pgSQL (expanded arrays) give the
-- same results as flat ones.
--
CREATE FUNCTION expanded_check() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  a int4[] := '{}';
  b int4[] := '{}';
  a8 int8[] := '{}';
  b8 int8[] := '{}';
BEGIN
  FOR i IN 1..16 LOOP
    a[i] := (ARRAY[1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9])[i];
    a8[i] := a[i];
  END LOOP;
  FOR i IN 1..12 LOOP
    b[i] := (ARRAY[1,2,2,3,3,3,3,6,6,6,6,8])[i];
    b8[i] := b[i];
  END LOOP;
  RETURN NEXT 'intersection ' || array_intersect_gpu(a, b)::text;
  RETURN NEXT 'union ' || array_union_gpu(a, b)::text;
  RETURN NEXT 'difference ' || array_difference_gpu(a, b)::text;
  RETURN NEXT 'symdiff ' || array_symdiff_gpu(a, b)::text;
  RETURN NEXT 'intersection8 ' || array_intersect_gpu(a8, b8)::text;
  RETURN NEXT 'union8 ' || array_union_gpu(a8, b8)::text;
  RETURN NEXT 'difference8 ' || array_difference_gpu(a8, b8)::text;
  RETURN NEXT 'symdiff8 ' || array_symdiff_gpu(a8, b8)::text;
END
$$;
SELECT * FROM expanded_check();
DROP FUNCTION expanded_check();
