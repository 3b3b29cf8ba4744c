
--
-- 0.2: counts, similarity and predicates, none of which builds a result.
-- Every form the four operations take: int4[], int8[], packed values, and
-- a packed value with an array.  Same input rules and errors as the
-- operations (sorted ascending, no NULL elements, one dimension).
--

-- array_intersect_count: number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it
CREATE FUNCTION array_intersect_count(a int4[], b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_count(a packed_int4, b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_count(a packed_int4, b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_count(a int4[], b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_count(a int8[], b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_count(a packed_int8, b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_count(a packed_int8, b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_intersect_count(a int8[], b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_intersect_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_intersect_count(int4[], int4[]) IS 'number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it';
COMMENT ON FUNCTION array_intersect_count(packed_int4, packed_int4) IS 'number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it';
COMMENT ON FUNCTION array_intersect_count(packed_int4, int4[]) IS 'number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it';
COMMENT ON FUNCTION array_intersect_count(int4[], packed_int4) IS 'number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it';
COMMENT ON FUNCTION array_intersect_count(int8[], int8[]) IS 'number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it';
COMMENT ON FUNCTION array_intersect_count(packed_int8, packed_int8) IS 'number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it';
COMMENT ON FUNCTION array_intersect_count(packed_int8, int8[]) IS 'number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it';
COMMENT ON FUNCTION array_intersect_count(int8[], packed_int8) IS 'number of elements array_intersect_gpu(a, b) returns (key-rank multiset count), without building it';

-- array_union_count: number of elements array_union_gpu(a, b) returns, without building it
CREATE FUNCTION array_union_count(a int4[], b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_count(a packed_int4, b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_count(a packed_int4, b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_count(a int4[], b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_count(a int8[], b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_count(a packed_int8, b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_count(a packed_int8, b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_union_count(a int8[], b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_union_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_union_count(int4[], int4[]) IS 'number of elements array_union_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_union_count(packed_int4, packed_int4) IS 'number of elements array_union_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_union_count(packed_int4, int4[]) IS 'number of elements array_union_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_union_count(int4[], packed_int4) IS 'number of elements array_union_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_union_count(int8[], int8[]) IS 'number of elements array_union_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_union_count(packed_int8, packed_int8) IS 'number of elements array_union_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_union_count(packed_int8, int8[]) IS 'number of elements array_union_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_union_count(int8[], packed_int8) IS 'number of elements array_union_gpu(a, b) returns, without building it';

-- array_difference_count: number of elements array_difference_gpu(a, b) returns, without building it
CREATE FUNCTION array_difference_count(a int4[], b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_count(a packed_int4, b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_count(a packed_int4, b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_count(a int4[], b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_count(a int8[], b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_count(a packed_int8, b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_count(a packed_int8, b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_difference_count(a int8[], b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_difference_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_difference_count(int4[], int4[]) IS 'number of elements array_difference_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_difference_count(packed_int4, packed_int4) IS 'number of elements array_difference_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_difference_count(packed_int4, int4[]) IS 'number of elements array_difference_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_difference_count(int4[], packed_int4) IS 'number of elements array_difference_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_difference_count(int8[], int8[]) IS 'number of elements array_difference_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_difference_count(packed_int8, packed_int8) IS 'number of elements array_difference_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_difference_count(packed_int8, int8[]) IS 'number of elements array_difference_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_difference_count(int8[], packed_int8) IS 'number of elements array_difference_gpu(a, b) returns, without building it';

-- array_symdiff_count: number of elements array_symdiff_gpu(a, b) returns, without building it
CREATE FUNCTION array_symdiff_count(a int4[], b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count(a packed_int4, b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count(a packed_int4, b int4[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count(a int4[], b packed_int4) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count(a int8[], b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count(a packed_int8, b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count(a packed_int8, b int8[]) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_symdiff_count(a int8[], b packed_int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_symdiff_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_symdiff_count(int4[], int4[]) IS 'number of elements array_symdiff_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_symdiff_count(packed_int4, packed_int4) IS 'number of elements array_symdiff_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_symdiff_count(packed_int4, int4[]) IS 'number of elements array_symdiff_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_symdiff_count(int4[], packed_int4) IS 'number of elements array_symdiff_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_symdiff_count(int8[], int8[]) IS 'number of elements array_symdiff_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_symdiff_count(packed_int8, packed_int8) IS 'number of elements array_symdiff_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_symdiff_count(packed_int8, int8[]) IS 'number of elements array_symdiff_gpu(a, b) returns, without building it';
COMMENT ON FUNCTION array_symdiff_count(int8[], packed_int8) IS 'number of elements array_symdiff_gpu(a, b) returns, without building it';

-- array_jaccard: multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs
CREATE FUNCTION array_jaccard(a int4[], b int4[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard(a packed_int4, b packed_int4) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard(a packed_int4, b int4[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard(a int4[], b packed_int4) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard(a int8[], b int8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard(a packed_int8, b packed_int8) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard(a packed_int8, b int8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard(a int8[], b packed_int8) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_jaccard(int4[], int4[]) IS 'multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs';
COMMENT ON FUNCTION array_jaccard(packed_int4, packed_int4) IS 'multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs';
COMMENT ON FUNCTION array_jaccard(packed_int4, int4[]) IS 'multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs';
COMMENT ON FUNCTION array_jaccard(int4[], packed_int4) IS 'multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs';
COMMENT ON FUNCTION array_jaccard(int8[], int8[]) IS 'multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs';
COMMENT ON FUNCTION array_jaccard(packed_int8, packed_int8) IS 'multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs';
COMMENT ON FUNCTION array_jaccard(packed_int8, int8[]) IS 'multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs';
COMMENT ON FUNCTION array_jaccard(int8[], packed_int8) IS 'multiset Jaccard similarity |a ∩ b| / |a ∪ b|; 1 for two empty inputs';

-- array_overlaps: true when some key occurs in both; stops at the first common key
CREATE FUNCTION array_overlaps(a int4[], b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_overlaps(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_overlaps(a packed_int4, b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_overlaps(a int4[], b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_overlaps(a int8[], b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_overlaps(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_overlaps(a packed_int8, b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_overlaps(a int8[], b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_overlaps(int4[], int4[]) IS 'true when some key occurs in both; stops at the first common key';
COMMENT ON FUNCTION array_overlaps(packed_int4, packed_int4) IS 'true when some key occurs in both; stops at the first common key';
COMMENT ON FUNCTION array_overlaps(packed_int4, int4[]) IS 'true when some key occurs in both; stops at the first common key';
COMMENT ON FUNCTION array_overlaps(int4[], packed_int4) IS 'true when some key occurs in both; stops at the first common key';
COMMENT ON FUNCTION array_overlaps(int8[], int8[]) IS 'true when some key occurs in both; stops at the first common key';
COMMENT ON FUNCTION array_overlaps(packed_int8, packed_int8) IS 'true when some key occurs in both; stops at the first common key';
COMMENT ON FUNCTION array_overlaps(packed_int8, int8[]) IS 'true when some key occurs in both; stops at the first common key';
COMMENT ON FUNCTION array_overlaps(int8[], packed_int8) IS 'true when some key occurs in both; stops at the first common key';

-- array_contains: true when b's multiset lies within a's (every key of b occurs in a at least as many times); stops at the first counterexample
CREATE FUNCTION array_contains(a int4[], b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contains(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contains(a packed_int4, b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contains(a int4[], b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contains(a int8[], b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contains(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contains(a packed_int8, b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contains(a int8[], b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_contains(int4[], int4[]) IS 'true when b''s multiset lies within a''s (every key of b occurs in a at least as many times); stops at the first counterexample';
COMMENT ON FUNCTION array_contains(packed_int4, packed_int4) IS 'true when b''s multiset lies within a''s (every key of b occurs in a at least as many times); stops at the first counterexample';
COMMENT ON FUNCTION array_contains(packed_int4, int4[]) IS 'true when b''s multiset lies within a''s (every key of b occurs in a at least as many times); stops at the first counterexample';
COMMENT ON FUNCTION array_contains(int4[], packed_int4) IS 'true when b''s multiset lies within a''s (every key of b occurs in a at least as many times); stops at the first counterexample';
COMMENT ON FUNCTION array_contains(int8[], int8[]) IS 'true when b''s multiset lies within a''s (every key of b occurs in a at least as many times); stops at the first counterexample';
COMMENT ON FUNCTION array_contains(packed_int8, packed_int8) IS 'true when b''s multiset lies within a''s (every key of b occurs in a at least as many times); stops at the first counterexample';
COMMENT ON FUNCTION array_contains(packed_int8, int8[]) IS 'true when b''s multiset lies within a''s (every key of b occurs in a at least as many times); stops at the first counterexample';
COMMENT ON FUNCTION array_contains(int8[], packed_int8) IS 'true when b''s multiset lies within a''s (every key of b occurs in a at least as many times); stops at the first counterexample';

-- array_contained_by: array_contains(b, a): a's multiset lies within b's
CREATE FUNCTION array_contained_by(a int4[], b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contained_by(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contained_by(a packed_int4, b int4[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contained_by(a int4[], b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contained_by(a int8[], b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contained_by(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contained_by(a packed_int8, b int8[]) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_contained_by(a int8[], b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_contained_by'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_contained_by(int4[], int4[]) IS 'array_contains(b, a): a''s multiset lies within b''s';
COMMENT ON FUNCTION array_contained_by(packed_int4, packed_int4) IS 'array_contains(b, a): a''s multiset lies within b''s';
COMMENT ON FUNCTION array_contained_by(packed_int4, int4[]) IS 'array_contains(b, a): a''s multiset lies within b''s';
COMMENT ON FUNCTION array_contained_by(int4[], packed_int4) IS 'array_contains(b, a): a''s multiset lies within b''s';
COMMENT ON FUNCTION array_contained_by(int8[], int8[]) IS 'array_contains(b, a): a''s multiset lies within b''s';
COMMENT ON FUNCTION array_contained_by(packed_int8, packed_int8) IS 'array_contains(b, a): a''s multiset lies within b''s';
COMMENT ON FUNCTION array_contained_by(packed_int8, int8[]) IS 'array_contains(b, a): a''s multiset lies within b''s';
COMMENT ON FUNCTION array_contained_by(int8[], packed_int8) IS 'array_contains(b, a): a''s multiset lies within b''s';
