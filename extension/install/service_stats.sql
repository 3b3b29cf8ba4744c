
--
-- 0.4: what the GPU service does.  setops_service_stats() (and the view
-- setops_service over it): per device, its streams, the requests queued or
-- running, and the requests, launches, shared launches, waiting and running
-- times and cache copies since the server started, the time its main
-- thread took handing requests on, and its CPU time a request.
-- setops_last_timing() gains four columns for the last request (the GPU that answered, its wait
-- for a stream, the requests that shared its launch, why it ran where it
-- ran): a function's result type cannot be altered, so it is dropped and
-- created again (the library fills as many columns as the definition it is
-- called through has, so a database left at 0.3 keeps working).
--
CREATE FUNCTION setops_service_stats(
    OUT device int,
    OUT streams int,
    OUT queued int,
    OUT requests int8,
    OUT launches int8,
    OUT batched int8,
    OUT wait_ms float8,
    OUT run_ms float8,
    OUT copies int8,
    OUT dispatch_ms float8,
    OUT request_cpu_ms float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'setops_service_stats'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION setops_service_stats() IS
'per device of the GPU service: its streams (requests run side by side), requests queued or running now, requests run, launches (trips to the device: counts that waited together share one), requests that shared a launch, summed time requests waited for a stream and ran (ms), cached arrays copied to the device for a request, the summed time the service''s main thread took to hand requests on (ms; one thread takes every device''s requests, so every row shows the same), and the CPU time the service''s threads spend on a request (ms, a moving average; spinning waits for the GPU included, polling for work left out; the same in every row); no rows without the service';

CREATE VIEW setops_service AS SELECT * FROM setops_service_stats();
COMMENT ON VIEW setops_service IS
'the GPU service per device: setops_service_stats() (no rows without the service)';
-- readable by every role, as the function it reads is callable by every
-- role (the view is owned by the superuser who ran the script, or in a
-- trusted install the bootstrap superuser)
GRANT SELECT ON setops_service TO PUBLIC;

DROP FUNCTION setops_last_timing();
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
    OUT streamed_rows int8,
    OUT gpu int,
    OUT queue_ms float8,
    OUT batched int,
    OUT reason text)
RETURNS record
AS 'MODULE_PATHNAME', 'setops_last_timing'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION setops_last_timing() IS
'time split of the last two-argument set operation or aggregate final function in this backend, for benchmarks; streamed_rows: the aggregate''s rows that went to the GPU as they came (setops.agg_stream_min_size); for those, read_ms is taking the rows and upload_ms waiting for their transfers, both before the final function and not in total_ms; gpu: the GPU that answered (NULL on the CPU); queue_ms: the time the request waited in the GPU service for a stream; batched: the requests that shared its launch (0 alone); reason: why it ran where it ran';
