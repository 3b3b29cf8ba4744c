/* setops--0.1.sql: the SQL surface of setops 0.1 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION setops" to load this file. \quit

--
-- Multiset operations with std::set_* semantics on sorted input: the i-th
-- copy of a key in a pairs with the i-th copy in b.  Inputs must be sorted
-- ascending (duplicates allowed); see array_sort_gpu() otherwise.
--

CREATE FUNCTION array_intersect_gpu(a int4[], b int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION array_intersect_gpu(a int8[], b int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION array_intersect_gpu(int4[], int4[]) IS
'multiset intersect of two sorted arrays: keeps min(ca, cb) copies of each key, taken from a';
COMMENT ON FUNCTION array_intersect_gpu(int8[], int8[]) IS
'multiset intersect of two sorted arrays: keeps min(ca, cb) copies of each key, taken from a';

CREATE FUNCTION array_union_gpu(a int4[], b int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION array_union_gpu(a int8[], b int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION array_union_gpu(int4[], int4[]) IS
'multiset union of two sorted arrays: keeps max(ca, cb) copies: those of a, then the unmatched copies of b';
COMMENT ON FUNCTION array_union_gpu(int8[], int8[]) IS
'multiset union of two sorted arrays: keeps max(ca, cb) copies: those of a, then the unmatched copies of b';

CREATE FUNCTION array_difference_gpu(a int4[], b int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_difference'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION array_difference_gpu(a int8[], b int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_difference'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION array_difference_gpu(int4[], int4[]) IS
'multiset difference of two sorted arrays: keeps max(ca - cb, 0) copies of each key from a';
COMMENT ON FUNCTION array_difference_gpu(int8[], int8[]) IS
'multiset difference of two sorted arrays: keeps max(ca - cb, 0) copies of each key from a';

CREATE FUNCTION array_symdiff_gpu(a int4[], b int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION array_symdiff_gpu(a int8[], b int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION array_symdiff_gpu(int4[], int4[]) IS
'multiset symdiff of two sorted arrays: keeps |ca - cb| copies: the unmatched copies of the larger side';
COMMENT ON FUNCTION array_symdiff_gpu(int8[], int8[]) IS
'multiset symdiff of two sorted arrays: keeps |ca - cb| copies: the unmatched copies of the larger side';

--
-- Pairs: values of any fixed-width type travel with their keys.
--

CREATE FUNCTION array_intersect_gpu(a int4[], a_vals anyarray, b int4[], b_vals anyarray,
    OUT keys int4[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_intersect_pairs'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION array_intersect_gpu(a int8[], a_vals anyarray, b int8[], b_vals anyarray,
    OUT keys int8[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_intersect_pairs'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION array_intersect_gpu(int4[], anyarray, int4[], anyarray) IS
'multiset intersect of (key, value) pairs compared by key';
COMMENT ON FUNCTION array_intersect_gpu(int8[], anyarray, int8[], anyarray) IS
'multiset intersect of (key, value) pairs compared by key';

CREATE FUNCTION array_union_gpu(a int4[], a_vals anyarray, b int4[], b_vals anyarray,
    OUT keys int4[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_union_pairs'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION array_union_gpu(a int8[], a_vals anyarray, b int8[], b_vals anyarray,
    OUT keys int8[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_union_pairs'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION array_union_gpu(int4[], anyarray, int4[], anyarray) IS
'multiset union of (key, value) pairs compared by key';
COMMENT ON FUNCTION array_union_gpu(int8[], anyarray, int8[], anyarray) IS
'multiset union of (key, value) pairs compared by key';

CREATE FUNCTION array_difference_gpu(a int4[], a_vals anyarray, b int4[], b_vals anyarray,
    OUT keys int4[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_difference_pairs'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION array_difference_gpu(a int8[], a_vals anyarray, b int8[], b_vals anyarray,
    OUT keys int8[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_difference_pairs'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION array_difference_gpu(int4[], anyarray, int4[], anyarray) IS
'multiset difference of (key, value) pairs compared by key';
COMMENT ON FUNCTION array_difference_gpu(int8[], anyarray, int8[], anyarray) IS
'multiset difference of (key, value) pairs compared by key';

CREATE FUNCTION array_symdiff_gpu(a int4[], a_vals anyarray, b int4[], b_vals anyarray,
    OUT keys int4[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_symdiff_pairs'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION array_symdiff_gpu(a int8[], a_vals anyarray, b int8[], b_vals anyarray,
    OUT keys int8[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_symdiff_pairs'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION array_symdiff_gpu(int4[], anyarray, int4[], anyarray) IS
'multiset symdiff of (key, value) pairs compared by key';
COMMENT ON FUNCTION array_symdiff_gpu(int8[], anyarray, int8[], anyarray) IS
'multiset symdiff of (key, value) pairs compared by key';

--
-- Batches: the four operations per row as window functions, many rows in one
-- pass.  array_X_batch(a, b) OVER (...) gives each row exactly what
-- array_X_gpu(a, b) gives it (NULL when an argument is NULL, the same
-- errors), but reads the rows of its partition ahead in chunks and runs each
-- chunk as one segmented batch (one GPU launch when the GPU is chosen); a B
-- that every row shares (a constant, a parameter) is held once.  The frame
-- clause is ignored: each row's result depends only on its own arguments.
-- Rows ahead of the current one are read (and checked) before it returns,
-- so an error in a later row of the chunk is raised even when the query
-- would have stopped before it (LIMIT).
--

CREATE FUNCTION array_intersect_batch(a int4[], b int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_intersect_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION array_intersect_batch(a int8[], b int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_intersect_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION array_intersect_batch(int4[], int4[]) IS
'window function: array_intersect_gpu(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_batch(int8[], int8[]) IS
'window function: array_intersect_gpu(a, b) of each row, rows batched (the frame is ignored)';

CREATE FUNCTION array_union_batch(a int4[], b int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_union_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION array_union_batch(a int8[], b int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_union_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION array_union_batch(int4[], int4[]) IS
'window function: array_union_gpu(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_batch(int8[], int8[]) IS
'window function: array_union_gpu(a, b) of each row, rows batched (the frame is ignored)';

CREATE FUNCTION array_difference_batch(a int4[], b int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_difference_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION array_difference_batch(a int8[], b int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_difference_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION array_difference_batch(int4[], int4[]) IS
'window function: array_difference_gpu(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_batch(int8[], int8[]) IS
'window function: array_difference_gpu(a, b) of each row, rows batched (the frame is ignored)';

CREATE FUNCTION array_symdiff_batch(a int4[], b int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_symdiff_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION array_symdiff_batch(a int8[], b int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_symdiff_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION array_symdiff_batch(int4[], int4[]) IS
'window function: array_symdiff_gpu(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_batch(int8[], int8[]) IS
'window function: array_symdiff_gpu(a, b) of each row, rows batched (the frame is ignored)';

CREATE FUNCTION array_intersect_batch(a int4[], a_vals anyarray, b int4[], b_vals anyarray,
    OUT keys int4[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_intersect_batch_pairs'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION array_intersect_batch(a int8[], a_vals anyarray, b int8[], b_vals anyarray,
    OUT keys int8[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_intersect_batch_pairs'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION array_intersect_batch(int4[], anyarray, int4[], anyarray) IS
'window function: array_intersect_gpu(a, a_vals, b, b_vals) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_batch(int8[], anyarray, int8[], anyarray) IS
'window function: array_intersect_gpu(a, a_vals, b, b_vals) of each row, rows batched (the frame is ignored)';

CREATE FUNCTION array_union_batch(a int4[], a_vals anyarray, b int4[], b_vals anyarray,
    OUT keys int4[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_union_batch_pairs'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION array_union_batch(a int8[], a_vals anyarray, b int8[], b_vals anyarray,
    OUT keys int8[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_union_batch_pairs'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION array_union_batch(int4[], anyarray, int4[], anyarray) IS
'window function: array_union_gpu(a, a_vals, b, b_vals) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_batch(int8[], anyarray, int8[], anyarray) IS
'window function: array_union_gpu(a, a_vals, b, b_vals) of each row, rows batched (the frame is ignored)';

CREATE FUNCTION array_difference_batch(a int4[], a_vals anyarray, b int4[], b_vals anyarray,
    OUT keys int4[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_difference_batch_pairs'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION array_difference_batch(a int8[], a_vals anyarray, b int8[], b_vals anyarray,
    OUT keys int8[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_difference_batch_pairs'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION array_difference_batch(int4[], anyarray, int4[], anyarray) IS
'window function: array_difference_gpu(a, a_vals, b, b_vals) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_batch(int8[], anyarray, int8[], anyarray) IS
'window function: array_difference_gpu(a, a_vals, b, b_vals) of each row, rows batched (the frame is ignored)';

CREATE FUNCTION array_symdiff_batch(a int4[], a_vals anyarray, b int4[], b_vals anyarray,
    OUT keys int4[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_symdiff_batch_pairs'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

CREATE FUNCTION array_symdiff_batch(a int8[], a_vals anyarray, b int8[], b_vals anyarray,
    OUT keys int8[], OUT vals anyarray)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_symdiff_batch_pairs'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION array_symdiff_batch(int4[], anyarray, int4[], anyarray) IS
'window function: array_symdiff_gpu(a, a_vals, b, b_vals) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_batch(int8[], anyarray, int8[], anyarray) IS
'window function: array_symdiff_gpu(a, a_vals, b, b_vals) of each row, rows batched (the frame is ignored)';

--
-- Sorting: the way in for unsorted arrays.
--

CREATE FUNCTION array_sort_gpu(a int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_sort'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_sort_gpu(int4[]) IS 'sorts ascending, keeping duplicates';

CREATE FUNCTION array_sort_gpu(a int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_sort'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_sort_gpu(int8[]) IS 'sorts ascending, keeping duplicates';

CREATE FUNCTION array_distinct_gpu(a int4[])
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_distinct'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_distinct_gpu(int4[]) IS 'sorts ascending, keeping one copy of each key';

CREATE FUNCTION array_distinct_gpu(a int8[])
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_distinct'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_distinct_gpu(int8[]) IS 'sorts ascending, keeping one copy of each key';

--
-- Aggregates: fold the multiset operations over all rows (NULL rows are
-- skipped; no rows gives NULL).  The transition state is internal: the
-- rows' keys one after the other and their lengths, reduced in rounds by
-- the final function, serialized as one run for parallel aggregation.
--
CREATE FUNCTION setops_agg_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_agg_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_agg_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'setops_agg_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION setops_agg_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_agg_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION setops_agg_final_int4(internal)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_agg_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_agg_final_int8(internal)
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_agg_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_intersect_agg_trans(internal, int4[])
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_intersect_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_intersect_agg(int4[]) (
    SFUNC = setops_intersect_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_int4,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_intersect_agg(int4[]) IS 'multiset intersection of all rows';

CREATE FUNCTION setops_intersect_agg_trans(internal, int8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_intersect_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_intersect_agg(int8[]) (
    SFUNC = setops_intersect_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_int8,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_intersect_agg(int8[]) IS 'multiset intersection of all rows';

CREATE FUNCTION setops_union_agg_trans(internal, int4[])
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_union_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_union_agg(int4[]) (
    SFUNC = setops_union_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_int4,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_union_agg(int4[]) IS 'multiset union of all rows';

CREATE FUNCTION setops_union_agg_trans(internal, int8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_union_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_union_agg(int8[]) (
    SFUNC = setops_union_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_int8,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_union_agg(int8[]) IS 'multiset union of all rows';

CREATE FUNCTION setops_merge_agg_trans(internal, int4[])
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_merge_agg(int4[]) (
    SFUNC = setops_merge_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_int4,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_merge_agg(int4[]) IS 'sorted multiset sum (merge) of all rows';

CREATE FUNCTION setops_merge_agg_trans(internal, int8[])
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_merge_agg(int8[]) (
    SFUNC = setops_merge_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_int8,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_merge_agg(int8[]) IS 'sorted multiset sum (merge) of all rows';


--
-- Packed arrays: sorted int4 / int8 sequences stored compressed (differences
-- of consecutive keys bit-packed in chunks of 1024, with patches for the few
-- that do not fit), decoded on the GPU next to the set operation.  Text form
-- as an array: '{1,2,3}'.  Values must be sorted ascending (duplicates
-- allowed) and free of nulls: the casts from arrays ERROR otherwise (sort
-- first with array_sort_gpu()), they never sort silently.
--
CREATE TYPE packed_int4;

CREATE FUNCTION packed_int4_in(cstring) RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_packed_int4_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION packed_int4_out(packed_int4) RETURNS cstring
AS 'MODULE_PATHNAME', 'setops_packed_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION packed_int4_recv(internal) RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_packed_int4_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION packed_int4_send(packed_int4) RETURNS bytea
AS 'MODULE_PATHNAME', 'setops_packed_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- external: stored out of line when large, never pglz'd (already compact)
CREATE TYPE packed_int4 (
    INPUT = packed_int4_in,
    OUTPUT = packed_int4_out,
    RECEIVE = packed_int4_recv,
    SEND = packed_int4_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = external
);
COMMENT ON TYPE packed_int4 IS 'sorted int4 keys, packed: bit-packed differences with patches, decoded on the GPU';

CREATE FUNCTION array_pack(a int4[]) RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_array_pack'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_pack(int4[]) IS
'packs a sorted array (ERROR if unsorted: sort it first with array_sort_gpu())';

CREATE FUNCTION array_unpack(a packed_int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_array_unpack'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_unpack(packed_int4) IS 'the sorted array a packed value holds';

CREATE FUNCTION cardinality(a packed_int4) RETURNS int4
AS 'MODULE_PATHNAME', 'setops_packed_cardinality'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cardinality(packed_int4) IS 'number of keys (reads only the header)';

CREATE FUNCTION packed_int4(bytea) RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_packed_int4_from_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_int4(bytea) IS 'a packed value from its binary form, fully validated';

CREATE FUNCTION bytea(a packed_int4) RETURNS bytea
AS 'MODULE_PATHNAME', 'setops_packed_to_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bytea(packed_int4) IS 'the binary form of a packed value';

CREATE CAST (int4[] AS packed_int4) WITH FUNCTION array_pack(int4[]) AS ASSIGNMENT;
CREATE CAST (packed_int4 AS int4[]) WITH FUNCTION array_unpack(packed_int4) AS ASSIGNMENT;
CREATE CAST (bytea AS packed_int4) WITH FUNCTION packed_int4(bytea);
CREATE CAST (packed_int4 AS bytea) WITH FUNCTION bytea(packed_int4);
-- the four operations on packed values (mixed with arrays: an array result)
CREATE FUNCTION array_intersect_gpu(a packed_int4, b packed_int4) RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_gpu(a packed_int4, b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_gpu(a int4[], b packed_int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_gpu(a packed_int4, b packed_int4) RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_gpu(a packed_int4, b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_gpu(a int4[], b packed_int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_gpu(a packed_int4, b packed_int4) RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_difference'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_gpu(a packed_int4, b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_difference'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_gpu(a int4[], b packed_int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_difference'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_gpu(a packed_int4, b packed_int4) RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_gpu(a packed_int4, b int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_gpu(a int4[], b packed_int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION setops_agg_final_packed_int4(internal)
RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_agg_final_packed'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_intersect_agg_trans(internal, packed_int4)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_intersect_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_intersect_agg(packed_int4) (
    SFUNC = setops_intersect_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_packed_int4,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_intersect_agg(packed_int4) IS 'multiset intersection of all rows (packed)';

CREATE FUNCTION setops_union_agg_trans(internal, packed_int4)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_union_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_union_agg(packed_int4) (
    SFUNC = setops_union_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_packed_int4,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_union_agg(packed_int4) IS 'multiset union of all rows (packed)';

CREATE FUNCTION setops_merge_agg_trans(internal, packed_int4)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_merge_agg(packed_int4) (
    SFUNC = setops_merge_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_packed_int4,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_merge_agg(packed_int4) IS 'sorted multiset sum (merge) of all rows (packed)';

CREATE TYPE packed_int8;

CREATE FUNCTION packed_int8_in(cstring) RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_packed_int8_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION packed_int8_out(packed_int8) RETURNS cstring
AS 'MODULE_PATHNAME', 'setops_packed_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION packed_int8_recv(internal) RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_packed_int8_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION packed_int8_send(packed_int8) RETURNS bytea
AS 'MODULE_PATHNAME', 'setops_packed_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- external: stored out of line when large, never pglz'd (already compact)
CREATE TYPE packed_int8 (
    INPUT = packed_int8_in,
    OUTPUT = packed_int8_out,
    RECEIVE = packed_int8_recv,
    SEND = packed_int8_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = external
);
COMMENT ON TYPE packed_int8 IS 'sorted int8 keys, packed: bit-packed differences with patches, decoded on the GPU';

CREATE FUNCTION array_pack(a int8[]) RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_array_pack'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_pack(int8[]) IS
'packs a sorted array (ERROR if unsorted: sort it first with array_sort_gpu())';

CREATE FUNCTION array_unpack(a packed_int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_array_unpack'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_unpack(packed_int8) IS 'the sorted array a packed value holds';

CREATE FUNCTION cardinality(a packed_int8) RETURNS int4
AS 'MODULE_PATHNAME', 'setops_packed_cardinality'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cardinality(packed_int8) IS 'number of keys (reads only the header)';

CREATE FUNCTION packed_int8(bytea) RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_packed_int8_from_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_int8(bytea) IS 'a packed value from its binary form, fully validated';

CREATE FUNCTION bytea(a packed_int8) RETURNS bytea
AS 'MODULE_PATHNAME', 'setops_packed_to_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bytea(packed_int8) IS 'the binary form of a packed value';

CREATE CAST (int8[] AS packed_int8) WITH FUNCTION array_pack(int8[]) AS ASSIGNMENT;
CREATE CAST (packed_int8 AS int8[]) WITH FUNCTION array_unpack(packed_int8) AS ASSIGNMENT;
CREATE CAST (bytea AS packed_int8) WITH FUNCTION packed_int8(bytea);
CREATE CAST (packed_int8 AS bytea) WITH FUNCTION bytea(packed_int8);
-- the four operations on packed values (mixed with arrays: an array result)
CREATE FUNCTION array_intersect_gpu(a packed_int8, b packed_int8) RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_gpu(a packed_int8, b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_gpu(a int8[], b packed_int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_intersect'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_gpu(a packed_int8, b packed_int8) RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_gpu(a packed_int8, b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_gpu(a int8[], b packed_int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_union'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_gpu(a packed_int8, b packed_int8) RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_difference'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_gpu(a packed_int8, b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_difference'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_gpu(a int8[], b packed_int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_difference'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_gpu(a packed_int8, b packed_int8) RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_gpu(a packed_int8, b int8[]) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_gpu(a int8[], b packed_int8) RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_symdiff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION setops_agg_final_packed_int8(internal)
RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_agg_final_packed'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_intersect_agg_trans(internal, packed_int8)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_intersect_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_intersect_agg(packed_int8) (
    SFUNC = setops_intersect_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_packed_int8,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_intersect_agg(packed_int8) IS 'multiset intersection of all rows (packed)';

CREATE FUNCTION setops_union_agg_trans(internal, packed_int8)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_union_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_union_agg(packed_int8) (
    SFUNC = setops_union_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_packed_int8,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_union_agg(packed_int8) IS 'multiset union of all rows (packed)';

CREATE FUNCTION setops_merge_agg_trans(internal, packed_int8)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_merge_agg(packed_int8) (
    SFUNC = setops_merge_agg_trans,
    STYPE = internal,
    FINALFUNC = setops_agg_final_packed_int8,
    COMBINEFUNC = setops_agg_combine,
    SERIALFUNC = setops_agg_serialize,
    DESERIALFUNC = setops_agg_deserialize,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_merge_agg(packed_int8) IS 'sorted multiset sum (merge) of all rows (packed)';

--
-- The GPUs this backend can use (zero rows without one).
--
CREATE FUNCTION setops_devices(
    OUT device int4,
    OUT name text,
    OUT total_memory int8,
    OUT free_memory int8,
    OUT multiprocessors int4,
    OUT compute_capability text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'setops_devices'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION setops_devices() IS 'GPUs usable by setops in this backend';

--
-- The GPU service's cache of stored arrays (setops.gpu_cache_size).
--
CREATE FUNCTION setops_cache_stats(
    OUT device int4,
    OUT capacity_bytes int8,
    OUT entries int8,
    OUT bytes int8,
    OUT hits int8,
    OUT misses int8,
    OUT evictions int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'setops_cache_stats'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION setops_cache_stats() IS
'the GPU service''s device cache of stored arrays: per device, capacity, entries, bytes, hits, misses, evictions';

--
-- Where the last set operation of this backend spent its time (ms).
--
CREATE FUNCTION setops_last_timing(
    OUT device text,
    OUT read_ms float8,
    OUT upload_ms float8,
    OUT decode_ms float8,
    OUT kernel_ms float8,
    OUT download_ms float8,
    OUT cpu_ms float8,
    OUT result_ms float8,
    OUT total_ms float8,
    OUT streamed_rows int8)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_last_timing'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION setops_last_timing() IS
'time split of the last two-argument set operation or aggregate final function in this backend, for benchmarks; streamed_rows: the aggregate''s rows that went to the GPU as they came (setops.agg_stream_min_size); for those, read_ms is taking the rows and upload_ms waiting for their transfers, both before the final function and not in total_ms';
