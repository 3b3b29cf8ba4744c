-- 09_batch.sql: the window functions array_X_batch(...) OVER (...) on
-- random batches: many tiny rows (NULL rows among them), empty rows, one
-- huge row (200k keys) among tiny ones and a huge B, long duplicate runs, the
-- key types' extremes; both key types, all four operations, keys and pairs.
-- Each row's result is compared with the plain function on the same row AND
-- with the independent SQL reference (reference.psql).  B comes three ways:
-- per row (a column), a PL/pgSQL variable (a parameter: one B shared by the
-- whole batch) and a column equal over runs of rows (shared, then not).
--
-- Every test counts the rows whose batch result differs from the expected
-- one (a row missing from the batch's output counts too): it fails when any
-- row is wrong, and its diagnostics name the first such row.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql

SELECT setseed(0.0909);

CREATE TEMP TABLE rows9 (id int PRIMARY KEY, grp text NOT NULL, a int8[], b int8[]);
-- many tiny rows, keys 0..8 (duplicates galore), some NULL on either side
INSERT INTO rows9
SELECT g, 'tiny',
       CASE WHEN g % 23 = 0 THEN NULL ELSE pg_temp.rand_sorted(floor(random() * 6)::int, 0, 8) END,
       CASE WHEN g % 31 = 0 THEN NULL ELSE pg_temp.rand_sorted(floor(random() * 6)::int, 0, 8) END
FROM generate_series(1, 3000) g;
-- empty rows: a, b or both '{}'
INSERT INTO rows9
SELECT g, 'empty',
       CASE WHEN g % 3 = 0 THEN '{}' ELSE pg_temp.rand_sorted(3, 0, 5) END,
       CASE WHEN g % 2 = 0 THEN '{}' ELSE pg_temp.rand_sorted(2, 0, 5) END
FROM generate_series(3001, 3200) g;
-- one huge row among tiny ones, and a huge B
INSERT INTO rows9
SELECT g, 'huge',
       CASE WHEN g = 3350 THEN pg_temp.rand_sorted(200000, 0, 50000)
            ELSE pg_temp.rand_sorted(floor(random() * 5)::int, 0, 50000) END,
       CASE WHEN g = 3360 THEN pg_temp.rand_sorted(200000, 0, 50000)
            ELSE pg_temp.rand_sorted(floor(random() * 5)::int, 0, 50000) END
FROM generate_series(3201, 3500) g;
-- long duplicate runs
INSERT INTO rows9
SELECT g, 'runs', pg_temp.rand_runs(3, 20, 400), pg_temp.rand_runs(3, 20, 400)
FROM generate_series(3501, 3600) g;
-- the types' extremes mixed with ordinary keys
INSERT INTO rows9
SELECT g, CASE WHEN g <= 3800 THEN 'extremes int8' ELSE 'extremes int4' END,
       pg_temp.rand_extreme(floor(random() * 20)::int, CASE WHEN g <= 3800 THEN 64 ELSE 32 END),
       pg_temp.rand_extreme(floor(random() * 20)::int, CASE WHEN g <= 3800 THEN 64 ELSE 32 END)
FROM generate_series(3601, 4000) g;

-- the B every row meets in the shared forms: dup-heavy over the tiny keys
CREATE TEMP TABLE probe AS SELECT pg_temp.rand_sorted(300, 0, 60) AS p;

-- B per kind of call, and whether the row's keys fit int4
CREATE TEMP TABLE inputs AS
SELECT r.id, r.grp, k.kind, r.a,
       CASE k.kind WHEN 'per-row' THEN r.b
                   WHEN 'parameter' THEN (SELECT p FROM probe)
                   ELSE CASE WHEN r.id % 500 < 250 THEN (SELECT p FROM probe) ELSE r.b END END AS b,
       NOT EXISTS (SELECT FROM unnest(r.a || r.b || (SELECT p FROM probe)) x
                   WHERE x NOT BETWEEN -2147483648 AND 2147483647) AS fits4
FROM rows9 r CROSS JOIN (VALUES ('per-row'), ('parameter'), ('column runs')) k(kind);

-- the independent reference, per distinct (a, b)
CREATE TEMP TABLE ref AS
SELECT i.id, i.kind, r.i, r.u, r.d, r.s
FROM inputs i LEFT JOIN LATERAL pg_temp.ref_setops(i.a, i.b) r ON true;

-- the batch's answers, with the plain function's beside them.  The
-- parameter kind passes B as a PL/pgSQL variable: a parameter, the same
-- Datum in every row.
CREATE TEMP TABLE got (id int, kind text, t text, op text, batch int8[], plain int8[]);
CREATE FUNCTION pg_temp.run_batches() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    op text;
    t text;
    pr int8[] := (SELECT p FROM probe);
    pr4 int4[] := (SELECT p FROM probe)::int4[];
BEGIN
    FOREACH op IN ARRAY ARRAY['intersect', 'union', 'difference', 'symdiff'] LOOP
        -- per row and column runs: B from the table
        EXECUTE format($q$
            INSERT INTO got
            SELECT id, kind, 'int8', %1$L, array_%1$s_batch(a, b) OVER (PARTITION BY kind ORDER BY id),
                   array_%1$s_gpu(a, b)
            FROM inputs WHERE kind <> 'parameter'$q$, op);
        -- int4: rows whose keys do not fit go as NULL rows
        EXECUTE format($q$
            INSERT INTO got
            SELECT id, kind, 'int4', %1$L,
                   array_%1$s_batch(CASE WHEN fits4 THEN a::int4[] END, CASE WHEN fits4 THEN b::int4[] END)
                       OVER (PARTITION BY kind ORDER BY id),
                   array_%1$s_gpu(CASE WHEN fits4 THEN a::int4[] END, CASE WHEN fits4 THEN b::int4[] END)
            FROM inputs WHERE kind <> 'parameter'$q$, op);
        -- a parameter
        EXECUTE format($q$
            INSERT INTO got
            SELECT id, kind, 'int8', %1$L, array_%1$s_batch(a, $1) OVER (ORDER BY id), array_%1$s_gpu(a, $1)
            FROM inputs WHERE kind = 'parameter'$q$, op) USING pr;
        EXECUTE format($q$
            INSERT INTO got
            SELECT id, kind, 'int4', %1$L,
                   array_%1$s_batch(CASE WHEN fits4 THEN a::int4[] END, $1) OVER (ORDER BY id),
                   array_%1$s_gpu(CASE WHEN fits4 THEN a::int4[] END, $1)
            FROM inputs WHERE kind = 'parameter'$q$, op) USING pr4;
    END LOOP;
END
$$;
SELECT pg_temp.run_batches();

CREATE TEMP TABLE ops (op text PRIMARY KEY);
INSERT INTO ops VALUES ('intersect'), ('union'), ('difference'), ('symdiff');
CREATE TEMP TABLE combos AS
SELECT k.kind, t.t, o.op
FROM (VALUES ('per-row'), ('parameter'), ('column runs')) k(kind),
     (VALUES ('int8'), ('int4')) t(t), ops o;

-- pairs: values are positions (a's 0.., b's 1000000..) as float8
CREATE TEMP TABLE pinputs AS
SELECT i.*, ARRAY(SELECT generate_series(0, cardinality(i.a) - 1))::float8[] AS av,
       ARRAY(SELECT generate_series(1000000, 999999 + cardinality(i.b)))::float8[] AS bv
FROM inputs i
WHERE i.kind <> 'column runs' AND (i.grp <> 'tiny' OR i.id <= 300 OR i.a IS NULL);
CREATE TEMP TABLE pgot (id int, kind text, op text, batch text, plain text, ref text);
CREATE FUNCTION pg_temp.run_pairs() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    op text;
BEGIN
    FOREACH op IN ARRAY ARRAY['intersect', 'union', 'difference', 'symdiff'] LOOP
        EXECUTE format($q$
            INSERT INTO pgot
            SELECT id, kind, %1$L, x::text, y::text,
                   CASE WHEN a IS NOT NULL AND b IS NOT NULL THEN
                       (SELECT ROW(r.keys, r.vals)::text FROM pg_temp.ref_pairs(%1$L, a, av, b, bv) r) END
            FROM (SELECT id, kind, a, av, b, bv,
                         array_%1$s_batch(a, av, b, bv) OVER (PARTITION BY kind ORDER BY id) AS x,
                         array_%1$s_gpu(a, av, b, bv) AS y
                  FROM pinputs) s$q$, op);
    END LOOP;
END
$$;
SELECT pg_temp.run_pairs();

SELECT plan(2 + 2 * (SELECT count(*)::int FROM combos) + 2 * 2 * 4);

SELECT is((SELECT count(*) FROM rows9), 4000::bigint, 'number of rows');
SELECT ok((SELECT max(cardinality(a)) FROM rows9) = 200000 AND (SELECT max(cardinality(b)) FROM rows9) = 200000,
          'one huge a and one huge b among the rows');

-- keys: the batch against the plain function, every row of the kind
SELECT is((SELECT count(*) FROM inputs i LEFT JOIN got g
               ON g.id = i.id AND g.kind = i.kind AND g.t = c.t AND g.op = c.op
           WHERE i.kind = c.kind
             AND (g.id IS NULL OR g.batch IS DISTINCT FROM g.plain)),
          0::bigint,
          format('%s %s, B %s: batch = plain function per row%s', c.t, c.op, c.kind,
                 coalesce(' (first wrong row ' || (
                     SELECT min(g.id) FROM got g WHERE g.kind = c.kind AND g.t = c.t AND g.op = c.op
                       AND g.batch IS DISTINCT FROM g.plain) || ')', '')))
FROM combos c ORDER BY c.kind, c.t, c.op;

-- keys: the batch against the reference (a NULL argument: NULL)
SELECT is((SELECT count(*) FROM inputs i JOIN ref r ON r.id = i.id AND r.kind = i.kind
               LEFT JOIN got g ON g.id = i.id AND g.kind = i.kind AND g.t = c.t AND g.op = c.op
           WHERE i.kind = c.kind AND (c.t = 'int8' OR i.fits4)
             AND (g.id IS NULL OR g.batch IS DISTINCT FROM pg_temp.ref_pick(c.op, r.i, r.u, r.d, r.s))),
          0::bigint,
          format('%s %s, B %s: batch = reference per row', c.t, c.op, c.kind))
FROM combos c ORDER BY c.kind, c.t, c.op;

-- pairs (int8 keys, float8 values): against the plain pairs function and
-- the reference, as record text
SELECT is((SELECT count(*) FROM pinputs i LEFT JOIN pgot g ON g.id = i.id AND g.kind = i.kind AND g.op = o.op
           WHERE i.kind = k.kind AND (g.id IS NULL OR g.batch IS DISTINCT FROM g.plain)),
          0::bigint, format('pairs %s, B %s: batch = plain function per row', o.op, k.kind))
FROM ops o, (VALUES ('per-row'), ('parameter')) k(kind) ORDER BY k.kind, o.op;
SELECT is((SELECT count(*) FROM pinputs i LEFT JOIN pgot g ON g.id = i.id AND g.kind = i.kind AND g.op = o.op
           WHERE i.kind = k.kind AND (g.id IS NULL OR g.batch IS DISTINCT FROM g.ref)),
          0::bigint, format('pairs %s, B %s: batch = reference per row', o.op, k.kind))
FROM ops o, (VALUES ('per-row'), ('parameter')) k(kind) ORDER BY k.kind, o.op;

SELECT * FROM finish();
ROLLBACK;
