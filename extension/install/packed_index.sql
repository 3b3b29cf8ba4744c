
--
-- 0.2: equality, order and hashing of packed values (btree and hash
-- operator classes: DISTINCT, GROUP BY, UNION, ORDER BY, merge and hash
-- joins), and GIN operator classes for && @> <@ =.  Everything compares
-- the decoded keys, never the bytes (packed bytes are not canonical).
-- Order: lexicographic over the keys, a proper prefix first.
--

-- packed_int4
CREATE FUNCTION packed_eq(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_eq'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_eq(packed_int4, packed_int4) IS 'same keys, same counts';
CREATE FUNCTION packed_ne(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_ne'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_ne(packed_int4, packed_int4) IS 'not packed_eq';
CREATE FUNCTION packed_lt(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_lt'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_lt(packed_int4, packed_int4) IS 'a sorts before b (lexicographic over the keys, a proper prefix first)';
CREATE FUNCTION packed_le(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_le'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_le(packed_int4, packed_int4) IS 'a sorts before b or equals it';
CREATE FUNCTION packed_gt(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_gt'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_gt(packed_int4, packed_int4) IS 'a sorts after b';
CREATE FUNCTION packed_ge(a packed_int4, b packed_int4) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_ge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_ge(packed_int4, packed_int4) IS 'a sorts after b or equals it';
CREATE FUNCTION packed_cmp(a packed_int4, b packed_int4) RETURNS int4
AS 'MODULE_PATHNAME', 'setops_packed_cmp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_cmp(packed_int4, packed_int4) IS '-1, 0 or 1: the order of the btree operator class';
CREATE FUNCTION packed_hash(a packed_int4) RETURNS int4
AS 'MODULE_PATHNAME', 'setops_packed_hash'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_hash(packed_int4) IS 'hash of the decoded keys';
CREATE FUNCTION packed_hash_extended(a packed_int4, seed int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_packed_hash_extended'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_hash_extended(packed_int4, int8) IS '64-bit hash of the decoded keys, seeded';

CREATE OPERATOR = (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = packed_eq,
                 COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel,
                 HASHES, MERGES);
COMMENT ON OPERATOR = (packed_int4, packed_int4) IS 'equal: same keys, same counts';
CREATE OPERATOR <> (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = packed_ne,
                  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (packed_int4, packed_int4) IS 'not equal';
CREATE OPERATOR < (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = packed_lt,
                 COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR < (packed_int4, packed_int4) IS 'less than (lexicographic over the keys)';
CREATE OPERATOR <= (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = packed_le,
                  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR <= (packed_int4, packed_int4) IS 'less than or equal';
CREATE OPERATOR > (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = packed_gt,
                 COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR > (packed_int4, packed_int4) IS 'greater than (lexicographic over the keys)';
CREATE OPERATOR >= (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = packed_ge,
                  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR >= (packed_int4, packed_int4) IS 'greater than or equal';

CREATE OPERATOR CLASS packed_int4_ops DEFAULT FOR TYPE packed_int4 USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 packed_cmp(packed_int4, packed_int4);
CREATE OPERATOR CLASS packed_int4_ops DEFAULT FOR TYPE packed_int4 USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 packed_hash(packed_int4),
    FUNCTION 2 packed_hash_extended(packed_int4, int8);

-- GIN: the index holds each row's distinct keys (an empty row is GIN's
-- empty item).  Strategies as PostgreSQL's array_ops: 1 &&, 2 @>, 3 <@,
-- 4 =.  && is answered from the index; @> <@ = are rechecked on the row
-- (the counts are not in the index).
CREATE FUNCTION packed_gin_extract_value(packed_int4, internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'setops_packed_gin_extract_value'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION packed_gin_extract_query(packed_int4, internal, int2, internal, internal, internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_packed_gin_extract_query'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION packed_gin_consistent(internal, int2, packed_int4, int4, internal, internal, internal, internal)
RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_gin_consistent'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION packed_gin_triconsistent(internal, int2, packed_int4, int4, internal, internal, internal)
RETURNS "char"
AS 'MODULE_PATHNAME', 'setops_packed_gin_triconsistent'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS packed_int4_ops DEFAULT FOR TYPE packed_int4 USING gin AS
    OPERATOR 1 &&, OPERATOR 2 @>, OPERATOR 3 <@, OPERATOR 4 =,
    FUNCTION 1 btint4cmp(int4, int4),
    FUNCTION 2 packed_gin_extract_value(packed_int4, internal, internal),
    FUNCTION 3 packed_gin_extract_query(packed_int4, internal, int2, internal, internal, internal, internal),
    FUNCTION 4 packed_gin_consistent(internal, int2, packed_int4, int4, internal, internal, internal, internal),
    FUNCTION 6 packed_gin_triconsistent(internal, int2, packed_int4, int4, internal, internal, internal),
    STORAGE int4;

-- packed_int8
CREATE FUNCTION packed_eq(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_eq'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_eq(packed_int8, packed_int8) IS 'same keys, same counts';
CREATE FUNCTION packed_ne(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_ne'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_ne(packed_int8, packed_int8) IS 'not packed_eq';
CREATE FUNCTION packed_lt(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_lt'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_lt(packed_int8, packed_int8) IS 'a sorts before b (lexicographic over the keys, a proper prefix first)';
CREATE FUNCTION packed_le(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_le'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_le(packed_int8, packed_int8) IS 'a sorts before b or equals it';
CREATE FUNCTION packed_gt(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_gt'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_gt(packed_int8, packed_int8) IS 'a sorts after b';
CREATE FUNCTION packed_ge(a packed_int8, b packed_int8) RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_ge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_ge(packed_int8, packed_int8) IS 'a sorts after b or equals it';
CREATE FUNCTION packed_cmp(a packed_int8, b packed_int8) RETURNS int4
AS 'MODULE_PATHNAME', 'setops_packed_cmp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_cmp(packed_int8, packed_int8) IS '-1, 0 or 1: the order of the btree operator class';
CREATE FUNCTION packed_hash(a packed_int8) RETURNS int4
AS 'MODULE_PATHNAME', 'setops_packed_hash'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_hash(packed_int8) IS 'hash of the decoded keys';
CREATE FUNCTION packed_hash_extended(a packed_int8, seed int8) RETURNS int8
AS 'MODULE_PATHNAME', 'setops_packed_hash_extended'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION packed_hash_extended(packed_int8, int8) IS '64-bit hash of the decoded keys, seeded';

CREATE OPERATOR = (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = packed_eq,
                 COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel,
                 HASHES, MERGES);
COMMENT ON OPERATOR = (packed_int8, packed_int8) IS 'equal: same keys, same counts';
CREATE OPERATOR <> (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = packed_ne,
                  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (packed_int8, packed_int8) IS 'not equal';
CREATE OPERATOR < (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = packed_lt,
                 COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
COMMENT ON OPERATOR < (packed_int8, packed_int8) IS 'less than (lexicographic over the keys)';
CREATE OPERATOR <= (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = packed_le,
                  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
COMMENT ON OPERATOR <= (packed_int8, packed_int8) IS 'less than or equal';
CREATE OPERATOR > (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = packed_gt,
                 COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
COMMENT ON OPERATOR > (packed_int8, packed_int8) IS 'greater than (lexicographic over the keys)';
CREATE OPERATOR >= (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = packed_ge,
                  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
COMMENT ON OPERATOR >= (packed_int8, packed_int8) IS 'greater than or equal';

CREATE OPERATOR CLASS packed_int8_ops DEFAULT FOR TYPE packed_int8 USING btree AS
    OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
    FUNCTION 1 packed_cmp(packed_int8, packed_int8);
CREATE OPERATOR CLASS packed_int8_ops DEFAULT FOR TYPE packed_int8 USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 packed_hash(packed_int8),
    FUNCTION 2 packed_hash_extended(packed_int8, int8);

-- GIN: the index holds each row's distinct keys (an empty row is GIN's
-- empty item).  Strategies as PostgreSQL's array_ops: 1 &&, 2 @>, 3 <@,
-- 4 =.  && is answered from the index; @> <@ = are rechecked on the row
-- (the counts are not in the index).
CREATE FUNCTION packed_gin_extract_value(packed_int8, internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'setops_packed_gin_extract_value'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION packed_gin_extract_query(packed_int8, internal, int2, internal, internal, internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'setops_packed_gin_extract_query'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION packed_gin_consistent(internal, int2, packed_int8, int4, internal, internal, internal, internal)
RETURNS bool
AS 'MODULE_PATHNAME', 'setops_packed_gin_consistent'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION packed_gin_triconsistent(internal, int2, packed_int8, int4, internal, internal, internal)
RETURNS "char"
AS 'MODULE_PATHNAME', 'setops_packed_gin_triconsistent'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR CLASS packed_int8_ops DEFAULT FOR TYPE packed_int8 USING gin AS
    OPERATOR 1 &&, OPERATOR 2 @>, OPERATOR 3 <@, OPERATOR 4 =,
    FUNCTION 1 btint8cmp(int8, int8),
    FUNCTION 2 packed_gin_extract_value(packed_int8, internal, internal),
    FUNCTION 3 packed_gin_extract_query(packed_int8, internal, int2, internal, internal, internal, internal),
    FUNCTION 4 packed_gin_consistent(internal, int2, packed_int8, int4, internal, internal, internal, internal),
    FUNCTION 6 packed_gin_triconsistent(internal, int2, packed_int8, int4, internal, internal, internal),
    STORAGE int8;
