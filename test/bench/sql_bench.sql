-- sql_bench.sql: end-to-end timings of array_intersect_gpu inside PostgreSQL,
-- as a user sees them, against intarray's & on the same arrays.
--
-- Arrays are held in PL/pgSQL variables (expanded arrays, as a PL/pgSQL user
-- has them) and the clock is read around the call.  Keys are distinct,
-- sorted and random (about one key in every 4 values of the range), so
-- intarray's set semantics and setops' multiset semantics agree, and every
-- run's result is compared between the two: no run skips work.  Each figure
-- is the median of `runs` runs.
--
-- Needs: CREATE EXTENSION setops; CREATE EXTENSION intarray.
-- The time split of the last run comes from setops_last_timing(): read
-- (reading the arguments; detoasting for stored arrays), upload / kernel /
-- download (GPU), cpu (CPU engine with its order check) and result (building
-- the result array).  Note: in PL/pgSQL an IMMUTABLE call on variables is
-- folded at plan time on flattened copies of the variables; that is what a
-- PL/pgSQL user pays, and it is included in both columns (setops and
-- intarray alike) but not in the split.
--
-- Usage: SELECT * FROM pg_temp.setops_bench_intersect('{cpu,gpu}', 3);
--        SELECT * FROM pg_temp.setops_bench_stored('{cpu,gpu}', 3);
--        SELECT * FROM pg_temp.setops_bench_crossover(5);
--        SELECT * FROM pg_temp.setops_bench_packed('{cpu,gpu}', 3);
-- Each takes its sizes as arguments (intersect: a scale of its cases), so
-- that test/bench/smoke.sh runs every one of them tiny in CI.

-- n distinct sorted keys spread over [0, range)
CREATE OR REPLACE FUNCTION pg_temp.bench_keys(n int, range bigint) RETURNS int4[]
LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(array_agg((i * (range / n) + floor(random() * (range / n)))::int4 ORDER BY i), '{}')
    FROM generate_series(0, n - 1) i
$$;

CREATE OR REPLACE FUNCTION pg_temp.median(v float8[]) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT x FROM unnest(v) x ORDER BY x OFFSET (cardinality(v) - 1) / 2 LIMIT 1
$$;

-- the time split of the last operation, rounded to microseconds
CREATE OR REPLACE FUNCTION pg_temp.last_split(OUT read_ms numeric, OUT upload_ms numeric,
                                              OUT kernel_ms numeric, OUT download_ms numeric,
                                              OUT cpu_ms numeric, OUT result_ms numeric,
                                              OUT decode_ms numeric)
LANGUAGE sql VOLATILE AS $$
    SELECT round(l.read_ms::numeric, 3), round(l.upload_ms::numeric, 3),
           round(l.kernel_ms::numeric, 3), round(l.download_ms::numeric, 3),
           round(l.cpu_ms::numeric, 3), round(l.result_ms::numeric, 3),
           round(l.decode_ms::numeric, 3)
    FROM setops_last_timing() l
$$;

CREATE OR REPLACE FUNCTION pg_temp.setops_bench_intersect(devices text[], runs int DEFAULT 3,
                                                          scale float8 DEFAULT 1)
RETURNS TABLE (case_name text, n_a int, n_b int, device text, setops_ms numeric,
               intarray_ms numeric, speedup numeric, read_ms numeric, upload_ms numeric,
               kernel_ms numeric, download_ms numeric, cpu_ms numeric, result_ms numeric)
LANGUAGE plpgsql AS $$
DECLARE
    cases int[][] := '{{1000,1000},{65536,65536},{1000000,1000000},{4000000,4000000},{16000000,16000000},{1000,4000000}}';
    a int4[];
    b int4[];
    r1 int4[];
    r2 int4[];
    t timestamptz;
    ts float8[];
    ti float8[];
    c int;
    i int;
    dev text;
    range bigint;
BEGIN
    FOR c IN 1 .. array_length(cases, 1) LOOP
        cases[c][1] := greatest(1, round(cases[c][1] * scale));
        cases[c][2] := greatest(1, round(cases[c][2] * scale));
        range := 4 * greatest(cases[c][1], cases[c][2]);
        a := pg_temp.bench_keys(cases[c][1], range);
        b := pg_temp.bench_keys(cases[c][2], range);
        -- intarray, once per case
        ti := '{}';
        FOR i IN 1 .. runs LOOP
            t := clock_timestamp();
            r2 := a & b;
            ti := ti || extract(epoch FROM clock_timestamp() - t) * 1000;
        END LOOP;
        FOREACH dev IN ARRAY devices LOOP
            PERFORM set_config('setops.device', dev, true);
            ts := '{}';
            FOR i IN 1 .. runs LOOP
                t := clock_timestamp();
                r1 := array_intersect_gpu(a, b);
                ts := ts || extract(epoch FROM clock_timestamp() - t) * 1000;
                IF r1 IS DISTINCT FROM r2 THEN
                    RAISE EXCEPTION 'results differ for % (%): % vs % elements',
                        cases[c][1] || '+' || cases[c][2], dev, cardinality(r1), cardinality(r2);
                END IF;
            END LOOP;
            case_name := CASE WHEN cases[c][1] = cases[c][2] THEN 'equal sizes' ELSE 'skewed' END;
            n_a := cardinality(a);
            n_b := cardinality(b);
            device := dev;
            setops_ms := round(pg_temp.median(ts)::numeric, 3);
            intarray_ms := round(pg_temp.median(ti)::numeric, 3);
            speedup := round((pg_temp.median(ti) / greatest(pg_temp.median(ts), 0.001))::numeric, 1);
            SELECT l.read_ms, l.upload_ms, l.kernel_ms, l.download_ms, l.cpu_ms, l.result_ms
              INTO read_ms, upload_ms, kernel_ms, download_ms, cpu_ms, result_ms
              FROM pg_temp.last_split() l;
            RETURN NEXT;
        END LOOP;
        PERFORM set_config('setops.device', 'auto', true);
    END LOOP;
END;
$$;

-- Stored arrays: one row of two n-element int4[] columns, TOASTed (stored
-- out of line); the query reads them from the table, so read_ms includes
-- detoasting.  intarray's & runs on the same row.
CREATE OR REPLACE FUNCTION pg_temp.setops_bench_stored(devices text[], runs int DEFAULT 3,
                                                       n int DEFAULT 16000000)
RETURNS TABLE (n_a int, n_b int, device text, setops_ms numeric, intarray_ms numeric,
               speedup numeric, read_ms numeric, upload_ms numeric, kernel_ms numeric,
               download_ms numeric, cpu_ms numeric, result_ms numeric)
LANGUAGE plpgsql AS $$
DECLARE
    r1 int4[];
    r2 int4[];
    t timestamptz;
    ts float8[];
    ti float8[];
    i int;
    dev text;
BEGIN
    DROP TABLE IF EXISTS pg_temp.bench_stored;
    CREATE TEMP TABLE bench_stored (a int4[], b int4[]);
    INSERT INTO bench_stored SELECT pg_temp.bench_keys(n, 4::bigint * n), pg_temp.bench_keys(n, 4::bigint * n);
    ti := '{}';
    FOR i IN 1 .. runs LOOP
        t := clock_timestamp();
        SELECT s.a & s.b INTO r2 FROM bench_stored s;
        ti := ti || extract(epoch FROM clock_timestamp() - t) * 1000;
    END LOOP;
    FOREACH dev IN ARRAY devices LOOP
        PERFORM set_config('setops.device', dev, true);
        ts := '{}';
        FOR i IN 1 .. runs LOOP
            t := clock_timestamp();
            SELECT array_intersect_gpu(s.a, s.b) INTO r1 FROM bench_stored s;
            ts := ts || extract(epoch FROM clock_timestamp() - t) * 1000;
            IF r1 IS DISTINCT FROM r2 THEN
                RAISE EXCEPTION 'stored: results differ (%)', dev;
            END IF;
        END LOOP;
        n_a := n;
        n_b := n;
        device := dev;
        setops_ms := round(pg_temp.median(ts)::numeric, 3);
        intarray_ms := round(pg_temp.median(ti)::numeric, 3);
        speedup := round((pg_temp.median(ti) / greatest(pg_temp.median(ts), 0.001))::numeric, 1);
        SELECT l.read_ms, l.upload_ms, l.kernel_ms, l.download_ms, l.cpu_ms, l.result_ms
          INTO read_ms, upload_ms, kernel_ms, download_ms, cpu_ms, result_ms
          FROM pg_temp.last_split() l;
        RETURN NEXT;
    END LOOP;
    PERFORM set_config('setops.device', 'auto', true);
END;
$$;

-- Crossover: cpu, gpu and auto on the same arrays from 1K to 64M elements a
-- side (medians of `runs`), to place setops.gpu_min_elements and to check
-- that auto is never far from the better of the two.  The three answers
-- are compared.  gpu_device: what the gpu column runs on (smoke runs
-- without a GPU name cpu or auto there).
CREATE OR REPLACE FUNCTION pg_temp.setops_bench_crossover(runs int DEFAULT 5,
                                                          max_n int DEFAULT 67108864,
                                                          gpu_device text DEFAULT 'gpu')
RETURNS TABLE (n_per_side int, cpu_ms numeric, gpu_ms numeric, auto_ms numeric,
               auto_vs_best numeric)
LANGUAGE plpgsql AS $$
DECLARE
    sizes int[] := '{1024,4096,16384,65536,131072,262144,524288,1048576,4194304,16777216,67108864}';
    a int4[];
    b int4[];
    r int4[];
    first int4[];
    t timestamptz;
    ms float8[];
    m float8[];
    n int;
    dev text;
    k int;
BEGIN
    FOREACH n IN ARRAY sizes LOOP
        CONTINUE WHEN n > max_n;
        a := pg_temp.bench_keys(n, 4::bigint * n);
        b := pg_temp.bench_keys(n, 4::bigint * n);
        m := '{}';
        first := NULL;
        FOREACH dev IN ARRAY ARRAY['cpu', gpu_device, 'auto'] LOOP
            PERFORM set_config('setops.device', dev, true);
            r := array_intersect_gpu(a, b);		-- warm-up
            ms := '{}';
            FOR k IN 1 .. runs LOOP
                t := clock_timestamp();
                r := array_intersect_gpu(a, b);
                ms := ms || extract(epoch FROM clock_timestamp() - t) * 1000;
            END LOOP;
            IF first IS NULL THEN
                first := r;
            ELSIF r IS DISTINCT FROM first THEN
                RAISE EXCEPTION 'crossover: % and cpu differ at % a side: % vs % elements',
                    dev, n, cardinality(r), cardinality(first);
            END IF;
            m := m || pg_temp.median(ms);
        END LOOP;
        n_per_side := n;
        cpu_ms := round(m[1]::numeric, 3);
        gpu_ms := round(m[2]::numeric, 3);
        auto_ms := round(m[3]::numeric, 3);
        auto_vs_best := round((m[3] / least(m[1], m[2]))::numeric, 2);
        RETURN NEXT;
    END LOOP;
    PERFORM set_config('setops.device', 'auto', true);
END;
$$;

-- Packed against plain storage, from a table: one row holding the same two
-- n-element sorted random int4 sequences (keys in [0, 2n), duplicates
-- included) as int4[] columns (default TOAST: pglz is tried and gives up,
-- so they are stored out of line uncompressed) and as packed_int4 columns
-- (external storage).  The query reads both values of the row and
-- intersects them: 'int4[]' gives an int4[], 'packed' a packed_int4 (the
-- result packed on the CPU).  Both results are compared every run.  Split:
-- read = fetching the values (detoast), upload = transfer, decode =
-- unpacking (GPU or CPU), kernel / cpu = the operation, result = building
-- (for packed: packing) the result.
CREATE OR REPLACE FUNCTION pg_temp.setops_bench_packed(devices text[], runs int DEFAULT 3,
                                                       n int DEFAULT 16777216)
RETURNS TABLE (storage text, device text, ms numeric, vs_int4_array numeric,
               stored_bytes bigint, read_ms numeric, upload_ms numeric, decode_ms numeric,
               kernel_ms numeric, download_ms numeric, cpu_ms numeric, result_ms numeric)
LANGUAGE plpgsql AS $$
DECLARE
    r1 int4[];
    r2 packed_int4;
    first int4[];
    t timestamptz;
    ts float8[];
    base float8;
    i int;
    dev text;
    kind text;
BEGIN
    DROP TABLE IF EXISTS pg_temp.bench_packed;
    CREATE TEMP TABLE bench_packed (a int4[], b int4[], pa packed_int4, pb packed_int4);
    INSERT INTO bench_packed (a, b)
    SELECT array_sort_gpu(ARRAY(SELECT floor(random() * 2 * n)::int4 FROM generate_series(1, n))),
           array_sort_gpu(ARRAY(SELECT floor(random() * 2 * n)::int4 FROM generate_series(1, n)));
    UPDATE bench_packed SET pa = a, pb = b;
    FOREACH dev IN ARRAY devices LOOP
        PERFORM set_config('setops.device', dev, true);
        FOREACH kind IN ARRAY '{int4[],packed}'::text[] LOOP
            ts := '{}';
            FOR i IN 1 .. runs LOOP
                IF kind = 'int4[]' THEN
                    t := clock_timestamp();
                    SELECT array_intersect_gpu(s.a, s.b) INTO r1 FROM bench_packed s;
                    ts := ts || extract(epoch FROM clock_timestamp() - t) * 1000;
                ELSE
                    t := clock_timestamp();
                    SELECT array_intersect_gpu(s.pa, s.pb) INTO r2 FROM bench_packed s;
                    ts := ts || extract(epoch FROM clock_timestamp() - t) * 1000;
                END IF;
                SELECT l.read_ms, l.upload_ms, l.decode_ms, l.kernel_ms, l.download_ms, l.cpu_ms,
                       l.result_ms
                  INTO read_ms, upload_ms, decode_ms, kernel_ms, download_ms, cpu_ms, result_ms
                  FROM pg_temp.last_split() l;
            END LOOP;
            IF kind = 'packed' AND r2::int4[] IS DISTINCT FROM r1 THEN
                RAISE EXCEPTION 'packed: results differ (%)', dev;
            END IF;
            -- and every device answers as the first
            IF first IS NULL THEN
                first := r1;
            ELSIF r1 IS DISTINCT FROM first THEN
                RAISE EXCEPTION 'packed: % and % differ', dev, devices[1];
            END IF;
            storage := kind;
            device := dev;
            ms := round(pg_temp.median(ts)::numeric, 3);
            IF kind = 'int4[]' THEN
                base := pg_temp.median(ts);
            END IF;
            vs_int4_array := round((base / greatest(pg_temp.median(ts), 0.001))::numeric, 2);
            SELECT CASE WHEN kind = 'int4[]' THEN pg_column_size(s.a) + pg_column_size(s.b)
                        ELSE pg_column_size(s.pa) + pg_column_size(s.pb) END
              INTO stored_bytes FROM bench_packed s;
            RETURN NEXT;
        END LOOP;
    END LOOP;
    PERFORM set_config('setops.device', 'auto', true);
END;
$$;
