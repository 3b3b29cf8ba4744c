--
-- setops_agg: array_intersect_agg, array_union_agg, array_merge_agg over
-- int4[] and int8[] rows.  Per key, with c1..cn copies in the rows:
-- intersection min(c1..cn), union max(c1..cn), merge c1 + ... + cn.
-- NULL rows are skipped; no (non-NULL) rows give NULL.
--
CREATE TABLE agg_rows (id int, grp text, a int4[]);
INSERT INTO agg_rows VALUES
  (1, 'x', '{1,2,2,3,3,3}'),
  (2, 'x', '{2,2,3,3,4}'),
  (3, 'x', '{2,3,3,3,3}'),
  (4, 'y', '{5,5,6}'),
  (5, 'y', NULL),
  (6, 'y', '{5,6,6,7}'),
  (7, 'z', NULL),
  (8, 'e', '{}'),
  (9, 'e', '{1,1}');

-- GROUP BY:
--   x: intersection {2,3,3}, union {1,2,2,3,3,3,3,4}, merge 1, 2 x5, 3 x9, 4
--   y (NULL row skipped): {5,6}, {5,5,6,6,7}, {5,5,5,6,6,6,7}
--   z (only a NULL row): NULL
--   e (an empty row): {}, {1,1}, {1,1}
SELECT grp, array_intersect_agg(a) AS intersection, array_union_agg(a) AS "union",
       array_merge_agg(a) AS merge
FROM agg_rows GROUP BY grp ORDER BY grp;
SELECT grp, array_intersect_agg(a::int8[]) AS intersection, array_union_agg(a::int8[]) AS "union",
       array_merge_agg(a::int8[]) AS merge, pg_typeof(array_merge_agg(a::int8[])) AS result_type
FROM agg_rows GROUP BY grp ORDER BY grp;
-- all rows: intersection {} (x and y share no key), union takes 1 twice from e
SELECT array_intersect_agg(a) AS intersection, array_union_agg(a) AS "union",
       array_merge_agg(a) AS merge, pg_typeof(array_merge_agg(a)) AS result_type
FROM agg_rows;
SELECT array_intersect_agg(a::int8[]) AS intersection, array_union_agg(a::int8[]) AS "union",
       array_merge_agg(a::int8[]) AS merge
FROM agg_rows;
-- no rows, and only NULL rows: NULL
SELECT array_intersect_agg(a) IS NULL AS intersection, array_union_agg(a) IS NULL AS "union",
       array_merge_agg(a) IS NULL AS merge,
       array_intersect_agg(a::int8[]) IS NULL AS intersection8, array_union_agg(a::int8[]) IS NULL AS union8,
       array_merge_agg(a::int8[]) IS NULL AS merge8
FROM agg_rows WHERE false;
SELECT array_intersect_agg(a) IS NULL AS intersection, array_union_agg(a) IS NULL AS "union",
       array_merge_agg(a) IS NULL AS merge,
       array_intersect_agg(a::int8[]) IS NULL AS intersection8, array_union_agg(a::int8[]) IS NULL AS union8,
       array_merge_agg(a::int8[]) IS NULL AS merge8
FROM agg_rows WHERE a IS NULL;
-- only empty rows: '{}', not NULL
SELECT array_intersect_agg(a) AS intersection, array_union_agg(a) AS "union",
       array_merge_agg(a) AS merge, array_merge_agg(a) IS NULL AS merge_is_null
FROM agg_rows WHERE a = '{}';
-- a single row comes back as it is; the empty row first does not matter
SELECT array_intersect_agg(a) AS intersection, array_union_agg(a) AS "union", array_merge_agg(a) AS merge
FROM agg_rows WHERE id = 1;
SELECT array_intersect_agg(a ORDER BY id) AS intersection, array_union_agg(a ORDER BY id) AS "union",
       array_merge_agg(a ORDER BY id) AS merge
FROM agg_rows WHERE id IN (8, 1);
-- row order does not matter
SELECT array_intersect_agg(a ORDER BY id DESC) = array_intersect_agg(a ORDER BY id) AS intersection,
       array_union_agg(a ORDER BY id DESC) = array_union_agg(a ORDER BY id) AS "union",
       array_merge_agg(a ORDER BY id DESC) = array_merge_agg(a ORDER BY id) AS merge
FROM agg_rows GROUP BY grp HAVING grp = 'x';
-- FILTER
SELECT array_union_agg(a) FILTER (WHERE id <> 3) AS union_without_3,
       array_merge_agg(a) FILTER (WHERE grp = 'y') AS merge_y
FROM agg_rows;
-- extremes
SELECT array_intersect_agg(a) AS intersection, array_union_agg(a) AS "union", array_merge_agg(a) AS merge
FROM (VALUES ('{-2147483648,-2147483648,0,2147483647}'::int4[]),
             ('{-2147483648,2147483647,2147483647}'::int4[])) v(a);
SELECT array_intersect_agg(a) AS intersection, array_union_agg(a) AS "union", array_merge_agg(a) AS merge
FROM (VALUES ('{-9223372036854775808,4294967296,9223372036854775807}'::int8[]),
             ('{-9223372036854775808,-9223372036854775808,0,4294967296}'::int8[])) v(a);

--
-- Window use: running aggregates (OVER (ORDER BY id)); a NULL row keeps
-- the running value.
--
SELECT id, a,
       array_intersect_agg(a) OVER w AS intersection,
       array_union_agg(a) OVER w AS "union",
       array_merge_agg(a) OVER w AS merge
FROM agg_rows WHERE id <= 6
WINDOW w AS (ORDER BY id) ORDER BY id;
SELECT id, a,
       array_intersect_agg(a::int8[]) OVER w AS intersection,
       array_union_agg(a::int8[]) OVER w AS "union",
       array_merge_agg(a::int8[]) OVER w AS merge
FROM agg_rows WHERE id <= 6
WINDOW w AS (ORDER BY id) ORDER BY id;
-- partitions and a moving frame (this row and the one before)
SELECT id, grp, a,
       array_union_agg(a) OVER (PARTITION BY grp ORDER BY id) AS union_in_grp,
       array_intersect_agg(a) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS intersection_of_two,
       array_merge_agg(a) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS merge_of_two
FROM agg_rows ORDER BY id;

--
-- A generated table against a reference built from per-row key counts.
-- 600 rows in 4 groups; keys 0..19 are in every row (1 to 4 copies),
-- keys 20..59 in some (0 to 3 copies); some rows are NULL, group 3 holds
-- empty rows.
--
CREATE TABLE agg_gen AS
SELECT id, id % 4 AS grp,
       CASE WHEN id % 37 = 0 THEN NULL
            WHEN id % 4 = 3 AND id % 50 = 3 THEN '{}'
            ELSE array(SELECT k FROM generate_series(0, 59) k,
                              generate_series(1, CASE WHEN k < 20 THEN 1 + (id * 7919 + k * 6007 + id * k * 31) % 1009 % 4
                                                      ELSE (id * 7907 + k * 6011 + id * k * 37) % 1013 % 4 END)
                       ORDER BY k)::int4[] END AS a
FROM generate_series(1, 600) id;
CREATE TABLE agg_ref AS
WITH nrows AS (SELECT grp, count(*) AS nrows FROM agg_gen WHERE a IS NOT NULL GROUP BY grp),
     per_row AS (SELECT grp, id, k, count(*) AS c FROM agg_gen, unnest(a) k GROUP BY grp, id, k),
     per_key AS (SELECT grp, k,
                        CASE WHEN count(*) = max(nrows) THEN min(c) ELSE 0 END AS c_min,
                        max(c) AS c_max, sum(c) AS c_sum
                 FROM per_row JOIN nrows USING (grp) GROUP BY grp, k)
SELECT grp,
       array(SELECT k FROM per_key p, generate_series(1, p.c_min) WHERE p.grp = g.grp ORDER BY k)::int4[] AS intersection,
       array(SELECT k FROM per_key p, generate_series(1, p.c_max) WHERE p.grp = g.grp ORDER BY k)::int4[] AS "union",
       array(SELECT k FROM per_key p, generate_series(1, p.c_sum) WHERE p.grp = g.grp ORDER BY k)::int4[] AS merge
FROM nrows g;
SELECT grp, count(a) AS rows, cardinality(r.intersection) AS n_intersection,
       cardinality(r."union") AS n_union, cardinality(r.merge) AS n_merge,
       array_intersect_agg(a) = r.intersection AS intersection_ok,
       array_union_agg(a) = r."union" AS union_ok,
       array_merge_agg(a) = r.merge AS merge_ok,
       array_intersect_agg(a::int8[]) = r.intersection::int8[] AS intersection8_ok,
       array_union_agg(a::int8[]) = r."union"::int8[] AS union8_ok,
       array_merge_agg(a::int8[]) = r.merge::int8[] AS merge8_ok
FROM agg_gen JOIN agg_ref r USING (grp)
GROUP BY grp, r.intersection, r."union", r.merge ORDER BY grp;
-- the whole table: the union of the group unions, the merge of the merges
SELECT array_union_agg(a) = (SELECT array_union_agg("union") FROM agg_ref) AS union_ok,
       array_merge_agg(a) = (SELECT array_merge_agg(merge) FROM agg_ref) AS merge_ok,
       array_intersect_agg(a) AS intersection
FROM agg_gen;
-- running union against the union of the rows so far
SELECT count(*) AS rows_checked, bool_and(running = upto) AS running_union_ok
FROM (SELECT id, array_union_agg(a) OVER (ORDER BY id) AS running,
             (SELECT array_union_agg(g2.a) FROM agg_gen g2 WHERE g2.id <= g.id) AS upto
      FROM agg_gen g WHERE id <= 120) s;

--
-- Parallel aggregation (partial states flattened by the workers and
-- combined by the leader) gives the same results.
--
CREATE TABLE agg_big AS
SELECT id, id % 3 AS grp,
       array(SELECT k FROM generate_series(0, 39) k,
                    generate_series(1, CASE WHEN k < 10 THEN 1 + (id * 7919 + k * 6007 + id * k * 31) % 1009 % 3
                                            ELSE (id * 7907 + k * 6011 + id * k * 37) % 1013 % 3 END)
             ORDER BY k)::int4[] AS a
FROM generate_series(1, 20000) id;
-- reference: per key, the min, max and sum of its copies over the rows
CREATE TABLE agg_big_ref AS
WITH nrows AS (SELECT grp, count(*) AS nrows FROM agg_big GROUP BY grp),
     per_row AS (SELECT grp, id, k, count(*) AS c FROM agg_big, unnest(a) k GROUP BY grp, id, k),
     per_key AS (SELECT grp, k,
                        CASE WHEN count(*) = max(nrows) THEN min(c) ELSE 0 END AS c_min,
                        max(c) AS c_max, sum(c) AS c_sum
                 FROM per_row JOIN nrows USING (grp) GROUP BY grp, k)
SELECT grp,
       array(SELECT k FROM per_key p, generate_series(1, p.c_min) WHERE p.grp = g.grp ORDER BY k)::int4[] AS i,
       array(SELECT k FROM per_key p, generate_series(1, p.c_max) WHERE p.grp = g.grp ORDER BY k)::int4[] AS u,
       array(SELECT k FROM per_key p, generate_series(1, p.c_sum) WHERE p.grp = g.grp ORDER BY k)::int4[] AS m
FROM nrows g;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF)
SELECT grp, array_intersect_agg(a), array_union_agg(a), array_merge_agg(a) FROM agg_big GROUP BY grp;
SELECT p.grp, p.i = r.i AS intersection_ok, p.u = r.u AS union_ok, p.m = r.m AS merge_ok,
       p.i8 = r.i::int8[] AS intersection8_ok, p.u8 = r.u::int8[] AS union8_ok, p.m8 = r.m::int8[] AS merge8_ok,
       p.i AS intersection, p.u AS "union", cardinality(p.m) AS n_merge
FROM (SELECT grp, array_intersect_agg(a) AS i, array_union_agg(a) AS u, array_merge_agg(a) AS m,
             array_intersect_agg(a::int8[]) AS i8, array_union_agg(a::int8[]) AS u8,
             array_merge_agg(a::int8[]) AS m8
      FROM agg_big GROUP BY grp) p
JOIN agg_big_ref r USING (grp) ORDER BY grp;
-- without GROUP BY: keys 0..9 are in every row
EXPLAIN (COSTS OFF)
SELECT array_intersect_agg(a), array_union_agg(a), array_merge_agg(a) FROM agg_big;
SELECT array_intersect_agg(a) AS intersection, array_union_agg(a) AS "union",
       cardinality(array_merge_agg(a)) AS n_merge, (SELECT sum(cardinality(a)) FROM agg_big) AS n_elements
FROM agg_big;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET enable_hashagg;

--
-- The state is a value of type setops_agg_state (0.3), never a pseudo-type:
-- engines that split aggregates over servers (Citus) need that.
--
SELECT count(*) AS setops_aggregates,
       count(*) FILTER (WHERE t.typtype = 'p') AS pseudo_type_states,
       string_agg(DISTINCT t.typname, ',') AS state_types,
       string_agg(DISTINCT a.aggtransspace::text, ',') AS state_space
FROM pg_aggregate a
JOIN pg_type t ON t.oid = a.aggtranstype
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = a.aggfnoid AND d.deptype = 'e'
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'setops');
-- text form: the operation, the key type, one sorted run
SELECT 'union int4 {1,2,2,7}'::setops_agg_state AS s,
       'intersect int8 {-9223372036854775808,9223372036854775807}'::setops_agg_state AS extremes,
       'merge int4 {}'::setops_agg_state AS empty;
SELECT 'union int4 {2,1}'::setops_agg_state;
SELECT 'union int4 {1,NULL}'::setops_agg_state;
SELECT 'sum int4 {1}'::setops_agg_state;
SELECT 'union int2 {1}'::setops_agg_state;
SELECT 'union int4'::setops_agg_state;
-- a final function takes states of its own key type only
SELECT setops_agg_final_int4('union int8 {1,5000000000}');
SELECT setops_agg_final_int8('union int4 {1,2,3}');
SELECT setops_agg_final_packed_int4('merge int8 {1}');
SELECT setops_agg_final_packed_int8('intersect int8 {-1,7}')::text AS packed8,
       setops_agg_final_int4('union int4 {1,2,2}') AS int4s;
-- binary form: out and back in
CREATE TEMP TABLE agg_states (s setops_agg_state);
INSERT INTO agg_states VALUES ('union int4 {1,2,2,7}'), ('merge int8 {-5,0,0,9223372036854775807}'),
                              ('intersect int4 {}');
-- (in the data directory: a fixed path elsewhere may belong to another user)
SELECT current_setting('data_directory') || '/setops_agg_states.bin' AS states_file \gset
COPY agg_states TO :'states_file' (FORMAT binary);
CREATE TEMP TABLE agg_states_back (s setops_agg_state);
COPY agg_states_back FROM :'states_file' (FORMAT binary);
SELECT s::text FROM agg_states_back;
-- a split aggregate as Citus runs it: partial states where the rows are
-- (here: the transition function alone, by id % 4), passed on as text,
-- then combined and finished elsewhere
CREATE AGGREGATE agg_partial_union(int4[]) (SFUNC = setops_union_agg_trans, STYPE = setops_agg_state);
CREATE AGGREGATE agg_combine_union(setops_agg_state) (SFUNC = setops_agg_combine,
    STYPE = setops_agg_state, FINALFUNC = setops_agg_final_int4);
CREATE AGGREGATE agg_partial_intersect(int8[]) (SFUNC = setops_intersect_agg_trans, STYPE = setops_agg_state);
CREATE AGGREGATE agg_combine_intersect(setops_agg_state) (SFUNC = setops_agg_combine,
    STYPE = setops_agg_state, FINALFUNC = setops_agg_final_int8);
CREATE AGGREGATE agg_partial_merge(packed_int4) (SFUNC = setops_merge_agg_trans, STYPE = setops_agg_state);
CREATE AGGREGATE agg_combine_merge(setops_agg_state) (SFUNC = setops_agg_combine,
    STYPE = setops_agg_state, FINALFUNC = setops_agg_final_packed_int4);
CREATE TEMP TABLE agg_parts AS
SELECT grp, id % 4 AS part, agg_partial_union(a)::text AS u, agg_partial_intersect(a::int8[])::text AS i,
       agg_partial_merge(a::packed_int4)::text AS m
FROM agg_big GROUP BY grp, id % 4;
SELECT c.grp, c.u = r.u AS union_ok, c.i = r.i::int8[] AS intersection_ok, c.m::int4[] = r.m AS merge_ok
FROM (SELECT grp, agg_combine_union(u::setops_agg_state) AS u, agg_combine_intersect(i::setops_agg_state) AS i,
             agg_combine_merge(m::setops_agg_state) AS m
      FROM agg_parts GROUP BY grp) c
JOIN agg_big_ref r USING (grp) ORDER BY grp;
-- states of different aggregates do not combine
SELECT agg_combine_union(s) FROM (VALUES ('union int4 {1}'::setops_agg_state),
                                         ('merge int4 {2}'::setops_agg_state)) v(s);
-- nor states of one aggregate over different key types
SELECT agg_combine_union(s) FROM (VALUES ('union int4 {1}'::setops_agg_state),
                                         ('union int8 {2}'::setops_agg_state)) v(s);
DROP AGGREGATE agg_partial_union(int4[]), agg_combine_union(setops_agg_state),
    agg_partial_intersect(int8[]), agg_combine_intersect(setops_agg_state),
    agg_partial_merge(packed_int4), agg_combine_merge(setops_agg_state);
DROP TABLE agg_big, agg_big_ref, agg_gen, agg_ref;
