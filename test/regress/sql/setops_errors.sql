--
-- setops_errors: every error the extension raises, with DETAIL and HINT.
-- The SQLSTATEs are listed at the end (through a PL/pgSQL handler).
--

--
-- Unsorted arguments: the message names the function, the argument and
-- the 1-based position of the first key smaller than its predecessor.
--
SELECT array_intersect_gpu('{1,3,2}'::int4[], '{1,2,3}'::int4[]);
SELECT array_intersect_gpu('{1,2,3}'::int4[], '{5,4}'::int4[]);
SELECT array_union_gpu('{2,1}'::int4[], '{}'::int4[]);
SELECT array_difference_gpu('{}'::int4[], '{0,-2147483648}'::int4[]);
SELECT array_symdiff_gpu('{-1,-2,-3}'::int4[], '{7}'::int4[]);
-- both unsorted: argument 1 is reported
SELECT array_intersect_gpu('{3,2}'::int4[], '{2,1}'::int4[]);
-- int8, with keys beyond 32 bits in the DETAIL
SELECT array_intersect_gpu('{4294967297,4294967296}'::int8[], '{1}'::int8[]);
SELECT array_union_gpu('{1}'::int8[], '{9223372036854775807,-9223372036854775808}'::int8[]);
SELECT array_difference_gpu('{1,1,0}'::int8[], '{1}'::int8[]);
SELECT array_symdiff_gpu('{1}'::int8[], '{-5,-6}'::int8[]);
-- far into a long array, and at its very end
SELECT array_intersect_gpu(array(SELECT generate_series(1, 999)) || 0, '{1}'::int4[]);
SELECT array_union_gpu('{1}'::int8[], array(SELECT generate_series(1, 100)::int8) || 99::int8);
SELECT array_symdiff_gpu(array(SELECT generate_series(1, 70)) || 69 || 70, '{}'::int4[]);
-- pairs: the keys are arguments 1 and 3
SELECT array_intersect_gpu('{2,1}'::int4[], '{1,2}'::int4[], '{1}'::int4[], '{1}'::int4[]);
SELECT array_union_gpu('{1}'::int8[], '{1}'::int4[], '{3,2,1}'::int8[], '{1,2,3}'::int4[]);
SELECT array_difference_gpu('{1,1,0}'::int4[], '{1.5,2.5,3.5}'::float8[], '{}'::int4[], '{}'::float8[]);
SELECT array_symdiff_gpu('{}'::int8[], '{}'::int2[], '{10,9}'::int8[], '{1,2}'::int2[]);
-- aggregates: the aggregate is named
SELECT array_intersect_agg(a) FROM (VALUES ('{1,2,3}'::int4[]), ('{1,3,2}')) v(a);
SELECT array_union_agg(a) FROM (VALUES ('{1,2,3}'::int4[]), ('{2,1}')) v(a);
SELECT array_merge_agg(a) FROM (VALUES ('{5,4}'::int4[])) v(a);
SELECT array_intersect_agg(a) FROM (VALUES ('{1}'::int8[]), ('{8,7}')) v(a);
SELECT array_union_agg(a) FROM (VALUES ('{1}'::int8[]), (NULL), ('{4294967296,1}')) v(a);
SELECT array_merge_agg(a) FROM (VALUES ('{1}'::int8[]), ('{3,2}')) v(a);
-- every row is checked, even once the intersection is empty
SELECT array_intersect_agg(a ORDER BY id) FROM (VALUES (1, '{1}'::int4[]), (2, '{}'), (3, '{2,1}')) v(id, a);
-- arrays built element by element in PL/pgSQL (expanded arrays, passed
-- as they are to a function called in an assignment)
DO $$
DECLARE
  a int4[] := '{}';
  r int4[];
BEGIN
  FOR i IN 1..5 LOOP a[i] := 10 - i; END LOOP;
  r := array_intersect_gpu('{1}'::int4[], a);
END $$;
DO $$
DECLARE
  a int8[] := '{}';
  r int8[];
BEGIN
  FOR i IN 1..5 LOOP a[i] := i; END LOOP;
  a[5] := 0;
  r := array_union_gpu(a, '{}'::int8[]);
END $$;
DO $$
DECLARE
  k int4[] := '{}';
  v float8[] := '{}';
  r record;
BEGIN
  FOR i IN 1..3 LOOP k[i] := 3 - i; v[i] := i; END LOOP;
  r := array_symdiff_gpu('{1}'::int4[], '{1}'::float8[], k, v);
END $$;
--
-- NULL elements (SQLSTATE 22004, null_value_not_allowed): the message
-- names the argument, the DETAIL the 1-based position.
--
SELECT array_intersect_gpu('{1,NULL}'::int4[], '{1}'::int4[]);
SELECT array_union_gpu('{1}'::int4[], '{1,2,3,4,5,6,7,8,9,NULL,11}'::int4[]);
SELECT array_difference_gpu('{NULL,1}'::int8[], '{1}'::int8[]);
SELECT array_symdiff_gpu('{1}'::int8[], '{NULL}'::int8[]);
-- a NULL reported before the other argument's order is checked
SELECT array_intersect_gpu('{2,1}'::int4[], '{1,NULL}'::int4[]);
-- pairs: in keys and in values
SELECT array_intersect_gpu('{1,NULL}'::int4[], '{1,2}'::int4[], '{1}'::int4[], '{1}'::int4[]);
SELECT array_union_gpu('{1,2}'::int4[], '{1,NULL}'::int4[], '{1}'::int4[], '{1}'::int4[]);
SELECT array_difference_gpu('{1}'::int8[], '{1}'::int4[], '{NULL}'::int8[], '{1}'::int4[]);
SELECT array_symdiff_gpu('{1}'::int8[], '{1}'::float8[], '{1,2,3}'::int8[], '{1.5,2.5,NULL}'::float8[]);
-- sort, distinct and the aggregates
SELECT array_sort_gpu('{3,NULL,1}'::int4[]);
SELECT array_distinct_gpu('{NULL}'::int8[]);
SELECT array_intersect_agg(a) FROM (VALUES ('{1}'::int4[]), ('{1,NULL}')) v(a);
SELECT array_union_agg(a) FROM (VALUES ('{NULL,1}'::int8[])) v(a);
SELECT array_merge_agg(a) FROM (VALUES ('{1}'::int4[]), ('{1,2,NULL}')) v(a);
-- expanded arrays
DO $$
DECLARE
  a int4[] := '{}';
  r int4[];
BEGIN
  a[1] := 1; a[2] := NULL; a[3] := 3;
  r := array_sort_gpu(a);
END $$;
DO $$
DECLARE
  k int8[] := '{}';
  v interval[] := '{}';
  r record;
BEGIN
  k[1] := 1; k[2] := 2;
  v[1] := '1 day'; v[2] := NULL;
  r := array_union_gpu(k, '{1 hour,2 hours}'::interval[], k, v);
END $$;
-- the SQLSTATE, caught
DO $$
BEGIN
  PERFORM array_intersect_gpu('{1,NULL}'::int4[], '{1}'::int4[]);
EXCEPTION WHEN null_value_not_allowed THEN
  RAISE NOTICE 'caught %: %', SQLSTATE, SQLERRM;
END $$;

--
-- Multi-dimensional arrays.
--
SELECT array_intersect_gpu('{{1,2},{3,4}}'::int4[], '{1}'::int4[]);
SELECT array_union_gpu('{1}'::int8[], '{{{1}},{{2}}}'::int8[]);
SELECT array_sort_gpu('{{2,1}}'::int4[]);
SELECT array_distinct_gpu('{{2},{1}}'::int8[]);
SELECT array_symdiff_gpu('{1,2}'::int4[], '{{1,2}}'::int4[], '{1}'::int4[], '{1}'::int4[]);
SELECT array_difference_gpu('{1}'::int4[], '{1}'::int4[], '{1,2}'::int4[], '{{1},{2}}'::int4[]);
SELECT array_union_agg(a) FROM (VALUES ('{1}'::int4[]), ('{{1,2},{3,4}}')) v(a);

--
-- Pairs: value arrays must match their keys in length, hold a fixed-width
-- type, and both have the same type.
--
SELECT array_intersect_gpu('{1,2}'::int4[], '{1,2,3}'::int4[], '{1}'::int4[], '{1}'::int4[]);
SELECT array_union_gpu('{1,2}'::int8[], '{1,2}'::int4[], '{1,2,3}'::int8[], '{1}'::int4[]);
SELECT array_difference_gpu('{}'::int4[], '{1.5}'::float8[], '{}'::int4[], '{}'::float8[]);
SELECT array_symdiff_gpu('{1}'::int4[], '{one}'::text[], '{1}'::int4[], '{uno}'::text[]);
SELECT array_intersect_gpu('{1}'::int8[], '{1.5}'::numeric[], '{1}'::int8[], '{2.5}'::numeric[]);
-- a_vals and b_vals of different types: no such function
SELECT array_union_gpu('{1}'::int4[], '{1}'::int4[], '{1}'::int4[], '{1}'::int8[]);
SELECT array_intersect_gpu('{1}'::int8[], '{1}'::float8[], '{1}'::int8[], '{a}'::text[]);

--
-- Key types other than int4[] and int8[].
--
SELECT array_intersect_gpu('{1}'::text[], '{1}'::text[]);
SELECT array_union_gpu('{1.5}'::numeric[], '{2.5}'::numeric[]);
SELECT array_sort_gpu('{1.5}'::float8[]);
SELECT array_union_agg(a) FROM (VALUES ('{1}'::text[])) v(a);
-- int2[] could become int4[] or int8[]: ambiguous, cast it
SELECT array_intersect_gpu('{1}'::int2[], '{1}'::int2[]);

--
-- Settings: invalid values, and the reserved prefix.  (The library is
-- loaded by the calls above, so its settings are defined.)
--
SELECT current_setting('setops.device') AS device_before,
       current_setting('setops.gpu_min_elements') AS min_elements_before \gset
SET setops.device = 'bogus';
SET setops.device = '';
SELECT set_config('setops.device', 'fast', false);
SET setops.gpu_min_elements = -1;
SET setops.gpu_min_elements = 'many';
SET setops.gpu_min_elements = 2147483648;
SET setops.nonexistent = 1;
SELECT set_config('setops.other', 'x', false);
-- the settings kept their values
SELECT current_setting('setops.device') = :'device_before' AS device_kept,
       current_setting('setops.gpu_min_elements') = :'min_elements_before' AS min_elements_kept;

--
-- The SQLSTATE of each kind of error.
--
CREATE FUNCTION sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE;
END
$$;
SELECT what, sqlstate_of(query) AS sqlstate
FROM (VALUES
  ('unsorted',            $q$SELECT array_intersect_gpu('{2,1}'::int4[], '{1}'::int4[])$q$),
  ('unsorted, pairs',     $q$SELECT array_union_gpu('{1}'::int8[], '{1}'::int4[], '{2,1}'::int8[], '{1,2}'::int4[])$q$),
  ('unsorted, aggregate', $q$SELECT array_merge_agg(a) FROM (VALUES ('{2,1}'::int4[])) v(a)$q$),
  ('NULL element',        $q$SELECT array_symdiff_gpu('{1}'::int8[], '{NULL}'::int8[])$q$),
  ('NULL value',          $q$SELECT array_union_gpu('{1}'::int4[], '{NULL}'::int4[], '{1}'::int4[], '{1}'::int4[])$q$),
  ('NULL in sort',        $q$SELECT array_sort_gpu('{NULL}'::int4[])$q$),
  ('multi-dimensional',   $q$SELECT array_intersect_gpu('{{1}}'::int4[], '{1}'::int4[])$q$),
  ('length mismatch',     $q$SELECT array_intersect_gpu('{1}'::int4[], '{}'::int4[], '{1}'::int4[], '{1}'::int4[])$q$),
  ('not fixed-width',     $q$SELECT array_intersect_gpu('{1}'::int4[], '{a}'::text[], '{1}'::int4[], '{b}'::text[])$q$),
  ('mixed value types',   $q$SELECT array_intersect_gpu('{1}'::int4[], '{1}'::int4[], '{1}'::int4[], '{1}'::int8[])$q$),
  ('bad setting value',   $q$SET setops.device = 'bogus'$q$),
  ('setting out of range', $q$SET setops.gpu_min_elements = -1$q$),
  ('reserved prefix',     $q$SET setops.nonexistent = 1$q$)) v(what, query);
DROP FUNCTION sqlstate_of(text);
