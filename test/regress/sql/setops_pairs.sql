--
-- setops_pairs: array_X_gpu(a, a_vals, b, b_vals) -> (keys, vals).
--
-- Keys are matched as in the keys-only functions; each output key brings
-- its value: intersection and difference take a's value, union a's on a
-- match and b's for b's unmatched copies, symdiff the unmatched side's.
-- Uses ref_setop() from setops_basic.
--

--
-- Reference: as ref_setop(), ranking each (key, value) pair by position;
-- a slot present on a's side gives a's value, else b's.
--
CREATE FUNCTION ref_setop_pairs(op text, a int8[], av int8[], b int8[], bv int8[],
                                OUT keys int8[], OUT vals int8[])
LANGUAGE sql IMMUTABLE STRICT AS $$
  WITH ra AS (SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY o) AS r
              FROM unnest(a, av) WITH ORDINALITY AS t(k, v, o)),
       rb AS (SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY o) AS r
              FROM unnest(b, bv) WITH ORDINALITY AS t(k, v, o))
  SELECT coalesce(array_agg(coalesce(ra.k, rb.k)
                            ORDER BY coalesce(ra.k, rb.k), coalesce(ra.r, rb.r)), '{}'),
         coalesce(array_agg(CASE WHEN ra.k IS NOT NULL THEN ra.v ELSE rb.v END
                            ORDER BY coalesce(ra.k, rb.k), coalesce(ra.r, rb.r)), '{}')
  FROM ra FULL JOIN rb ON ra.k = rb.k AND ra.r = rb.r
  WHERE CASE op WHEN 'intersect'  THEN ra.k IS NOT NULL AND rb.k IS NOT NULL
                WHEN 'union'      THEN true
                WHEN 'difference' THEN rb.k IS NULL
                WHEN 'symdiff'    THEN ra.k IS NULL OR rb.k IS NULL
           END
$$;

--
-- The worked example, values = positions: a's 0..15, b's 100..111.
--   a: 1 1 2 3 3 3 5 6 6 6 6 7 7 8 8 9      (values 0..15)
--   b: 1 2 2 3 3 3 3 6 6 6 6 8              (values 100..111)
-- intersection vals 0 2 3 4 5 7 8 9 10 13 (a's first copies);
-- union: a's copies, plus b's 2nd 2 (102) and 4th 3 (106);
-- difference: a's last copies of 1 (1) and 8 (14), 5 (6), 7 (11 12), 9 (15);
-- symdiff: the difference plus 102 and 106.
--
CREATE TABLE example AS
SELECT '{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'::int4[] AS a,
       array(SELECT generate_series(0, 15)) AS av,
       '{1,2,2,3,3,3,3,6,6,6,6,8}'::int4[] AS b,
       array(SELECT generate_series(100, 111)) AS bv;
SELECT 'intersect' AS op, r.* FROM example, array_intersect_gpu(a, av, b, bv) r
UNION ALL
SELECT 'union', r.* FROM example, array_union_gpu(a, av, b, bv) r
UNION ALL
SELECT 'difference', r.* FROM example, array_difference_gpu(a, av, b, bv) r
UNION ALL
SELECT 'symdiff', r.* FROM example, array_symdiff_gpu(a, av, b, bv) r;
-- int8 keys: the same pairs
SELECT 'intersect' AS op, r.*, pg_typeof(r.keys) AS keys_type FROM example,
       array_intersect_gpu(a::int8[], av, b::int8[], bv) r
UNION ALL
SELECT 'union', r.*, pg_typeof(r.keys) FROM example, array_union_gpu(a::int8[], av, b::int8[], bv) r
UNION ALL
SELECT 'difference', r.*, pg_typeof(r.keys) FROM example, array_difference_gpu(a::int8[], av, b::int8[], bv) r
UNION ALL
SELECT 'symdiff', r.*, pg_typeof(r.keys) FROM example, array_symdiff_gpu(a::int8[], av, b::int8[], bv) r;
-- b first: intersection takes b's values, b - a is {2 (102), 3 (106)}
SELECT 'intersect' AS op, r.* FROM example, array_intersect_gpu(b, bv, a, av) r
UNION ALL
SELECT 'union', r.* FROM example, array_union_gpu(b, bv, a, av) r
UNION ALL
SELECT 'difference', r.* FROM example, array_difference_gpu(b, bv, a, av) r
UNION ALL
SELECT 'symdiff', r.* FROM example, array_symdiff_gpu(b, bv, a, av) r;
-- the keys equal the keys-only results
SELECT (array_intersect_gpu(a, av, b, bv)).keys = array_intersect_gpu(a, b) AS intersection,
       (array_union_gpu(a, av, b, bv)).keys = array_union_gpu(a, b) AS "union",
       (array_difference_gpu(a, av, b, bv)).keys = array_difference_gpu(a, b) AS difference,
       (array_symdiff_gpu(a, av, b, bv)).keys = array_symdiff_gpu(a, b) AS symdiff
FROM example;
DROP TABLE example;

--
-- The DemoSetsPairs demonstration of the article (MULTISET-PAIRS): values
-- are counting iterators, a's 0..99 and b's 100..199, so each output value
-- is the position the key came from.
--
CREATE TABLE demo_pairs (a int4[], b int4[], av int4[], bv int4[]);
INSERT INTO demo_pairs VALUES (
  '{0,1,1,2,3,6,6,8,11,11,14,17,18,18,20,22,22,22,24,25,26,27,27,31,31,31,32,33,33,34,
    35,35,37,37,38,39,39,40,41,41,42,43,44,44,44,47,50,52,56,56,57,57,57,60,62,63,63,63,64,64,
    64,65,66,67,67,68,71,72,73,75,76,76,77,78,79,81,81,82,84,85,85,86,86,88,89,90,91,91,91,92,
    92,92,93,95,95,95,98,99,99,99}',
  '{0,1,2,2,4,4,4,4,5,6,6,8,8,10,10,12,13,14,18,21,21,22,22,22,24,26,26,27,28,28,
    30,32,33,34,35,38,38,38,39,40,40,41,41,42,43,44,45,45,48,51,53,53,53,53,54,55,57,61,61,61,
    62,62,64,64,66,66,67,68,70,70,72,74,76,78,78,79,80,80,80,80,81,81,87,88,88,89,91,91,92,93,
    93,93,94,96,97,98,98,98,98,99}',
  array(SELECT generate_series(0, 99)),
  array(SELECT generate_series(100, 199)));
SELECT cardinality(a) AS na, cardinality(b) AS nb FROM demo_pairs;
SELECT a FROM demo_pairs;
SELECT b FROM demo_pairs;
-- Intersection keys and indices: equal the published results (47 pairs)
SELECT r.keys AS intersection_keys FROM demo_pairs, array_intersect_gpu(a, av, b, bv) r;
SELECT r.vals AS intersection_indices FROM demo_pairs, array_intersect_gpu(a, av, b, bv) r;
SELECT r.keys = '{0,1,2,6,6,8,14,18,22,22,22,24,26,27,32,33,34,35,38,39,40,41,41,42,43,44,57,62,64,64,
                  66,67,68,72,76,78,79,81,81,88,89,91,91,92,93,98,99}'::int4[] AS keys_match_article,
       r.vals = '{0,1,3,5,6,7,10,12,15,16,17,18,20,21,26,27,29,30,34,35,37,38,39,40,41,42,50,54,58,59,
                  62,63,65,67,70,73,74,75,76,83,84,86,87,89,92,96,97}'::int4[] AS indices_match_article
FROM demo_pairs, array_intersect_gpu(a, av, b, bv) r;
-- Symmetric difference keys and indices: equal the published results (106 pairs)
SELECT r.keys AS symdiff_keys FROM demo_pairs, array_symdiff_gpu(a, av, b, bv) r;
SELECT r.vals AS symdiff_indices FROM demo_pairs, array_symdiff_gpu(a, av, b, bv) r;
SELECT r.keys = '{1,2,3,4,4,4,4,5,8,10,10,11,11,12,13,17,18,20,21,21,25,26,27,28,28,30,31,31,31,33,
                  35,37,37,38,38,39,40,44,44,45,45,47,48,50,51,52,53,53,53,53,54,55,56,56,57,57,60,61,61,61,
                  62,63,63,63,64,65,66,67,70,70,71,73,74,75,76,77,78,80,80,80,80,82,84,85,85,86,86,87,88,90,
                  91,92,92,93,93,94,95,95,95,96,97,98,98,98,99,99}'::int4[] AS keys_match_article,
       r.vals = '{2,103,4,104,105,106,107,108,112,113,114,8,9,115,116,11,13,14,119,120,19,126,22,128,129,130,23,24,25,28,
                  31,32,33,136,137,36,140,43,44,146,147,45,148,46,149,47,150,151,152,153,154,155,48,49,51,52,53,157,158,159,
                  161,55,56,57,60,61,165,64,168,169,66,68,171,69,71,72,174,176,177,178,179,77,78,79,80,81,82,182,184,85,
                  88,90,91,190,191,192,93,94,95,193,194,196,197,198,98,99}'::int4[] AS indices_match_article
FROM demo_pairs, array_symdiff_gpu(a, av, b, bv) r;
-- the reference agrees with the published results too
SELECT (ref_setop_pairs('intersect', a, av, b, bv)).keys = r.keys::int8[]
   AND (ref_setop_pairs('intersect', a, av, b, bv)).vals = r.vals::int8[] AS ref_intersection
FROM demo_pairs, array_intersect_gpu(a, av, b, bv) r;
SELECT (ref_setop_pairs('symdiff', a, av, b, bv)).keys = r.keys::int8[]
   AND (ref_setop_pairs('symdiff', a, av, b, bv)).vals = r.vals::int8[] AS ref_symdiff
FROM demo_pairs, array_symdiff_gpu(a, av, b, bv) r;
-- Union and difference (not printed by the article): against the reference
SELECT r.keys AS union_keys FROM demo_pairs, array_union_gpu(a, av, b, bv) r;
SELECT r.vals AS union_indices FROM demo_pairs, array_union_gpu(a, av, b, bv) r;
SELECT cardinality(r.keys) AS n,
       (ref_setop_pairs('union', a, av, b, bv)).keys = r.keys::int8[] AS keys_match_reference,
       (ref_setop_pairs('union', a, av, b, bv)).vals = r.vals::int8[] AS indices_match_reference
FROM demo_pairs, array_union_gpu(a, av, b, bv) r;
SELECT r.keys AS difference_keys FROM demo_pairs, array_difference_gpu(a, av, b, bv) r;
SELECT r.vals AS difference_indices FROM demo_pairs, array_difference_gpu(a, av, b, bv) r;
SELECT cardinality(r.keys) AS n,
       (ref_setop_pairs('difference', a, av, b, bv)).keys = r.keys::int8[] AS keys_match_reference,
       (ref_setop_pairs('difference', a, av, b, bv)).vals = r.vals::int8[] AS indices_match_reference
FROM demo_pairs, array_difference_gpu(a, av, b, bv) r;
-- every value is the position of its key: a[v + 1] or b[v - 99]
SELECT op, bool_and(k = CASE WHEN v < 100 THEN a[v + 1] ELSE b[v - 99] END) AS values_locate_keys
FROM demo_pairs,
     LATERAL (SELECT 'intersect', * FROM array_intersect_gpu(a, av, b, bv)
              UNION ALL SELECT 'union', * FROM array_union_gpu(a, av, b, bv)
              UNION ALL SELECT 'difference', * FROM array_difference_gpu(a, av, b, bv)
              UNION ALL SELECT 'symdiff', * FROM array_symdiff_gpu(a, av, b, bv)) r(op, keys, vals),
     unnest(r.keys, r.vals) u(k, v)
GROUP BY op ORDER BY op;
-- int8 keys and int8 values: the same pairs
SELECT (array_intersect_gpu(a::int8[], av::int8[], b::int8[], bv::int8[])).vals = (array_intersect_gpu(a, av, b, bv)).vals::int8[] AS intersection,
       (array_union_gpu(a::int8[], av::int8[], b::int8[], bv::int8[])).vals = (array_union_gpu(a, av, b, bv)).vals::int8[] AS "union",
       (array_difference_gpu(a::int8[], av::int8[], b::int8[], bv::int8[])).vals = (array_difference_gpu(a, av, b, bv)).vals::int8[] AS difference,
       (array_symdiff_gpu(a::int8[], av::int8[], b::int8[], bv::int8[])).vals = (array_symdiff_gpu(a, av, b, bv)).vals::int8[] AS symdiff
FROM demo_pairs;

--
-- Value types: any fixed-width type travels with its key, whatever its
-- width and alignment (1, 2, 4, 8, 6, 12, 16 and 64 bytes).
-- Keys a = {1,2,2,3}, b = {2,3,3,4}; a's values x0..x3, b's y0..y3:
--   intersect  2 3      -> x1 x3
--   union      1 2 2 3 3 4 -> x0 x1 x2 x3 y2 y3
--   difference 1 2      -> x0 x2
--   symdiff    1 2 3 4  -> x0 x2 y2 y3
--
CREATE FUNCTION show_pairs(av anyarray, bv anyarray) RETURNS TABLE (op text, keys int4[], vals text)
LANGUAGE sql AS $$
  SELECT 'intersect', r.keys, r.vals::text FROM array_intersect_gpu('{1,2,2,3}'::int4[], av, '{2,3,3,4}'::int4[], bv) r
  UNION ALL
  SELECT 'union', r.keys, r.vals::text FROM array_union_gpu('{1,2,2,3}'::int4[], av, '{2,3,3,4}'::int4[], bv) r
  UNION ALL
  SELECT 'difference', r.keys, r.vals::text FROM array_difference_gpu('{1,2,2,3}'::int4[], av, '{2,3,3,4}'::int4[], bv) r
  UNION ALL
  SELECT 'symdiff', r.keys, r.vals::text FROM array_symdiff_gpu('{1,2,2,3}'::int4[], av, '{2,3,3,4}'::int4[], bv) r
$$;
SELECT * FROM show_pairs('{10,11,12,13}'::int2[], '{20,21,22,23}'::int2[]);
SELECT * FROM show_pairs('{1.5,-2.5,3.25,1e30}'::float4[], '{-0.5,0,22.5,-1e-30}'::float4[]);
SELECT * FROM show_pairs('{1.5,-2.5,3.25,1e300}'::float8[], '{-0.5,0,22.5,-1e-300}'::float8[]);
SELECT * FROM show_pairs('{-9223372036854775808,1,2,3}'::int8[], '{20,21,22,9223372036854775807}'::int8[]);
SELECT * FROM show_pairs('{t,f,t,f}'::bool[], '{f,f,t,t}'::bool[]);
SELECT * FROM show_pairs('{a,b,c,d}'::"char"[], '{w,x,y,z}'::"char"[]);
SELECT * FROM show_pairs('{2001-01-01,2002-02-02,2003-03-03,2004-04-04}'::date[],
                         '{1999-12-31,2000-01-01,2022-02-22,2024-02-29}'::date[]);
SELECT * FROM show_pairs('{"2001-01-01 01:01:01","2002-02-02 02:02:02","2003-03-03 03:03:03.5","infinity"}'::timestamp[],
                         '{"2020-01-01 00:00:00","2021-01-01 00:00:00","2022-02-22 22:22:22","-infinity"}'::timestamp[]);
SELECT * FROM show_pairs('{"1 day","2 mons","3 years","4 hours"}'::interval[],
                         '{"1 minute","2 seconds","3 days 04:05:06","-1 day"}'::interval[]);
SELECT * FROM show_pairs('{10:00+02,11:00+02,12:00-05,13:30+00}'::timetz[],
                         '{20:00+01,21:00+01,22:15-03,23:59+00}'::timetz[]);
SELECT * FROM show_pairs('{00000000-0000-0000-0000-000000000000,11111111-1111-1111-1111-111111111111,
                           22222222-2222-2222-2222-222222222222,33333333-3333-3333-3333-333333333333}'::uuid[],
                         '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa,bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb,
                           cccccccc-cccc-cccc-cccc-cccccccccccc,dddddddd-dddd-dddd-dddd-dddddddddddd}'::uuid[]);
SELECT * FROM show_pairs('{x0,x1,x2,x3}'::name[], '{y0,y1,y2,y3}'::name[]);
SELECT * FROM show_pairs('{08:00:2b:01:02:00,08:00:2b:01:02:01,08:00:2b:01:02:02,08:00:2b:01:02:03}'::macaddr[],
                         '{08:00:2b:01:02:10,08:00:2b:01:02:11,08:00:2b:01:02:12,08:00:2b:01:02:13}'::macaddr[]);
SELECT * FROM show_pairs('{"(0,0)","(0,1)","(0,2)","(0,3)"}'::tid[], '{"(1,0)","(1,1)","(1,2)","(1,3)"}'::tid[]);
SELECT * FROM show_pairs('{"(0,0)","(1,1)","(2,2)","(3,3)"}'::point[], '{"(-1,0)","(-1,1)","(-1,2)","(-1,3)"}'::point[]);
-- the value array keeps its type, also when empty
SELECT pg_typeof(r.vals), r.vals
FROM array_intersect_gpu('{1}'::int4[], '{1.5}'::float8[], '{2}'::int4[], '{2.5}'::float8[]) r;
SELECT pg_typeof(r.vals), r.vals
FROM array_union_gpu('{1}'::int8[], '{1 day}'::interval[], '{2}'::int8[], '{2 days}'::interval[]) r;
DROP FUNCTION show_pairs(anyarray, anyarray);

--
-- Empty inputs: '{}' keys and values, never NULL.
--
SELECT op, r.keys, r.vals, r.keys IS NULL OR r.vals IS NULL AS has_null, pg_typeof(r.vals) AS vals_type
FROM (SELECT 'both empty' AS op, r.* FROM array_union_gpu('{}'::int4[], '{}'::float8[], '{}'::int4[], '{}'::float8[]) r
      UNION ALL
      SELECT 'a empty, union', r.* FROM array_union_gpu('{}'::int4[], '{}'::float8[], '{1,1}'::int4[], '{0.5,0.25}'::float8[]) r
      UNION ALL
      SELECT 'a empty, intersect', r.* FROM array_intersect_gpu('{}'::int4[], '{}'::float8[], '{1,1}'::int4[], '{0.5,0.25}'::float8[]) r
      UNION ALL
      SELECT 'a empty, symdiff', r.* FROM array_symdiff_gpu('{}'::int4[], '{}'::float8[], '{1,1}'::int4[], '{0.5,0.25}'::float8[]) r
      UNION ALL
      SELECT 'b empty, difference', r.* FROM array_difference_gpu('{1,1}'::int4[], '{0.5,0.25}'::float8[], '{}'::int4[], '{}'::float8[]) r
      UNION ALL
      SELECT 'b empty, symdiff', r.* FROM array_symdiff_gpu('{1,1}'::int4[], '{0.5,0.25}'::float8[], '{}'::int4[], '{}'::float8[]) r
      UNION ALL
      SELECT 'equal, difference', r.* FROM array_difference_gpu('{1,1}'::int4[], '{0.5,0.25}'::float8[], '{1,1}'::int4[], '{7,8}'::float8[]) r
     ) r;
SELECT r.keys, r.vals, pg_typeof(r.keys) AS keys_type
FROM array_symdiff_gpu('{}'::int8[], '{}'::int2[], '{}'::int8[], '{}'::int2[]) r;

--
-- NULL arguments (any of the four): the functions are STRICT, the result is NULL.
--
SELECT array_intersect_gpu(NULL::int4[], '{1}'::int4[], '{1}'::int4[], '{1}'::int4[]) IS NULL AS arg1,
       array_intersect_gpu('{1}'::int4[], NULL::int4[], '{1}'::int4[], '{1}'::int4[]) IS NULL AS arg2,
       array_intersect_gpu('{1}'::int4[], '{1}'::int4[], NULL::int4[], '{1}'::int4[]) IS NULL AS arg3,
       array_intersect_gpu('{1}'::int4[], '{1}'::int4[], '{1}'::int4[], NULL::int4[]) IS NULL AS arg4,
       array_union_gpu(NULL::int8[], '{1}'::int4[], '{1}'::int8[], '{1}'::int4[]) IS NULL AS union8,
       array_difference_gpu('{1}'::int4[], '{1}'::int4[], '{1}'::int4[], NULL::int4[]) IS NULL AS difference,
       array_symdiff_gpu('{1}'::int8[], NULL::int4[], '{1}'::int8[], '{1}'::int4[]) IS NULL AS symdiff8;
SELECT * FROM array_union_gpu(NULL::int4[], '{1}'::int4[], '{1}'::int4[], '{1}'::int4[]);

--
-- Lower bounds other than 1 (on keys or values): results start at 1.
--
SELECT r.keys, r.vals, array_dims(r.keys) AS keys_dims, array_dims(r.vals) AS vals_dims
FROM array_union_gpu('[5:7]={1,2,3}'::int4[], '[0:2]={10,20,30}'::int4[],
                     '[-3:-1]={2,3,4}'::int4[], '{200,300,400}'::int4[]) r;
SELECT r.keys, r.vals, array_dims(r.keys) AS keys_dims, array_dims(r.vals) AS vals_dims
FROM array_intersect_gpu('[5:7]={1,2,3}'::int8[], '[100:102]={10,20,30}'::int8[],
                         '{2,3,4}'::int8[], '[2:4]={200,300,400}'::int8[]) r;

--
-- Extremes and all-equal keys.
--
SELECT 'intersect' AS op, r.* FROM array_intersect_gpu('{-2147483648,-2147483648,2147483647}'::int4[], '{1,2,3}'::int4[],
                                                       '{-2147483648,2147483647,2147483647}'::int4[], '{4,5,6}'::int4[]) r
UNION ALL
SELECT 'union', r.* FROM array_union_gpu('{-2147483648,-2147483648,2147483647}'::int4[], '{1,2,3}'::int4[],
                                         '{-2147483648,2147483647,2147483647}'::int4[], '{4,5,6}'::int4[]) r
UNION ALL
SELECT 'symdiff', r.* FROM array_symdiff_gpu('{-2147483648,-2147483648,2147483647}'::int4[], '{1,2,3}'::int4[],
                                             '{-2147483648,2147483647,2147483647}'::int4[], '{4,5,6}'::int4[]) r;
SELECT 'difference' AS op, r.* FROM array_difference_gpu('{-9223372036854775808,0,9223372036854775807}'::int8[], '{1,2,3}'::int4[],
                                                         '{-9223372036854775808,4294967296}'::int8[], '{4,5}'::int4[]) r
UNION ALL
SELECT 'union', r.* FROM array_union_gpu('{-9223372036854775808,0,9223372036854775807}'::int8[], '{1,2,3}'::int4[],
                                         '{-9223372036854775808,4294967296}'::int8[], '{4,5}'::int4[]) r;
-- 5 copies of 7 against 3: intersection a's first 3, union all of a's,
-- difference and symdiff a's last 2; the other way round b's last 2.
SELECT 'intersect' AS op, r.* FROM array_intersect_gpu('{7,7,7,7,7}'::int4[], '{1,2,3,4,5}'::int4[], '{7,7,7}'::int4[], '{10,20,30}'::int4[]) r
UNION ALL
SELECT 'union', r.* FROM array_union_gpu('{7,7,7,7,7}'::int4[], '{1,2,3,4,5}'::int4[], '{7,7,7}'::int4[], '{10,20,30}'::int4[]) r
UNION ALL
SELECT 'difference', r.* FROM array_difference_gpu('{7,7,7,7,7}'::int4[], '{1,2,3,4,5}'::int4[], '{7,7,7}'::int4[], '{10,20,30}'::int4[]) r
UNION ALL
SELECT 'symdiff', r.* FROM array_symdiff_gpu('{7,7,7,7,7}'::int4[], '{1,2,3,4,5}'::int4[], '{7,7,7}'::int4[], '{10,20,30}'::int4[]) r
UNION ALL
SELECT 'union b, a', r.* FROM array_union_gpu('{7,7,7}'::int4[], '{10,20,30}'::int4[], '{7,7,7,7,7}'::int4[], '{1,2,3,4,5}'::int4[]) r
UNION ALL
SELECT 'symdiff b, a', r.* FROM array_symdiff_gpu('{7,7,7}'::int4[], '{10,20,30}'::int4[], '{7,7,7,7,7}'::int4[], '{1,2,3,4,5}'::int4[]) r;

--
-- Generated inputs against the reference: values are positions (a's
-- 0.., b's 1000000..) so every choice of copy shows.
--   runs:   key k has k % 7 copies in a and k % 5 in b
--   sparse: one side 40 times smaller
--   dense:  distinct keys, multiples of 2 against multiples of 3
--
CREATE TABLE gen (what text, a int4[], b int4[]);
INSERT INTO gen VALUES
  ('runs', array(SELECT k FROM generate_series(1, 300) k, generate_series(1, k % 7) ORDER BY k),
           array(SELECT k FROM generate_series(1, 300) k, generate_series(1, k % 5) ORDER BY k)),
  ('sparse', array(SELECT k FROM generate_series(1, 4000, 97) k, generate_series(1, k % 3 + 1) ORDER BY k),
             array(SELECT i / 2 FROM generate_series(0, 3999) i)),
  ('dense', array(SELECT generate_series(0, 5999, 2)), array(SELECT generate_series(0, 5999, 3)));
CREATE TABLE gen_pairs AS
SELECT what, a, b, array(SELECT generate_series(0, cardinality(a) - 1)) AS av,
       array(SELECT generate_series(1000000, 1000000 + cardinality(b) - 1)) AS bv
FROM gen;
SELECT what, op, cardinality(r.keys) AS n,
       r.keys::int8[] = (ref_setop_pairs(op, a, av, b, bv)).keys AS keys_ok,
       r.vals::int8[] = (ref_setop_pairs(op, a, av, b, bv)).vals AS vals_ok,
       (ref_setop_pairs(op, b, bv, a, av)).vals = CASE op
            WHEN 'intersect' THEN (array_intersect_gpu(b, bv, a, av)).vals
            WHEN 'union' THEN (array_union_gpu(b, bv, a, av)).vals
            WHEN 'difference' THEN (array_difference_gpu(b, bv, a, av)).vals
            WHEN 'symdiff' THEN (array_symdiff_gpu(b, bv, a, av)).vals END::int8[] AS swapped_ok
FROM gen_pairs,
     LATERAL (SELECT 'intersect', * FROM array_intersect_gpu(a, av, b, bv)
              UNION ALL SELECT 'union', * FROM array_union_gpu(a, av, b, bv)
              UNION ALL SELECT 'difference', * FROM array_difference_gpu(a, av, b, bv)
              UNION ALL SELECT 'symdiff', * FROM array_symdiff_gpu(a, av, b, bv)) r(op, keys, vals)
ORDER BY what, op;
-- int8 keys with int8 values give the same pairs (no rows)
SELECT what, op FROM gen_pairs,
     LATERAL (SELECT 'intersect', r4.keys, r4.vals, r8.keys, r8.vals
              FROM array_intersect_gpu(a, av, b, bv) r4, array_intersect_gpu(a::int8[], av::int8[], b::int8[], bv::int8[]) r8
              UNION ALL
              SELECT 'union', r4.keys, r4.vals, r8.keys, r8.vals
              FROM array_union_gpu(a, av, b, bv) r4, array_union_gpu(a::int8[], av::int8[], b::int8[], bv::int8[]) r8
              UNION ALL
              SELECT 'difference', r4.keys, r4.vals, r8.keys, r8.vals
              FROM array_difference_gpu(a, av, b, bv) r4, array_difference_gpu(a::int8[], av::int8[], b::int8[], bv::int8[]) r8
              UNION ALL
              SELECT 'symdiff', r4.keys, r4.vals, r8.keys, r8.vals
              FROM array_symdiff_gpu(a, av, b, bv) r4, array_symdiff_gpu(a::int8[], av::int8[], b::int8[], bv::int8[]) r8
             ) v(op, k4, v4, k8, v8)
WHERE k4::int8[] IS DISTINCT FROM k8 OR v4::int8[] IS DISTINCT FROM v8;
DROP TABLE gen, gen_pairs;

--
-- Large inputs (over 2^20 pairs in all, so the work is split in chunks),
-- checked against results built with generate_series.
-- a: 0..399999 twice each, values 0..799999;
-- b: 0..249999 three times each, values 1000000 + position.
--   intersection: 0..249999 twice, values 0..499999
--   union: key k < 250000: a's 2k, 2k+1, then b's third copy 1000000 + 3k + 2;
--          keys 250000..399999: 500000..799999
--   difference: 250000..399999 twice, values 500000..799999
--   symdiff: key k < 250000 once, value 1000000 + 3k + 2; then as difference
--
CREATE TABLE large AS
SELECT array(SELECT i / 2 FROM generate_series(0, 799999) i) AS a,
       array(SELECT generate_series(0, 799999)) AS av,
       array(SELECT i / 3 FROM generate_series(0, 749999) i) AS b,
       array(SELECT generate_series(1000000, 1749999)) AS bv;
SELECT r.keys = array(SELECT i / 2 FROM generate_series(0, 499999) i) AS keys_ok,
       r.vals = array(SELECT generate_series(0, 499999)) AS vals_ok
FROM large, array_intersect_gpu(a, av, b, bv) r;
SELECT r.keys = array(SELECT i / 3 FROM generate_series(0, 749999) i)
             || array(SELECT 250000 + i / 2 FROM generate_series(0, 299999) i) AS keys_ok,
       r.vals = array(SELECT v FROM generate_series(0, 249999) k,
                             LATERAL (VALUES (1, 2 * k), (2, 2 * k + 1), (3, 1000000 + 3 * k + 2)) x(o, v)
                      ORDER BY k, o)
             || array(SELECT generate_series(500000, 799999)) AS vals_ok
FROM large, array_union_gpu(a, av, b, bv) r;
SELECT r.keys = array(SELECT 250000 + i / 2 FROM generate_series(0, 299999) i) AS keys_ok,
       r.vals = array(SELECT generate_series(500000, 799999)) AS vals_ok
FROM large, array_difference_gpu(a, av, b, bv) r;
SELECT r.keys = array(SELECT generate_series(0, 249999))
             || array(SELECT 250000 + i / 2 FROM generate_series(0, 299999) i) AS keys_ok,
       r.vals = array(SELECT 1000000 + 3 * k + 2 FROM generate_series(0, 249999) k)
             || array(SELECT generate_series(500000, 799999)) AS vals_ok
FROM large, array_symdiff_gpu(a, av, b, bv) r;
-- int8 keys and values
SELECT r.vals = array(SELECT 1000000 + 3 * k + 2 FROM generate_series(0, 249999) k)::int8[]
             || array(SELECT generate_series(500000, 799999))::int8[] AS vals_ok
FROM large, array_symdiff_gpu(a::int8[], av::int8[], b::int8[], bv::int8[]) r;
DROP TABLE large;
-- One long run across the chunk boundary: a = 1, 600000 x 5, 7;
-- b = 550000 x 5, 6.  Values: a's positions 0..600001, b's 1000000 + position.
--   intersection: 550000 x 5 with values 1..550000
--   union: a whole, then b's 6 (1550000) before a's 7
--   difference: 1, the last 50000 fives (550001..600000), 7
--   symdiff: as difference with 6 (1550000) before 7
CREATE TABLE large AS
SELECT '{1}' || array_fill(5, ARRAY[600000]) || 7 AS a,
       array(SELECT generate_series(0, 600001)) AS av,
       array_fill(5, ARRAY[550000]) || 6 AS b,
       array(SELECT generate_series(1000000, 1550000)) AS bv;
SELECT r.keys = array_fill(5, ARRAY[550000]) AS keys_ok,
       r.vals = array(SELECT generate_series(1, 550000)) AS vals_ok
FROM large, array_intersect_gpu(a, av, b, bv) r;
SELECT r.keys = '{1}' || array_fill(5, ARRAY[600000]) || '{6,7}'::int4[] AS keys_ok,
       r.vals = array(SELECT generate_series(0, 600000)) || '{1550000,600001}'::int4[] AS vals_ok
FROM large, array_union_gpu(a, av, b, bv) r;
SELECT r.keys = '{1}' || array_fill(5, ARRAY[50000]) || 7 AS keys_ok,
       r.vals = 0 || array(SELECT generate_series(550001, 600001)) AS vals_ok
FROM large, array_difference_gpu(a, av, b, bv) r;
SELECT r.keys = '{1}' || array_fill(5, ARRAY[50000]) || '{6,7}'::int4[] AS keys_ok,
       r.vals = 0 || array(SELECT generate_series(550001, 600000)) || '{1550000,600001}'::int4[] AS vals_ok
FROM large, array_symdiff_gpu(a, av, b, bv) r;
SELECT r.keys = ('{1}' || array_fill(5, ARRAY[50000]) || '{6,7}'::int4[])::int8[] AS keys_ok,
       r.vals = 0 || array(SELECT generate_series(550001, 600000)) || '{1550000,600001}'::int4[] AS vals_ok
FROM large, array_symdiff_gpu(a::int8[], av, b::int8[], bv) r;
DROP TABLE large;

--
-- Keys and values built element by element in PL/pgSQL (expanded arrays).
--
CREATE FUNCTION expanded_pairs() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  a int8[] := '{}';
  b int8[] := '{}';
  av interval[] := '{}';
  bv interval[] := '{}';
  ai int4[] := '{}';
  bi int4[] := '{}';
BEGIN
  FOR i IN 1..4 LOOP
    a[i] := (ARRAY[1,2,2,3])[i];
    av[i] := make_interval(days => i);
    ai[i] := i;
    b[i] := (ARRAY[2,3,3,4])[i];
    bv[i] := make_interval(hours => i);
    bi[i] := 10 * i;
  END LOOP;
  RETURN NEXT 'union ' || (array_union_gpu(a, av, b, bv))::text;
  RETURN NEXT 'symdiff ' || (array_symdiff_gpu(a, ai, b, bi))::text;
  RETURN NEXT 'intersect ' || (array_intersect_gpu(a, av, b, bv))::text;
END
$$;
SELECT * FROM expanded_pairs();
DROP FUNCTION expanded_pairs();
