-- 15_similarity_batch.sql: the count, similarity and predicate batches
-- (array_intersect_count_batch ... array_contained_by_batch) OVER (...),
-- every function in every form the per-row function takes (int4[], int8[],
-- packed_int4/8, packed with an array either way), on random and
-- adversarial rows: tiny rows with NULL rows among them, empty rows, one
-- huge row (100k keys) among tiny ones, long duplicate runs, the key types'
-- extremes.  The query side (b) comes per row (a column), as a parameter
-- (a PL/pgSQL variable: one b shared by the whole batch), and as a column
-- equal over runs of rows (shared, then not).
--
-- Each row's value is compared with the per-row function on the same row
-- AND with the independent reference (reference.psql's key-rank sets in
-- plain SQL: their sizes, whether the intersection is empty, whether b - a
-- or a - b is): a check fails when any row differs or is missing.  Errors
-- (unsorted rows, NULL elements, several dimensions) must be the per-row
-- function's, message and detail, the function's name aside; a NULL query
-- gives NULL in every row; a partition of more rows than one chunk holds
-- (65,536) is compared row by row.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql

SELECT setseed(0.1515);

CREATE TEMP TABLE srows (id int PRIMARY KEY, grp text NOT NULL, a int8[], b int8[]);
-- tiny rows, keys 0..8 (duplicates galore), some NULL on either side
INSERT INTO srows
SELECT g, 'tiny',
       CASE WHEN g % 23 = 0 THEN NULL ELSE pg_temp.rand_sorted(floor(random() * 6)::int, 0, 8) END,
       CASE WHEN g % 31 = 0 THEN NULL ELSE pg_temp.rand_sorted(floor(random() * 6)::int, 0, 8) END
FROM generate_series(1, 600) g;
-- empty rows: a, b or both '{}'
INSERT INTO srows
SELECT g, 'empty',
       CASE WHEN g % 3 = 0 THEN '{}' ELSE pg_temp.rand_sorted(3, 0, 5) END,
       CASE WHEN g % 2 = 0 THEN '{}' ELSE pg_temp.rand_sorted(2, 0, 5) END
FROM generate_series(601, 660) g;
-- one huge row among small ones, and a huge b; containment both ways
INSERT INTO srows
SELECT g, 'huge',
       CASE WHEN g = 700 THEN pg_temp.rand_sorted(100000, 0, 30000)
            ELSE pg_temp.rand_sorted(floor(random() * 5)::int, 0, 30000) END,
       CASE WHEN g = 710 THEN pg_temp.rand_sorted(100000, 0, 30000)
            ELSE pg_temp.rand_sorted(floor(random() * 5)::int, 0, 30000) END
FROM generate_series(661, 760) g;
UPDATE srows SET b = a[1000:1200] WHERE id = 700;
UPDATE srows SET a = b[5:50] || b[5:50] WHERE id = 710;
UPDATE srows SET a = (SELECT array_agg(k ORDER BY k) FROM unnest(b[5:50] || b[5:50]) k) WHERE id = 710;
-- long duplicate runs; equal rows; a row within the other
INSERT INTO srows
SELECT g, 'runs', pg_temp.rand_runs(3, 20, 300), pg_temp.rand_runs(3, 20, 300)
FROM generate_series(761, 820) g;
UPDATE srows SET b = a WHERE id IN (761, 762);
UPDATE srows SET b = a[2:cardinality(a) - 3] WHERE id IN (763, 764);
-- the types' extremes mixed with ordinary keys
INSERT INTO srows
SELECT g, CASE WHEN g <= 900 THEN 'extremes int8' ELSE 'extremes int4' END,
       pg_temp.rand_extreme(floor(random() * 20)::int, CASE WHEN g <= 900 THEN 64 ELSE 32 END),
       pg_temp.rand_extreme(floor(random() * 20)::int, CASE WHEN g <= 900 THEN 64 ELSE 32 END)
FROM generate_series(821, 980) g;

-- the b every row meets in the shared forms: dup-heavy over the tiny keys
CREATE TEMP TABLE probe AS SELECT pg_temp.rand_sorted(300, 0, 60) AS p;

-- b per kind of call, and whether the row's keys fit int4
CREATE TEMP TABLE inputs AS
SELECT r.id, r.grp, k.kind, r.a,
       CASE k.kind WHEN 'per-row' THEN r.b
                   WHEN 'parameter' THEN (SELECT p FROM probe)
                   ELSE CASE WHEN r.id % 200 < 100 THEN (SELECT p FROM probe) ELSE r.b END END AS b,
       NOT EXISTS (SELECT FROM unnest(r.a || r.b || (SELECT p FROM probe)) x
                   WHERE x NOT BETWEEN -2147483648 AND 2147483647) AS fits4
FROM srows r CROSS JOIN (VALUES ('per-row'), ('parameter'), ('column runs')) k(kind);

-- the independent reference, from the key-rank sets: their sizes, and
-- whether the intersection, a - b and b - a are empty
CREATE TEMP TABLE ref AS
SELECT i.id, i.kind,
       cardinality(r.i)::int8 AS ni, cardinality(r.u)::int8 AS nu,
       cardinality(r.d)::int8 AS nd, cardinality(r.s)::int8 AS ns,
       cardinality(r.s) - cardinality(r.d) AS nd_ba
FROM inputs i LEFT JOIN LATERAL pg_temp.ref_setops(i.a, i.b) r ON true;

-- The functions, their reference values, and the forms
CREATE TEMP TABLE fns (fn text PRIMARY KEY);
INSERT INTO fns VALUES ('intersect_count'), ('union_count'), ('difference_count'), ('symdiff_count'),
    ('jaccard'), ('overlaps'), ('contains'), ('contained_by');
CREATE TEMP TABLE forms (form text PRIMARY KEY, ta text NOT NULL, tb text NOT NULL, int4 bool NOT NULL);
INSERT INTO forms VALUES
    ('int4[] int4[]', 'int4[]', 'int4[]', true),
    ('packed_int4 packed_int4', 'packed_int4', 'packed_int4', true),
    ('packed_int4 int4[]', 'packed_int4', 'int4[]', true),
    ('int4[] packed_int4', 'int4[]', 'packed_int4', true),
    ('int8[] int8[]', 'int8[]', 'int8[]', false),
    ('packed_int8 packed_int8', 'packed_int8', 'packed_int8', false),
    ('packed_int8 int8[]', 'packed_int8', 'int8[]', false),
    ('int8[] packed_int8', 'int8[]', 'packed_int8', false);

-- the arguments in every form (int4 forms: rows whose keys do not fit go as NULL rows)
CREATE TEMP TABLE args AS
SELECT i.id, i.kind, f.form, i.a, i.b, (NOT f.int4 OR i.fits4) AS fits
FROM inputs i CROSS JOIN forms f;

-- the batch's values with the per-row function's beside them, as text
CREATE TEMP TABLE got (id int, kind text, form text, fn text, batch text, plain text);
CREATE FUNCTION pg_temp.run_batches() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    f record;
    fo record;
    pr int8[] := (SELECT p FROM probe);
    a text;
    b text;
BEGIN
    FOR fo IN SELECT * FROM forms LOOP
        a := format('CASE WHEN fits THEN a::%s::%s END', CASE WHEN fo.int4 THEN 'int4[]' ELSE 'int8[]' END, fo.ta);
        b := format('CASE WHEN fits THEN b::%s::%s END', CASE WHEN fo.int4 THEN 'int4[]' ELSE 'int8[]' END, fo.tb);
        FOR f IN SELECT * FROM fns LOOP
            -- per row and column runs: b from the table
            EXECUTE format($q$
                INSERT INTO got
                SELECT id, kind, form, %1$L, array_%1$s_batch(%2$s, %3$s) OVER (PARTITION BY kind ORDER BY id)::text,
                       array_%1$s(%2$s, %3$s)::text
                FROM args WHERE form = %4$L AND kind <> 'parameter'$q$, f.fn, a, b, fo.form);
            -- a parameter: the same Datum in every row
            EXECUTE format($q$
                INSERT INTO got
                SELECT id, kind, form, %1$L, array_%1$s_batch(%2$s, $1::%4$s::%5$s) OVER (ORDER BY id)::text,
                       array_%1$s(%2$s, $1::%4$s::%5$s)::text
                FROM args WHERE form = %3$L AND kind = 'parameter'$q$, f.fn, a, fo.form,
                CASE WHEN fo.int4 THEN 'int4[]' ELSE 'int8[]' END, fo.tb) USING pr;
        END LOOP;
    END LOOP;
END
$$;
SELECT pg_temp.run_batches();

CREATE TEMP TABLE combos AS
SELECT k.kind, fo.form, f.fn
FROM (VALUES ('per-row'), ('parameter'), ('column runs')) k(kind), forms fo, fns f;

ANALYZE args;
ANALYZE got;
ANALYZE ref;
-- per row: the batch's value, the per-row function's and the reference's
-- (NULL for a NULL argument or keys that do not fit the form)
CREATE TEMP TABLE verdicts AS
SELECT i.id, i.kind, i.form, f.fn, g.id IS NOT NULL AS ran, g.batch, g.plain,
       CASE WHEN i.fits THEN CASE f.fn
           WHEN 'intersect_count' THEN r.ni::text
           WHEN 'union_count' THEN r.nu::text
           WHEN 'difference_count' THEN r.nd::text
           WHEN 'symdiff_count' THEN r.ns::text
           WHEN 'jaccard' THEN (CASE WHEN r.nu = 0 THEN 1.0::float8 ELSE r.ni::float8 / r.nu END)::text
           WHEN 'overlaps' THEN (r.ni > 0)::text
           WHEN 'contains' THEN (r.nd_ba = 0)::text
           WHEN 'contained_by' THEN (r.nd = 0)::text END END AS ref
FROM args i CROSS JOIN fns f
     JOIN ref r ON r.id = i.id AND r.kind = i.kind
     LEFT JOIN got g ON g.id = i.id AND g.kind = i.kind AND g.form = i.form AND g.fn = f.fn;
CREATE TEMP TABLE verdict AS
SELECT fn, form, kind,
       count(*) FILTER (WHERE NOT ran OR batch IS DISTINCT FROM plain) AS wrong_plain,
       min(id) FILTER (WHERE NOT ran OR batch IS DISTINCT FROM plain) AS first_wrong_plain,
       count(*) FILTER (WHERE NOT ran OR batch IS DISTINCT FROM ref) AS wrong_ref,
       min(id) FILTER (WHERE NOT ran OR batch IS DISTINCT FROM ref) AS first_wrong_ref
FROM verdicts GROUP BY fn, form, kind;

-- Outcome of a query: its one value as text, or its error (SQLSTATE,
-- message, detail) with the function's name as the per-row function's
CREATE FUNCTION pg_temp.outcome(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
    msg text;
    det text;
    st text;
BEGIN
    EXECUTE q INTO r;
    RETURN coalesce(r, 'NULL');
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, st = RETURNED_SQLSTATE;
    RETURN format('ERROR %s: %s / %s', st, regexp_replace(msg, '^(array_[a-z_]+)_batch:', '\1:'), det);
END
$$;

-- bad rows, each after good ones: (case, id, a, b) as text, cast per form
CREATE TEMP TABLE bad (c text, id int, a text, b text);
INSERT INTO bad VALUES
    ('a unsorted', 1, '{1,2}', '{2,3}'), ('a unsorted', 2, '{4,3}', '{7}'), ('a unsorted', 3, '{1}', '{1}'),
    ('b unsorted', 1, '{1,2}', '{2,3}'), ('b unsorted', 2, '{7}', '{5,4,9}'), ('b unsorted', 3, '{1}', '{1}'),
    ('both unsorted', 1, '{1,2}', '{2,3}'), ('both unsorted', 2, '{3,1}', '{9,8}'),
    ('unsorted, a key in both', 1, '{1,2}', '{2,3}'), ('unsorted, a key in both', 2, '{1,3,2}', '{1}'),
    ('unsorted, a key in both', 3, '{5}', '{5}'),
    ('NULL element', 1, '{1,2}', '{2,3}'), ('NULL element', 2, '{1,NULL}', '{1}'),
    ('two dimensions', 1, '{1,2}', '{2,3}'), ('two dimensions', 2, '{1}', '{{1,2},{3,4}}'),
    ('after an error, NULL and empty rows', 1, NULL, '{1}'), ('after an error, NULL and empty rows', 2, '{}', '{}'),
    ('after an error, NULL and empty rows', 3, '{2,1}', '{}');
-- the forms an unsorted or malformed value can take: arrays
CREATE TEMP TABLE err_combos AS
SELECT DISTINCT b.c, f.fn, fo.form, fo.ta, fo.tb
FROM bad b, fns f, forms fo
WHERE fo.form IN ('int4[] int4[]', 'int8[] int8[]')
   OR (b.c IN ('a unsorted', 'NULL element') AND fo.form IN ('int4[] packed_int4', 'int8[] packed_int8'))
   OR (b.c IN ('b unsorted', 'two dimensions') AND fo.form IN ('packed_int4 int4[]', 'packed_int8 int8[]'));
-- the array type a form's argument is cast from
CREATE FUNCTION pg_temp.array_of(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN t LIKE 'packed_%' THEN substr(t, 8) || '[]' ELSE t END
$$;
CREATE TEMP TABLE err_got AS
SELECT e.c, e.fn, e.form,
       pg_temp.outcome(format($q$SELECT string_agg(coalesce(x::text, 'NULL'), ',' ORDER BY id) FROM
            (SELECT id, array_%1$s_batch(a::%2$s, b::%3$s) OVER (ORDER BY id) AS x
             FROM (SELECT id, a::%4$s AS a, b::%5$s AS b FROM bad WHERE c = %6$L) s) t$q$,
            e.fn, e.ta, e.tb, pg_temp.array_of(e.ta), pg_temp.array_of(e.tb), e.c)) AS batch,
       pg_temp.outcome(format($q$SELECT string_agg(coalesce(x::text, 'NULL'), ',' ORDER BY id) FROM
            (SELECT id, array_%1$s(a::%2$s, b::%3$s) AS x
             FROM (SELECT id, a::%4$s AS a, b::%5$s AS b FROM bad WHERE c = %6$L ORDER BY id) s) t$q$,
            e.fn, e.ta, e.tb, pg_temp.array_of(e.ta), pg_temp.array_of(e.tb), e.c)) AS plain
FROM err_combos e;

-- more rows than one chunk holds, in one partition: per-row b and a constant
CREATE TEMP TABLE many AS
SELECT g AS id, pg_temp.rand_sorted(1 + g % 4, 0, 6)::int4[] AS a, pg_temp.rand_sorted(g % 3, 0, 6)::int4[] AS b
FROM generate_series(1, 70000) g;
CREATE TEMP TABLE many_got AS
SELECT id,
       array_jaccard_batch(a, b) OVER (ORDER BY id) IS NOT DISTINCT FROM array_jaccard(a, b)
       AND array_intersect_count_batch(a, '{1,2,2,5}'::int4[]) OVER (ORDER BY id)
           IS NOT DISTINCT FROM array_intersect_count(a, '{1,2,2,5}'::int4[])
       AND array_contains_batch(a::packed_int4, b) OVER (ORDER BY id) IS NOT DISTINCT FROM array_contains(a::packed_int4, b)
       AS ok
FROM many;

SELECT plan(3 + 2 * (SELECT count(*)::int FROM combos) + (SELECT count(*)::int FROM err_combos) + 2 * 8 + 1);

SELECT is((SELECT count(*) FROM srows), 980::bigint, 'number of rows');
SELECT ok((SELECT max(cardinality(a)) FROM srows) = 100000 AND (SELECT max(cardinality(b)) FROM srows) = 100000,
          'one huge a and one huge b among the rows');
SELECT ok((SELECT count(*) FROM got) = (SELECT count(*) FROM args) * 8,
          'every function ran on every row of every form');

-- the batch against the per-row function, every row of the kind and form
SELECT is(coalesce(v.wrong_plain, -1), 0::bigint,
          format('%s_batch(%s), b %s: batch = per-row function%s', c.fn, c.form, c.kind,
                 coalesce(' (first wrong row ' || v.first_wrong_plain || ')', '')))
FROM combos c LEFT JOIN verdict v USING (fn, form, kind) ORDER BY c.fn, c.form, c.kind;

-- the batch against the reference (a NULL argument, or keys that do not fit: NULL)
SELECT is(coalesce(v.wrong_ref, -1), 0::bigint,
          format('%s_batch(%s), b %s: batch = reference%s', c.fn, c.form, c.kind,
                 coalesce(' (first wrong row ' || v.first_wrong_ref || ')', '')))
FROM combos c LEFT JOIN verdict v USING (fn, form, kind) ORDER BY c.fn, c.form, c.kind;

-- errors: the per-row function's, in the same row
SELECT is(e.batch, e.plain, format('%s_batch(%s), %s: as per row', e.fn, e.form, e.c))
FROM err_got e ORDER BY e.fn, e.form, e.c;

-- a NULL query: NULL in every row, arrays and packed
SELECT is((SELECT count(*) FROM (
               SELECT pg_temp.outcome(format('SELECT count(*) FILTER (WHERE x IS NOT NULL) FROM (SELECT array_%s_batch(a::int4[], NULL::int4[]) OVER () AS x FROM inputs WHERE kind = ''per-row'' AND fits4) t', f.fn)) AS o) t
           WHERE o = '0'), 1::bigint, format('%s_batch(int4[], NULL): NULL in every row', f.fn))
FROM fns f ORDER BY f.fn;
SELECT is((SELECT count(*) FROM (
               SELECT pg_temp.outcome(format('SELECT count(*) FILTER (WHERE x IS NOT NULL) FROM (SELECT array_%s_batch(a::packed_int8, NULL::packed_int8) OVER () AS x FROM srows) t', f.fn)) AS o) t
           WHERE o = '0'), 1::bigint, format('%s_batch(packed_int8, NULL): NULL in every row', f.fn))
FROM fns f ORDER BY f.fn;

SELECT is((SELECT count(*) FILTER (WHERE ok) FROM many_got), 70000::bigint,
          '70,000 rows in one partition (more than a chunk): jaccard per-row b, intersect count constant b, contains packed = per row');

SELECT * FROM finish();
ROLLBACK;
