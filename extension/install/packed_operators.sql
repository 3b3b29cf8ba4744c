
--
-- 0.2: operators on the packed types (no contrib module claims them; on
-- int4[] intarray owns & | - with set semantics, so setops defines none
-- there).  & | - # after pg_roaringbitmap; && @> <@ as PostgreSQL's array
-- operators, with their selectivity estimators.
--

CREATE OPERATOR & (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = array_intersect_gpu,
                 COMMUTATOR = &);
COMMENT ON OPERATOR & (packed_int4, packed_int4) IS 'multiset intersection';
CREATE OPERATOR | (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = array_union_gpu,
                 COMMUTATOR = |);
COMMENT ON OPERATOR | (packed_int4, packed_int4) IS 'multiset union';
CREATE OPERATOR - (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = array_difference_gpu);
COMMENT ON OPERATOR - (packed_int4, packed_int4) IS 'multiset difference';
CREATE OPERATOR # (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = array_symdiff_gpu,
                 COMMUTATOR = #);
COMMENT ON OPERATOR # (packed_int4, packed_int4) IS 'multiset symmetric difference';
CREATE OPERATOR && (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = array_overlaps,
                  COMMUTATOR = &&, RESTRICT = arraycontsel, JOIN = arraycontjoinsel);
COMMENT ON OPERATOR && (packed_int4, packed_int4) IS 'overlaps: some key in both';
CREATE OPERATOR @> (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = array_contains,
                  COMMUTATOR = <@, RESTRICT = arraycontsel, JOIN = arraycontjoinsel);
COMMENT ON OPERATOR @> (packed_int4, packed_int4) IS 'contains: the right multiset lies within the left';
CREATE OPERATOR <@ (LEFTARG = packed_int4, RIGHTARG = packed_int4, FUNCTION = array_contained_by,
                  COMMUTATOR = @>, RESTRICT = arraycontsel, JOIN = arraycontjoinsel);
COMMENT ON OPERATOR <@ (packed_int4, packed_int4) IS 'is contained by: the left multiset lies within the right';

CREATE OPERATOR & (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = array_intersect_gpu,
                 COMMUTATOR = &);
COMMENT ON OPERATOR & (packed_int8, packed_int8) IS 'multiset intersection';
CREATE OPERATOR | (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = array_union_gpu,
                 COMMUTATOR = |);
COMMENT ON OPERATOR | (packed_int8, packed_int8) IS 'multiset union';
CREATE OPERATOR - (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = array_difference_gpu);
COMMENT ON OPERATOR - (packed_int8, packed_int8) IS 'multiset difference';
CREATE OPERATOR # (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = array_symdiff_gpu,
                 COMMUTATOR = #);
COMMENT ON OPERATOR # (packed_int8, packed_int8) IS 'multiset symmetric difference';
CREATE OPERATOR && (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = array_overlaps,
                  COMMUTATOR = &&, RESTRICT = arraycontsel, JOIN = arraycontjoinsel);
COMMENT ON OPERATOR && (packed_int8, packed_int8) IS 'overlaps: some key in both';
CREATE OPERATOR @> (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = array_contains,
                  COMMUTATOR = <@, RESTRICT = arraycontsel, JOIN = arraycontjoinsel);
COMMENT ON OPERATOR @> (packed_int8, packed_int8) IS 'contains: the right multiset lies within the left';
CREATE OPERATOR <@ (LEFTARG = packed_int8, RIGHTARG = packed_int8, FUNCTION = array_contained_by,
                  COMMUTATOR = @>, RESTRICT = arraycontsel, JOIN = arraycontjoinsel);
COMMENT ON OPERATOR <@ (packed_int8, packed_int8) IS 'is contained by: the left multiset lies within the right';
