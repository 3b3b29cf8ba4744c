--
-- setops_intarray: setops beside intarray, created in either order.  On
-- int4[], intarray's operators keep their set semantics (duplicates
-- collapse); setops defines only <%> there (Jaccard distance, a name
-- intarray does not use), and its functions and the packed operators keep
-- multiset semantics.
--
-- Here setops exists already (setops_basic created it) and intarray comes
-- second; then a database of its own has intarray first.  Both are dropped
-- at the end.
--
CREATE EXTENSION intarray;

\set a '''{1,1,2,3,3,3}'''
\set b '''{1,3,3,4}'''
-- intarray on int4[]: sets
SELECT :a::int4[] & :b::int4[] AS "&", :a::int4[] | :b::int4[] AS "|",
       :a::int4[] - :b::int4[] AS "-", :a::int4[] && :b::int4[] AS "&&",
       '{1}'::int4[] @> '{1,1}'::int4[] AS "{1} @> {1,1}",
       '{1,1}'::int4[] <@ '{1}'::int4[] AS "{1,1} <@ {1}",
       icount(:a::int4[] & :b::int4[]) AS "icount(&)";
-- setops's functions on int4[]: multisets
SELECT array_intersect_gpu(:a::int4[], :b::int4[]) AS intersect,
       array_union_gpu(:a::int4[], :b::int4[]) AS union,
       array_difference_gpu(:a::int4[], :b::int4[]) AS difference,
       array_overlaps(:a::int4[], :b::int4[]) AS overlaps,
       array_contains('{1}'::int4[], '{1,1}'::int4[]) AS "contains({1}, {1,1})",
       array_contained_by('{1,1}'::int4[], '{1}'::int4[]) AS "contained_by({1,1}, {1})",
       array_intersect_count(:a::int4[], :b::int4[]) AS intersect_count;
-- setops's operators on packed values: multisets
SELECT (:a::int4[]::packed_int4 & :b::int4[]::packed_int4) AS "&",
       (:a::int4[]::packed_int4 | :b::int4[]::packed_int4) AS "|",
       (:a::int4[]::packed_int4 - :b::int4[]::packed_int4) AS "-",
       :a::int4[]::packed_int4 && :b::int4[]::packed_int4 AS "&&",
       '{1}'::packed_int4 @> '{1,1}'::packed_int4 AS "{1} @> {1,1}",
       '{1,1}'::packed_int4 <@ '{1}'::packed_int4 AS "{1,1} <@ {1}",
       '{1,1}'::packed_int4 = '{1}'::packed_int4 AS "{1,1} = {1}";
-- the operators on (int4[], int4[]) are intarray's, but setops's <%>
SELECT o.oprname, o.oprcode, e.extname
FROM pg_operator o
     JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e'
     JOIN pg_extension e ON e.oid = d.refobjid
WHERE o.oprleft = 'int4[]'::regtype AND o.oprright = 'int4[]'::regtype
ORDER BY 1, 2;
-- and each extension's GIN operator class answers its own way
CREATE TABLE ia_rows (id int, a int4[], p packed_int4);
INSERT INTO ia_rows VALUES (1, '{1}', '{1}'), (2, '{1,1,2}', '{1,1,2}'), (3, '{2,3}', '{2,3}'),
    (4, '{}', '{}');
CREATE INDEX ia_rows_a ON ia_rows USING gin (a gin__int_ops);
CREATE INDEX ia_rows_p ON ia_rows USING gin (p);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ia_rows WHERE a @> '{1,1}';
EXPLAIN (COSTS OFF) SELECT id FROM ia_rows WHERE p @> '{1,1}';
SELECT array_agg(id ORDER BY id) AS "a @> {1,1}" FROM ia_rows WHERE a @> '{1,1}';
SELECT array_agg(id ORDER BY id) AS "p @> {1,1}" FROM ia_rows WHERE p @> '{1,1}';
RESET enable_seqscan;
DROP TABLE ia_rows;
DROP EXTENSION intarray;

-- intarray first, setops second
SET client_min_messages = warning;
DROP DATABASE IF EXISTS setops_intarray_first;
RESET client_min_messages;
CREATE DATABASE setops_intarray_first;
\set regress_db :DBNAME
\c setops_intarray_first
CREATE EXTENSION intarray;
CREATE EXTENSION setops;
SELECT extname FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY oid;
SELECT '{1,1,2}'::int4[] & '{1,1}'::int4[] AS intarray_and,
       array_intersect_gpu('{1,1,2}'::int4[], '{1,1}') AS setops_intersect,
       '{1,1,2}'::packed_int4 & '{1,1}'::packed_int4 AS packed_and,
       '{1}'::int4[] @> '{1,1}'::int4[] AS intarray_contains,
       '{1}'::packed_int4 @> '{1,1}'::packed_int4 AS packed_contains,
       icount('{1,1,2}'::int4[] | '{2}'::int4[]) AS intarray_union_count,
       array_union_count('{1,1,2}'::int4[], '{2}') AS setops_union_count;
SELECT string_agg(o.oprname || ' ' || o.oprcode, ', ' ORDER BY o.oprname) AS "int4[] operators"
FROM pg_operator o
WHERE o.oprleft = 'int4[]'::regtype AND o.oprright = 'int4[]'::regtype;
\c :regress_db
DROP DATABASE setops_intarray_first;
