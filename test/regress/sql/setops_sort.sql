--
-- setops_sort: array_sort_gpu (ascending, duplicates kept) and
-- array_distinct_gpu (ascending, one copy of each key), int4[] and int8[].
--

-- small fixed inputs (int4), each with the expected result beside it
SELECT what, a, array_sort_gpu(a) AS sorted, array_distinct_gpu(a) AS distinct_keys
FROM (VALUES ('random-looking', '{42,-7,13,0,99,-100,5,13,8,1}'::int4[]),
             ('duplicates', '{3,1,3,3,2,1,3,2,1,1}'),
             ('all equal', '{5,5,5,5}'),
             ('already sorted', '{-3,-1,0,0,2,4,8}'),
             ('reverse sorted', '{9,8,7,6,5,4,3,2,1,0,-1}'),
             ('extremes', '{2147483647,0,-2147483648,-1,2147483647,1,-2147483648}'),
             ('single', '{77}'),
             ('two, swapped', '{2,1}'),
             ('empty', '{}')) v(what, a);
-- the same on int8, with keys beyond 32 bits
SELECT what, a, array_sort_gpu(a) AS sorted, array_distinct_gpu(a) AS distinct_keys
FROM (VALUES ('random-looking', '{42,-7,13,0,99,-100,5,13,8,1}'::int8[]),
             ('beyond 32 bits', '{4294967296,1,-4294967296,4294967297,0,-1,4294967296}'),
             ('extremes', '{9223372036854775807,0,-9223372036854775808,-1,9223372036854775807,-9223372036854775808}'),
             ('reverse sorted', '{5000000000,4000000000,3000000000,2000000000,1000000000}'),
             ('single', '{-77}'),
             ('empty', '{}')) v(what, a);
-- result types, and empty results are '{}', never NULL
SELECT pg_typeof(array_sort_gpu('{1}'::int4[])) AS sort4, pg_typeof(array_sort_gpu('{1}'::int8[])) AS sort8,
       pg_typeof(array_distinct_gpu('{1}'::int4[])) AS distinct4, pg_typeof(array_distinct_gpu('{1}'::int8[])) AS distinct8,
       array_sort_gpu('{}'::int4[]) IS NULL AS sort_empty_is_null,
       array_distinct_gpu('{}'::int8[]) IS NULL AS distinct_empty_is_null;
-- NULL argument: STRICT, NULL result
SELECT array_sort_gpu(NULL::int4[]) IS NULL AS s4, array_sort_gpu(NULL::int8[]) IS NULL AS s8,
       array_distinct_gpu(NULL::int4[]) IS NULL AS d4, array_distinct_gpu(NULL::int8[]) IS NULL AS d8;
-- lower bounds other than 1: the result starts at 1
SELECT array_sort_gpu('[0:4]={5,3,1,3,2}'::int4[]) AS sorted,
       array_dims(array_sort_gpu('[0:4]={5,3,1,3,2}'::int4[])) AS sorted_dims,
       array_distinct_gpu('[-5:-1]={5,3,1,3,2}'::int8[]) AS distinct_keys,
       array_dims(array_distinct_gpu('[-5:-1]={5,3,1,3,2}'::int8[])) AS distinct_dims;
-- the input is not modified
SELECT a, array_sort_gpu(a) AS sorted, a AS a_after
FROM (VALUES ('{3,1,2}'::int4[])) v(a);

--
-- Generated inputs checked against ORDER BY / DISTINCT: pseudo-random
-- keys (a linear congruential sequence) of both signs, 200000 of them,
-- plus 70-element ones (just above the insertion-sort size).
--
CREATE TABLE sort_input AS
SELECT n, array(SELECT ((i * 1103515245 + 12345) % 2147483648 - 1073741824)::int4
                FROM generate_series(1, n::int8) i) AS a4,
          array(SELECT ((i * 1103515245 + 12345) % 2147483648 - 1073741824) * 4294967311 + i % 1000
                FROM generate_series(1, n::int8) i) AS a8,
          array(SELECT (i * 7919 % 1000)::int4 FROM generate_series(1, n) i) AS dups4
FROM (VALUES (70), (200000)) v(n);
SELECT n,
       array_sort_gpu(a4) = array(SELECT x FROM unnest(a4) x ORDER BY x) AS sort4_ok,
       array_distinct_gpu(a4) = array(SELECT DISTINCT x FROM unnest(a4) x ORDER BY x) AS distinct4_ok,
       array_sort_gpu(a8) = array(SELECT x FROM unnest(a8) x ORDER BY x) AS sort8_ok,
       array_distinct_gpu(a8) = array(SELECT DISTINCT x FROM unnest(a8) x ORDER BY x) AS distinct8_ok,
       array_sort_gpu(dups4) = array(SELECT x FROM unnest(dups4) x ORDER BY x) AS sort_dups_ok,
       array_distinct_gpu(dups4) = array(SELECT DISTINCT x FROM unnest(dups4) x ORDER BY x) AS distinct_dups_ok,
       cardinality(array_distinct_gpu(dups4)) AS n_distinct_dups
FROM sort_input ORDER BY n;
-- keys that share their high or low bytes (5000 each), and reverse-sorted
-- and already sorted inputs of 100000
SELECT array_sort_gpu(a) = array(SELECT x FROM unnest(a) x ORDER BY x) AS high_bytes_equal,
       array_sort_gpu(b) = array(SELECT x FROM unnest(b) x ORDER BY x) AS low_bytes_equal,
       array_sort_gpu(c) = array(SELECT generate_series(-50000, 49999)) AS reverse_ok,
       array_sort_gpu(array_sort_gpu(c)) = array(SELECT generate_series(-50000, 49999)) AS sorted_ok,
       array_distinct_gpu(c) = array_sort_gpu(c) AS distinct_of_distinct_keys
FROM (SELECT array(SELECT (1000000 + i % 251)::int4 FROM generate_series(1, 5000) i) AS a,
             array(SELECT (i % 97 * 16777216)::int4 FROM generate_series(1, 5000) i) AS b,
             array(SELECT generate_series(49999, -50000, -1)) AS c) s;
SELECT array_sort_gpu(a) = array(SELECT x FROM unnest(a) x ORDER BY x) AS high_bytes_equal8,
       array_sort_gpu(b) = array(SELECT x FROM unnest(b) x ORDER BY x) AS low_bytes_equal8
FROM (SELECT array(SELECT 7000000000000 + i % 251 FROM generate_series(1, 5000::int8) i) AS a,
             array(SELECT i % 97 * 72057594037927936 - 3458764513820540928 FROM generate_series(1, 5000::int8) i) AS b) s;
DROP TABLE sort_input;
-- sort then operate: the way in for unsorted arrays
SELECT array_intersect_gpu(array_sort_gpu('{3,1,2,3,3}'::int4[]), array_sort_gpu('{3,3,9,1}'::int4[])) AS intersection,
       array_union_gpu(array_distinct_gpu('{3,1,2,3,3}'::int8[]), array_distinct_gpu('{3,3,9,1}'::int8[])) AS union_of_distinct;

-- arrays built element by element in PL/pgSQL (expanded arrays)
CREATE FUNCTION expanded_sort() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  a int4[] := '{}';
  b int8[] := '{}';
BEGIN
  FOR i IN 1..10 LOOP
    a[i] := (ARRAY[5,3,9,1,3,7,5,5,0,-2])[i];
    b[i] := a[i] * 10000000000;
  END LOOP;
  RETURN NEXT array_sort_gpu(a)::text;
  RETURN NEXT array_distinct_gpu(a)::text;
  RETURN NEXT array_sort_gpu(b)::text;
  RETURN NEXT array_distinct_gpu(b)::text;
END
$$;
SELECT * FROM expanded_sort();
DROP FUNCTION expanded_sort();
