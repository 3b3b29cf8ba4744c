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
-- skipped; no rows gives NULL).  The transition state is internal: a stack
-- of sorted runs, serialized for parallel aggregation.
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
-- Where the last set operation of this backend spent its time (ms).
--
CREATE FUNCTION setops_last_timing(
    OUT device text,
    OUT read_ms float8,
    OUT upload_ms float8,
    OUT kernel_ms float8,
    OUT download_ms float8,
    OUT cpu_ms float8,
    OUT result_ms float8,
    OUT total_ms float8)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_last_timing'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION setops_last_timing() IS
'time split of the last two-argument set operation in this backend, for benchmarks';
