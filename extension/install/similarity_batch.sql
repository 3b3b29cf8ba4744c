
--
-- 0.4: the counts, similarity and predicates per row as window functions,
-- many rows in one pass (issue 34).  array_X_batch(a, b) OVER (...) gives
-- each row exactly what array_X(a, b) gives it (NULL when an argument is
-- NULL, the same errors), for every form array_X takes, but reads the
-- rows of its partition ahead in chunks and counts each chunk as one
-- segmented batch (one GPU launch when the GPU is chosen); only the
-- answers come back.  A b that every row shares (a constant, a parameter)
-- is read and sent once.  The frame clause is ignored.  Rows ahead of the
-- current one are read (and checked) before it returns, so an error in a
-- later row of the chunk is raised even when the query would have stopped
-- before it (LIMIT).
--

-- array_intersect_count_batch: window function, array_intersect_count(a, b) of each row, rows batched
CREATE FUNCTION array_intersect_count_batch(a int4[], b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_intersect_count_batch(a packed_int4, b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_intersect_count_batch(a packed_int4, b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_intersect_count_batch(a int4[], b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_intersect_count_batch(a int8[], b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_intersect_count_batch(a packed_int8, b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_intersect_count_batch(a packed_int8, b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_intersect_count_batch(a int8[], b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION array_intersect_count_batch(int4[], int4[]) IS
'window function: array_intersect_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_count_batch(packed_int4, packed_int4) IS
'window function: array_intersect_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_count_batch(packed_int4, int4[]) IS
'window function: array_intersect_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_count_batch(int4[], packed_int4) IS
'window function: array_intersect_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_count_batch(int8[], int8[]) IS
'window function: array_intersect_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_count_batch(packed_int8, packed_int8) IS
'window function: array_intersect_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_count_batch(packed_int8, int8[]) IS
'window function: array_intersect_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_intersect_count_batch(int8[], packed_int8) IS
'window function: array_intersect_count(a, b) of each row, rows batched (the frame is ignored)';

-- array_union_count_batch: window function, array_union_count(a, b) of each row, rows batched
CREATE FUNCTION array_union_count_batch(a int4[], b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_union_count_batch(a packed_int4, b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_union_count_batch(a packed_int4, b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_union_count_batch(a int4[], b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_union_count_batch(a int8[], b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_union_count_batch(a packed_int8, b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_union_count_batch(a packed_int8, b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_union_count_batch(a int8[], b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION array_union_count_batch(int4[], int4[]) IS
'window function: array_union_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_count_batch(packed_int4, packed_int4) IS
'window function: array_union_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_count_batch(packed_int4, int4[]) IS
'window function: array_union_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_count_batch(int4[], packed_int4) IS
'window function: array_union_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_count_batch(int8[], int8[]) IS
'window function: array_union_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_count_batch(packed_int8, packed_int8) IS
'window function: array_union_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_count_batch(packed_int8, int8[]) IS
'window function: array_union_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_union_count_batch(int8[], packed_int8) IS
'window function: array_union_count(a, b) of each row, rows batched (the frame is ignored)';

-- array_difference_count_batch: window function, array_difference_count(a, b) of each row, rows batched
CREATE FUNCTION array_difference_count_batch(a int4[], b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_difference_count_batch(a packed_int4, b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_difference_count_batch(a packed_int4, b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_difference_count_batch(a int4[], b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_difference_count_batch(a int8[], b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_difference_count_batch(a packed_int8, b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_difference_count_batch(a packed_int8, b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_difference_count_batch(a int8[], b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION array_difference_count_batch(int4[], int4[]) IS
'window function: array_difference_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_count_batch(packed_int4, packed_int4) IS
'window function: array_difference_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_count_batch(packed_int4, int4[]) IS
'window function: array_difference_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_count_batch(int4[], packed_int4) IS
'window function: array_difference_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_count_batch(int8[], int8[]) IS
'window function: array_difference_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_count_batch(packed_int8, packed_int8) IS
'window function: array_difference_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_count_batch(packed_int8, int8[]) IS
'window function: array_difference_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_difference_count_batch(int8[], packed_int8) IS
'window function: array_difference_count(a, b) of each row, rows batched (the frame is ignored)';

-- array_symdiff_count_batch: window function, array_symdiff_count(a, b) of each row, rows batched
CREATE FUNCTION array_symdiff_count_batch(a int4[], b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count_batch(a packed_int4, b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count_batch(a packed_int4, b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count_batch(a int4[], b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count_batch(a int8[], b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count_batch(a packed_int8, b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count_batch(a packed_int8, b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count_batch(a int8[], b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION array_symdiff_count_batch(int4[], int4[]) IS
'window function: array_symdiff_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_count_batch(packed_int4, packed_int4) IS
'window function: array_symdiff_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_count_batch(packed_int4, int4[]) IS
'window function: array_symdiff_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_count_batch(int4[], packed_int4) IS
'window function: array_symdiff_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_count_batch(int8[], int8[]) IS
'window function: array_symdiff_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_count_batch(packed_int8, packed_int8) IS
'window function: array_symdiff_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_count_batch(packed_int8, int8[]) IS
'window function: array_symdiff_count(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_symdiff_count_batch(int8[], packed_int8) IS
'window function: array_symdiff_count(a, b) of each row, rows batched (the frame is ignored)';

-- array_jaccard_batch: window function, array_jaccard(a, b) of each row, rows batched
CREATE FUNCTION array_jaccard_batch(a int4[], b int4[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_jaccard_batch(a packed_int4, b packed_int4) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_jaccard_batch(a packed_int4, b int4[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_jaccard_batch(a int4[], b packed_int4) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_jaccard_batch(a int8[], b int8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_jaccard_batch(a packed_int8, b packed_int8) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_jaccard_batch(a packed_int8, b int8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_jaccard_batch(a int8[], b packed_int8) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION array_jaccard_batch(int4[], int4[]) IS
'window function: array_jaccard(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_jaccard_batch(packed_int4, packed_int4) IS
'window function: array_jaccard(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_jaccard_batch(packed_int4, int4[]) IS
'window function: array_jaccard(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_jaccard_batch(int4[], packed_int4) IS
'window function: array_jaccard(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_jaccard_batch(int8[], int8[]) IS
'window function: array_jaccard(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_jaccard_batch(packed_int8, packed_int8) IS
'window function: array_jaccard(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_jaccard_batch(packed_int8, int8[]) IS
'window function: array_jaccard(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_jaccard_batch(int8[], packed_int8) IS
'window function: array_jaccard(a, b) of each row, rows batched (the frame is ignored)';

-- array_overlaps_batch: window function, array_overlaps(a, b) of each row, rows batched
CREATE FUNCTION array_overlaps_batch(a int4[], b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_overlaps_batch(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_overlaps_batch(a packed_int4, b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_overlaps_batch(a int4[], b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_overlaps_batch(a int8[], b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_overlaps_batch(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_overlaps_batch(a packed_int8, b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_overlaps_batch(a int8[], b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION array_overlaps_batch(int4[], int4[]) IS
'window function: array_overlaps(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_overlaps_batch(packed_int4, packed_int4) IS
'window function: array_overlaps(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_overlaps_batch(packed_int4, int4[]) IS
'window function: array_overlaps(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_overlaps_batch(int4[], packed_int4) IS
'window function: array_overlaps(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_overlaps_batch(int8[], int8[]) IS
'window function: array_overlaps(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_overlaps_batch(packed_int8, packed_int8) IS
'window function: array_overlaps(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_overlaps_batch(packed_int8, int8[]) IS
'window function: array_overlaps(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_overlaps_batch(int8[], packed_int8) IS
'window function: array_overlaps(a, b) of each row, rows batched (the frame is ignored)';

-- array_contains_batch: window function, array_contains(a, b) of each row, rows batched
CREATE FUNCTION array_contains_batch(a int4[], b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contains_batch(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contains_batch(a packed_int4, b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contains_batch(a int4[], b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contains_batch(a int8[], b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contains_batch(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contains_batch(a packed_int8, b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contains_batch(a int8[], b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION array_contains_batch(int4[], int4[]) IS
'window function: array_contains(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contains_batch(packed_int4, packed_int4) IS
'window function: array_contains(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contains_batch(packed_int4, int4[]) IS
'window function: array_contains(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contains_batch(int4[], packed_int4) IS
'window function: array_contains(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contains_batch(int8[], int8[]) IS
'window function: array_contains(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contains_batch(packed_int8, packed_int8) IS
'window function: array_contains(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contains_batch(packed_int8, int8[]) IS
'window function: array_contains(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contains_batch(int8[], packed_int8) IS
'window function: array_contains(a, b) of each row, rows batched (the frame is ignored)';

-- array_contained_by_batch: window function, array_contained_by(a, b) of each row, rows batched
CREATE FUNCTION array_contained_by_batch(a int4[], b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contained_by_batch(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contained_by_batch(a packed_int4, b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contained_by_batch(a int4[], b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contained_by_batch(a int8[], b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contained_by_batch(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contained_by_batch(a packed_int8, b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
CREATE FUNCTION array_contained_by_batch(a int8[], b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by_batch'
LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;
COMMENT ON FUNCTION array_contained_by_batch(int4[], int4[]) IS
'window function: array_contained_by(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contained_by_batch(packed_int4, packed_int4) IS
'window function: array_contained_by(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contained_by_batch(packed_int4, int4[]) IS
'window function: array_contained_by(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contained_by_batch(int4[], packed_int4) IS
'window function: array_contained_by(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contained_by_batch(int8[], int8[]) IS
'window function: array_contained_by(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contained_by_batch(packed_int8, packed_int8) IS
'window function: array_contained_by(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contained_by_batch(packed_int8, int8[]) IS
'window function: array_contained_by(a, b) of each row, rows batched (the frame is ignored)';
COMMENT ON FUNCTION array_contained_by_batch(int8[], packed_int8) IS
'window function: array_contained_by(a, b) of each row, rows batched (the frame is ignored)';
