
--
-- 0.3: the aggregates' transition state is a value of type setops_agg_state
-- rather than internal, so that engines which split aggregates over servers
-- (Citus: a partial aggregate on each worker, the combine on the
-- coordinator) can do so; they refuse pseudo-type states.  In a backend the
-- state is still appended to in place; as a value it is the state reduced
-- to one sorted run.  Text form: 'union int4 {1,2,2,7}'.  An aggregate's
-- type of state cannot be altered: the aggregates are dropped and created
-- again (a view that uses one must be dropped first and created again).
-- SSPACE: what the planner assumed of 0.2's internal states (a group holds
-- about 1 kB at first, and grows with its rows), so that plans stay.
--
CREATE TYPE setops_agg_state;

CREATE FUNCTION setops_agg_state_in(cstring) RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_agg_state_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION setops_agg_state_out(setops_agg_state) RETURNS cstring
AS 'MODULE_PATHNAME', 'setops_agg_state_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION setops_agg_state_recv(internal) RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_agg_state_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION setops_agg_state_send(setops_agg_state) RETURNS bytea
AS 'MODULE_PATHNAME', 'setops_agg_state_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE setops_agg_state (
    INPUT = setops_agg_state_in,
    OUTPUT = setops_agg_state_out,
    RECEIVE = setops_agg_state_recv,
    SEND = setops_agg_state_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE setops_agg_state IS 'partial state of array_intersect_agg, array_union_agg and array_merge_agg: the operation and one sorted run of keys';

DROP AGGREGATE array_intersect_agg(int4[]);
DROP AGGREGATE array_intersect_agg(int8[]);
DROP AGGREGATE array_intersect_agg(packed_int4);
DROP AGGREGATE array_intersect_agg(packed_int8);
DROP AGGREGATE array_union_agg(int4[]);
DROP AGGREGATE array_union_agg(int8[]);
DROP AGGREGATE array_union_agg(packed_int4);
DROP AGGREGATE array_union_agg(packed_int8);
DROP AGGREGATE array_merge_agg(int4[]);
DROP AGGREGATE array_merge_agg(int8[]);
DROP AGGREGATE array_merge_agg(packed_int4);
DROP AGGREGATE array_merge_agg(packed_int8);
DROP FUNCTION setops_intersect_agg_trans(internal, int4[]);
DROP FUNCTION setops_intersect_agg_trans(internal, int8[]);
DROP FUNCTION setops_intersect_agg_trans(internal, packed_int4);
DROP FUNCTION setops_intersect_agg_trans(internal, packed_int8);
DROP FUNCTION setops_union_agg_trans(internal, int4[]);
DROP FUNCTION setops_union_agg_trans(internal, int8[]);
DROP FUNCTION setops_union_agg_trans(internal, packed_int4);
DROP FUNCTION setops_union_agg_trans(internal, packed_int8);
DROP FUNCTION setops_merge_agg_trans(internal, int4[]);
DROP FUNCTION setops_merge_agg_trans(internal, int8[]);
DROP FUNCTION setops_merge_agg_trans(internal, packed_int4);
DROP FUNCTION setops_merge_agg_trans(internal, packed_int8);
DROP FUNCTION setops_agg_final_int4(internal);
DROP FUNCTION setops_agg_final_int8(internal);
DROP FUNCTION setops_agg_final_packed_int4(internal);
DROP FUNCTION setops_agg_final_packed_int8(internal);
DROP FUNCTION setops_agg_combine(internal, internal);
DROP FUNCTION setops_agg_serialize(internal);
DROP FUNCTION setops_agg_deserialize(bytea, internal);

CREATE FUNCTION setops_agg_combine(setops_agg_state, setops_agg_state)
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_agg_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_agg_final_int4(setops_agg_state)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'setops_agg_final_int4'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_agg_final_int8(setops_agg_state)
RETURNS int8[]
AS 'MODULE_PATHNAME', 'setops_agg_final_int8'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_agg_final_packed_int4(setops_agg_state)
RETURNS packed_int4
AS 'MODULE_PATHNAME', 'setops_agg_final_packed_int4'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_agg_final_packed_int8(setops_agg_state)
RETURNS packed_int8
AS 'MODULE_PATHNAME', 'setops_agg_final_packed_int8'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION setops_intersect_agg_trans(setops_agg_state, int4[])
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_intersect_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_intersect_agg(int4[]) (
    SFUNC = setops_intersect_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_int4,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_intersect_agg(int4[]) IS 'multiset intersection of all rows';

CREATE FUNCTION setops_intersect_agg_trans(setops_agg_state, int8[])
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_intersect_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_intersect_agg(int8[]) (
    SFUNC = setops_intersect_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_int8,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_intersect_agg(int8[]) IS 'multiset intersection of all rows';

CREATE FUNCTION setops_intersect_agg_trans(setops_agg_state, packed_int4)
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_intersect_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_intersect_agg(packed_int4) (
    SFUNC = setops_intersect_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_packed_int4,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_intersect_agg(packed_int4) IS 'multiset intersection of all rows (packed)';

CREATE FUNCTION setops_intersect_agg_trans(setops_agg_state, packed_int8)
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_intersect_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_intersect_agg(packed_int8) (
    SFUNC = setops_intersect_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_packed_int8,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_intersect_agg(packed_int8) IS 'multiset intersection of all rows (packed)';

CREATE FUNCTION setops_union_agg_trans(setops_agg_state, int4[])
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_union_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_union_agg(int4[]) (
    SFUNC = setops_union_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_int4,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_union_agg(int4[]) IS 'multiset union of all rows';

CREATE FUNCTION setops_union_agg_trans(setops_agg_state, int8[])
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_union_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_union_agg(int8[]) (
    SFUNC = setops_union_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_int8,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_union_agg(int8[]) IS 'multiset union of all rows';

CREATE FUNCTION setops_union_agg_trans(setops_agg_state, packed_int4)
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_union_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_union_agg(packed_int4) (
    SFUNC = setops_union_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_packed_int4,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_union_agg(packed_int4) IS 'multiset union of all rows (packed)';

CREATE FUNCTION setops_union_agg_trans(setops_agg_state, packed_int8)
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_union_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_union_agg(packed_int8) (
    SFUNC = setops_union_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_packed_int8,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_union_agg(packed_int8) IS 'multiset union of all rows (packed)';

CREATE FUNCTION setops_merge_agg_trans(setops_agg_state, int4[])
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_merge_agg(int4[]) (
    SFUNC = setops_merge_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_int4,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_merge_agg(int4[]) IS 'sorted multiset sum (merge) of all rows';

CREATE FUNCTION setops_merge_agg_trans(setops_agg_state, int8[])
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_merge_agg(int8[]) (
    SFUNC = setops_merge_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_int8,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_merge_agg(int8[]) IS 'sorted multiset sum (merge) of all rows';

CREATE FUNCTION setops_merge_agg_trans(setops_agg_state, packed_int4)
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_merge_agg(packed_int4) (
    SFUNC = setops_merge_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_packed_int4,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_merge_agg(packed_int4) IS 'sorted multiset sum (merge) of all rows (packed)';

CREATE FUNCTION setops_merge_agg_trans(setops_agg_state, packed_int8)
RETURNS setops_agg_state
AS 'MODULE_PATHNAME', 'setops_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE array_merge_agg(packed_int8) (
    SFUNC = setops_merge_agg_trans,
    STYPE = setops_agg_state,
    FINALFUNC = setops_agg_final_packed_int8,
    COMBINEFUNC = setops_agg_combine,
    SSPACE = 8192,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE array_merge_agg(packed_int8) IS 'sorted multiset sum (merge) of all rows (packed)';
