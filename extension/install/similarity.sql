
--
-- 0.4: Jaccard distance for ORDER BY.  array_jaccard_distance(a, b) is
-- 1 - array_jaccard(a, b) (0 for equal multisets, 1 for disjoint ones), in
-- every form of array_jaccard; <%> is it as an operator on two values of
-- one type, so that the nearest rows come first as pgvector users write
-- them: ORDER BY members <%> $1 LIMIT 10 (PostgreSQL's bounded top-N
-- sort).  pgvector names its Jaccard distance <%> too; neither core nor
-- intarray defines <%>, so it is declared on int4[] and int8[] as well.
--
CREATE FUNCTION array_jaccard_distance(a int4[], b int4[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard_distance(a packed_int4, b packed_int4) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard_distance(a packed_int4, b int4[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard_distance(a int4[], b packed_int4) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard_distance(a int8[], b int8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard_distance(a packed_int8, b packed_int8) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard_distance(a packed_int8, b int8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION array_jaccard_distance(a int8[], b packed_int8) RETURNS float8
AS 'MODULE_PATHNAME', 'setops_jaccard_distance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION array_jaccard_distance(int4[], int4[]) IS 'multiset Jaccard distance 1 - |a ∩ b| / |a ∪ b|; 0 for two empty inputs';
COMMENT ON FUNCTION array_jaccard_distance(packed_int4, packed_int4) IS 'multiset Jaccard distance 1 - |a ∩ b| / |a ∪ b|; 0 for two empty inputs';
COMMENT ON FUNCTION array_jaccard_distance(packed_int4, int4[]) IS 'multiset Jaccard distance 1 - |a ∩ b| / |a ∪ b|; 0 for two empty inputs';
COMMENT ON FUNCTION array_jaccard_distance(int4[], packed_int4) IS 'multiset Jaccard distance 1 - |a ∩ b| / |a ∪ b|; 0 for two empty inputs';
COMMENT ON FUNCTION array_jaccard_distance(int8[], int8[]) IS 'multiset Jaccard distance 1 - |a ∩ b| / |a ∪ b|; 0 for two empty inputs';
COMMENT ON FUNCTION array_jaccard_distance(packed_int8, packed_int8) IS 'multiset Jaccard distance 1 - |a ∩ b| / |a ∪ b|; 0 for two empty inputs';
COMMENT ON FUNCTION array_jaccard_distance(packed_int8, int8[]) IS 'multiset Jaccard distance 1 - |a ∩ b| / |a ∪ b|; 0 for two empty inputs';
COMMENT ON FUNCTION array_jaccard_distance(int8[], packed_int8) IS 'multiset Jaccard distance 1 - |a ∩ b| / |a ∪ b|; 0 for two empty inputs';

CREATE OPERATOR <%> (LEFTARG = packed_int4, RIGHTARG = packed_int4,
                     FUNCTION = array_jaccard_distance, COMMUTATOR = <%>);
COMMENT ON OPERATOR <%> (packed_int4, packed_int4) IS 'multiset Jaccard distance: 1 - array_jaccard';
CREATE OPERATOR <%> (LEFTARG = packed_int8, RIGHTARG = packed_int8,
                     FUNCTION = array_jaccard_distance, COMMUTATOR = <%>);
COMMENT ON OPERATOR <%> (packed_int8, packed_int8) IS 'multiset Jaccard distance: 1 - array_jaccard';
CREATE OPERATOR <%> (LEFTARG = int4[], RIGHTARG = int4[],
                     FUNCTION = array_jaccard_distance, COMMUTATOR = <%>);
COMMENT ON OPERATOR <%> (int4[], int4[]) IS 'multiset Jaccard distance: 1 - array_jaccard';
CREATE OPERATOR <%> (LEFTARG = int8[], RIGHTARG = int8[],
                     FUNCTION = array_jaccard_distance, COMMUTATOR = <%>);
COMMENT ON OPERATOR <%> (int8[], int8[]) IS 'multiset Jaccard distance: 1 - array_jaccard';
