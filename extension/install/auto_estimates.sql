
--
-- 0.4: what setops.device = auto learnt in this session, so that where a
-- call ran (setops_last_timing().reason) can be followed to the times that
-- decided it.
--
CREATE FUNCTION setops_auto_estimates(
    OUT kind text,
    OUT stored bool,
    OUT min_elements int8,
    OUT device text,
    OUT calls int8,
    OUT ms float8,
    OUT cpu_ms float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'setops_auto_estimates'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION setops_auto_estimates() IS
'what setops.device = auto learnt in this session: per kind of call (count, overlaps, contains, operation, operation, packed, pairs, sort), stored arguments or not, size class (inputs'' total from min_elements to twice that) and device (cpu or gpu), the calls measured and moving averages of their time from the decision to the answer (ms) and of this backend''s CPU time in them (cpu_ms; on the GPU the service''s is apart: setops_service.request_cpu_ms); no rows before auto has measured a call';
