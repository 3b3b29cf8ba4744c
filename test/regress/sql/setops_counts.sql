--
-- setops_counts: counts, similarity and predicates (0.2), on the moderngpu
-- "Multisets" demo arrays and small cases whose answers can be read off;
-- the packed operators; the errors, which are the operations' own.
--
\set a '''{1,1,2,3,3,3,5,6,6,6,6,7,7,8,8,9}'''
\set b '''{1,2,2,3,3,3,3,6,6,6,6,8}'''

-- each count equals the cardinality of the operation's result
SELECT array_intersect_count(:a::int4[], :b::int4[]) AS i,
       cardinality(array_intersect_gpu(:a::int4[], :b::int4[])) AS i_built,
       array_union_count(:a::int4[], :b::int4[]) AS u,
       cardinality(array_union_gpu(:a::int4[], :b::int4[])) AS u_built,
       array_difference_count(:a::int4[], :b::int4[]) AS d,
       cardinality(array_difference_gpu(:a::int4[], :b::int4[])) AS d_built,
       array_symdiff_count(:a::int4[], :b::int4[]) AS s,
       cardinality(array_symdiff_gpu(:a::int4[], :b::int4[])) AS s_built;
-- int8, packed, and a packed value with an array: the same answers
SELECT array_intersect_count(:a::int8[], :b::int8[]) AS i8,
       array_union_count(:a::int4[]::packed_int4, :b::int4[]::packed_int4) AS u_packed,
       array_difference_count(:a::int8[]::packed_int8, :b::int8[]) AS d_mixed,
       array_symdiff_count(:a::int4[], :b::int4[]::packed_int4) AS s_mixed;
-- multiset Jaccard: 10 / 18; two empty inputs are equal, so 1
SELECT array_jaccard(:a::int4[], :b::int4[]) AS j,
       array_jaccard('{}'::int4[], '{}'::int4[]) AS j_empty,
       array_jaccard('{1,2}'::int8[], '{}'::int8[]) AS j_one_empty,
       array_jaccard('{5,5}'::int4[], '{5,5}'::int4[]) AS j_same;
-- duplicates count: {1,1} within {1,1,1} but not within {1}
SELECT array_contains('{1,1,1}'::int4[], '{1,1}'::int4[]) AS in_three,
       array_contains('{1}'::int4[], '{1,1}'::int4[]) AS in_one,
       array_contained_by('{1,1}'::int4[], '{0,1,1,2}'::int4[]) AS contained,
       array_contains('{1,2,3}'::int8[], '{}'::int8[]) AS empty_within,
       array_contains('{}'::int8[], '{}'::int8[]) AS empty_within_empty;
SELECT array_overlaps('{1,3,5}'::int4[], '{2,4,5}'::int4[]) AS last_common,
       array_overlaps('{1,3,5}'::int4[], '{2,4,6}'::int4[]) AS none,
       array_overlaps('{}'::int4[], '{1}'::int4[]) AS empty,
       array_overlaps('{-9223372036854775808}'::int8[], '{-9223372036854775808,9223372036854775807}'::int8[]) AS extremes;
-- NULL arguments give NULL
SELECT array_intersect_count(NULL::int4[], '{1}') IS NULL AS null_count,
       array_overlaps('{1}'::int8[], NULL) IS NULL AS null_overlaps;

-- the packed operators
SELECT (:a::int4[]::packed_int4 & :b::int4[]::packed_int4)::int4[] AS "&",
       (:a::int4[]::packed_int4 | :b::int4[]::packed_int4)::int4[] AS "|";
SELECT (:a::int8[]::packed_int8 - :b::int8[]::packed_int8)::int8[] AS "-",
       (:a::int8[]::packed_int8 # :b::int8[]::packed_int8)::int8[] AS "#";
SELECT '{1,2,2,3}'::packed_int4 @> '{2,2}'::packed_int4 AS contains,
       '{1,2,3}'::packed_int4 @> '{2,2}'::packed_int4 AS too_few,
       '{2,2}'::packed_int8 <@ '{1,2,2,3}'::packed_int8 AS contained,
       '{1,3}'::packed_int8 && '{2,3}'::packed_int8 AS overlaps,
       '{1,3}'::packed_int4 && '{2,4}'::packed_int4 AS disjoint;
-- commutators as declared
SELECT o.oprname, o.oprleft::regtype, c.oprname AS commutator, o.oprrest, o.oprjoin
FROM pg_operator o LEFT JOIN pg_operator c ON c.oid = o.oprcom
WHERE o.oprleft = 'packed_int4'::regtype AND o.oprname IN ('&', '|', '-', '#', '&&', '@>', '<@')
ORDER BY 1;

-- properties of every 0.2 function
SELECT p.proname, count(*) AS forms, bool_and(p.provolatile = 'i') AS immutable,
       bool_and(p.proisstrict) AS strict, bool_and(p.proparallel = 's') AS parallel_safe
FROM pg_proc p
WHERE p.proname IN ('array_intersect_count', 'array_union_count', 'array_difference_count',
                    'array_symdiff_count', 'array_jaccard', 'array_overlaps', 'array_contains',
                    'array_contained_by')
GROUP BY 1 ORDER BY 1;

-- errors: the operations' rules and messages, naming the function
SELECT array_intersect_count('{1,2,3}'::int4[], '{1,2,4,3}'::int4[]);
SELECT array_union_count('{2,1}'::int8[], '{1}'::int8[]);
SELECT array_jaccard('{1,NULL}'::int4[], '{1}'::int4[]);
SELECT array_difference_count('{{1,2},{3,4}}'::int4[], '{1}'::int4[]);
SELECT array_symdiff_count('{1}'::int4[]::packed_int4, '{3,1}'::int4[]);
-- long inputs, keys seldom repeated (the CPU engine's SIMD count, which
-- checks the order as it reads): one key out of place deep inside
SELECT array_intersect_count(array_agg(i * 3), array_agg(CASE WHEN i = 70001 THEN 5 ELSE i * 2 END))
FROM generate_series(1, 100000) i;
SELECT array_union_count(array_agg(CASE WHEN i = 99999 THEN 0 ELSE i END::int8),
                         array_agg(CASE WHEN i = 3 THEN 0 ELSE i END::int8))
FROM generate_series(1, 100000) i;
-- 4.2M elements: the CPU engine's count in chunks over setops.cpu_threads
-- threads (four chunks each, taken in turn), the same answer as one
-- thread's (every even i: 1050000); and an order break in a middle chunk
CREATE TEMP TABLE big_pair AS
SELECT array_agg(i * 4 + (i::int8 * 7919 % 4)::int) AS a,
       array_agg(i * 4 + (i::int8 * 104729 % 4)::int) AS b
FROM generate_series(1, 2100000) i;
SET setops.cpu_threads = 1;
SELECT array_intersect_count(a, b) AS one_thread FROM big_pair;
SET setops.cpu_threads = 3;
SELECT array_intersect_count(a, b) AS three_threads, array_jaccard(a, b) AS jaccard FROM big_pair;
SELECT array_intersect_count(a, b[1:1500000] || '{5}'::int4[] || b[1500001:]) FROM big_pair;
-- 16 threads: 64 chunks of about 66K elements, taken in turn
SET setops.cpu_threads = 16;
SELECT array_intersect_count(a, b) AS sixteen_threads FROM big_pair;
RESET setops.cpu_threads;
-- auto: such a count of arrays at hand (slices: computed, not stored) runs
-- on the CPU engine's threads, from 4 of them, whether or not a GPU
-- service runs (through it the arrays would cross host memory twice for
-- an answer of 8 bytes)
SET setops.device = auto;
SET setops.cpu_threads = 4;
SELECT array_intersect_count(a[1:2100000], b[1:2100000]) AS auto_count,
       (SELECT device FROM setops_last_timing()) AS device
FROM big_pair;
RESET setops.device;
RESET setops.cpu_threads;
DROP TABLE big_pair;
-- contains checks the order of both before it answers
SELECT array_contains('{1,2,3,5,4}'::int4[], '{1}'::int4[]);
SELECT array_contained_by('{5,4}'::int8[], '{1,2,3,4,5}'::int8[]);
-- overlaps answers "no" only after both were found in order ...
SELECT array_overlaps('{1,3,2}'::int4[], '{7,8}'::int4[]);
-- ... and "yes" once a key is in both, which is so in any order
SELECT array_overlaps('{1,3,2}'::int4[], '{1}'::int4[]);
