-- 05_expanded_and_edge.sql: arrays as PL/pgSQL holds them, and edges.
--
-- PL/pgSQL keeps array variables as expanded arrays: one assigned from a
-- query is still backed by its flat form; one built element by element
-- (v[i] := x) is held element by element.  Both must give the reference's
-- results, for keys, pairs (values too), sort/distinct and aggregates, and
-- unsorted or NULL-holding ones must raise the same errors as flat arrays.
-- Also: the exact position reported for unsorted input, lower bounds other
-- than 1, empty results, NULL arguments, malformed arguments, and large
-- inputs against the reference in the session's setops.device and in cpu.
--
-- Mode-independent: run under any setops.device (the one test that sets it
-- does so with SET LOCAL and restores the session's value).
BEGIN;
\ir reference.psql

-- PL/pgSQL marks its parameters constant for custom plans, so the planner
-- would fold these IMMUTABLE calls with flattened copies of the variables
-- and the extension would never see an expanded array.  Generic plans keep
-- the variables as parameters, passed as expanded arrays (read-only).
SET LOCAL plan_cache_mode = force_generic_plan;

-- How a PL/pgSQL local copy of an array is made (how):
--   'query'   assigned from a query: an expanded array backed by a flat one
--   'query5'  the same, with lower bound 5
--   'elem'    v[i] := x for each element: held element by element
--   'elem5'   the same from subscript 5 (lower bound 5)
-- The copies are made inside the functions that pass them to the extension,
-- so that the extension sees the variables themselves.
CREATE FUNCTION pg_temp.copy_code(v text, src text, how text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format($c$
        IF %3$s IN ('query', 'query5') THEN
            %1$s := (SELECT coalesce(array_agg(k ORDER BY o), '{}')
                     FROM unnest(%2$s) WITH ORDINALITY AS t(k, o));
            IF %3$s = 'query5' AND cardinality(%2$s) > 0 THEN
                %1$s := (SELECT format('[5:%%s]=%%s', 4 + cardinality(%2$s), %1$s::text)::%4$s);
            END IF;
        ELSE
            %1$s := '{}';
            FOR i IN 1 .. cardinality(%2$s) LOOP
                %1$s[i + CASE %3$s WHEN 'elem5' THEN 4 ELSE 0 END] := %2$s[array_lower(%2$s, 1) + i - 1];
            END LOOP;
        END IF;$c$, v, src, how, '%6$s')
$$;

-- Keys form, sort/distinct and pairs, for both key types.
DO $do$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['int4', 'int8'] LOOP
        EXECUTE format($f$
            CREATE FUNCTION pg_temp.exp_setop(op text, a_in %1$s[], b_in %1$s[], how_a text, how_b text)
            RETURNS %1$s[] LANGUAGE plpgsql AS $fn$
            DECLARE
                a %1$s[];
                b %1$s[];
            BEGIN
                %2$s
                %3$s
                RETURN CASE op WHEN 'intersect' THEN array_intersect_gpu(a, b)
                               WHEN 'union' THEN array_union_gpu(a, b)
                               WHEN 'difference' THEN array_difference_gpu(a, b)
                               WHEN 'symdiff' THEN array_symdiff_gpu(a, b) END;
            END
            $fn$;
            CREATE FUNCTION pg_temp.exp_sort(fn text, a_in %1$s[], how_a text)
            RETURNS %1$s[] LANGUAGE plpgsql AS $fn$
            DECLARE
                a %1$s[];
            BEGIN
                %2$s
                RETURN CASE fn WHEN 'sort' THEN array_sort_gpu(a) ELSE array_distinct_gpu(a) END;
            END
            $fn$;
            CREATE FUNCTION pg_temp.exp_pairs(op text, a_in %1$s[], av_in anyarray, b_in %1$s[],
                                              bv_in anyarray, how_a text, how_b text,
                                              OUT keys %1$s[], OUT vals anyarray)
            LANGUAGE plpgsql AS $fn$
            DECLARE
                a %1$s[];
                b %1$s[];
                av av_in%%TYPE;
                bv bv_in%%TYPE;
            BEGIN
                %2$s
                %3$s
                %4$s
                %5$s
                CASE op
                    WHEN 'intersect' THEN SELECT * INTO keys, vals FROM array_intersect_gpu(a, av, b, bv);
                    WHEN 'union' THEN SELECT * INTO keys, vals FROM array_union_gpu(a, av, b, bv);
                    WHEN 'difference' THEN SELECT * INTO keys, vals FROM array_difference_gpu(a, av, b, bv);
                    WHEN 'symdiff' THEN SELECT * INTO keys, vals FROM array_symdiff_gpu(a, av, b, bv);
                END CASE;
            END
            $fn$;
            CREATE FUNCTION pg_temp.exp_aggs(rows_in %1$s[][], how text,
                                             OUT i %1$s[], OUT u %1$s[], OUT m %1$s[])
            LANGUAGE plpgsql AS $fn$
            DECLARE
                r1 %1$s[];
                r2 %1$s[];
                r3 %1$s[];
                x1 %1$s[] := rows_in[1:1][:];
                x2 %1$s[] := rows_in[2:2][:];
                x3 %1$s[] := rows_in[3:3][:];
            BEGIN
                x1 := ARRAY(SELECT unnest(x1));
                x2 := ARRAY(SELECT unnest(x2));
                x3 := ARRAY(SELECT unnest(x3));
                %6$s
                %7$s
                %8$s
                SELECT array_intersect_agg(x), array_union_agg(x), array_merge_agg(x) INTO i, u, m
                FROM (VALUES (r1), (NULL), (r2), (r3)) AS t(x);
            END
            $fn$;$f$,
            t,
            replace(pg_temp.copy_code('a', 'a_in', 'how_a'), '%6$s', t || '[]'),
            replace(pg_temp.copy_code('b', 'b_in', 'how_b'), '%6$s', t || '[]'),
            replace(pg_temp.copy_code('av', 'av_in', 'how_a'), '::%6$s', ''),
            replace(pg_temp.copy_code('bv', 'bv_in', 'how_b'), '::%6$s', ''),
            replace(pg_temp.copy_code('r1', 'x1', 'how'), '%6$s', t || '[]'),
            replace(pg_temp.copy_code('r2', 'x2', 'how'), '%6$s', t || '[]'),
            replace(pg_temp.copy_code('r3', 'x3', 'how'), '%6$s', t || '[]'));
    END LOOP;
END
$do$;

CREATE TEMP TABLE ops (op text PRIMARY KEY);
INSERT INTO ops VALUES ('intersect'), ('union'), ('difference'), ('symdiff');
CREATE TEMP TABLE hows (how_a text, how_b text, PRIMARY KEY (how_a, how_b));
INSERT INTO hows VALUES ('query', 'query'), ('elem', 'elem'), ('elem5', 'query5'), ('query', 'elem5');

CREATE TEMP TABLE cases (id int PRIMARY KEY, label text NOT NULL, a int8[] NOT NULL, b int8[] NOT NULL);

SELECT setseed(0.0505);

INSERT INTO cases VALUES
    (1, 'dup-heavy 1500 vs 1200', pg_temp.rand_sorted(1500, 0, 100), pg_temp.rand_sorted(1200, 0, 100)),
    (2, 'long runs and random keys', pg_temp.rand_sorted(200, 0, 9) || pg_temp.rand_runs(2, 2000, 3000, 10),
                                     pg_temp.rand_runs(2, 1000, 4000, 9) || pg_temp.rand_sorted(300, 20, 40)),
    (3, 'int4 extremes', pg_temp.rand_extreme(300, 32), pg_temp.rand_extreme(400, 32)),
    (4, 'int8 extremes', pg_temp.rand_extreme(300, 64), pg_temp.rand_extreme(400, 64)),
    (5, 'empty vs random', '{}', pg_temp.rand_sorted(50, 0, 9)),
    -- no key repeats on either side (element-wise copies note that)
    (6, 'distinct keys 3000 vs 2500', (ARRAY(SELECT DISTINCT floor(random() * 10000)::int8 FROM generate_series(1, 3600) ORDER BY 1))[1:3000],
                                      (ARRAY(SELECT DISTINCT floor(random() * 10000)::int8 FROM generate_series(1, 3000) ORDER BY 1))[1:2500]);

CREATE TEMP TABLE expect AS
SELECT c.id, r.i, r.u, r.d, r.s,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true)
        FROM unnest(c.a || c.b) k) AS fits4
FROM cases c, pg_temp.ref_setops(c.a, c.b) r;

SELECT plan(2 + 4 * 4 * 6 + 4 * 4 * 5 + 16 + 6 * 4 * 2 + 2 * 4 * 2 + 6 + 9 + 14 + 20 + 8 + 16 + 8 + 12 + 8);

SELECT is((SELECT count(*) FROM expect WHERE fits4), 5::bigint, 'number of int4 cases');
SELECT is((SELECT cardinality(a) || '/' || cardinality(b) FROM cases WHERE id = 6), '3000/2500', 'distinct keys case sizes');

-- keys form, expanded arguments
SELECT pg_temp.arr_is(pg_temp.exp_setop(o.op, c.a, c.b, h.how_a, h.how_b),
                      pg_temp.ref_pick(o.op, e.i, e.u, e.d, e.s),
                      format('int8 %s, a %s, b %s: %s', o.op, h.how_a, h.how_b, c.label))
FROM cases c JOIN expect e USING (id) CROSS JOIN ops o CROSS JOIN hows h
ORDER BY c.id, o.op, h.how_a, h.how_b;
SELECT pg_temp.arr_is(pg_temp.exp_setop(o.op, c.a::int4[], c.b::int4[], h.how_a, h.how_b),
                      pg_temp.ref_pick(o.op, e.i, e.u, e.d, e.s)::int4[],
                      format('int4 %s, a %s, b %s: %s', o.op, h.how_a, h.how_b, c.label))
FROM cases c JOIN expect e USING (id) CROSS JOIN ops o CROSS JOIN hows h
WHERE e.fits4
ORDER BY c.id, o.op, h.how_a, h.how_b;

-- sort and distinct of expanded arrays (unsorted input is fine here)
SELECT pg_temp.arr_is(pg_temp.exp_sort(f.fn, x.a, h.how),
                      CASE f.fn WHEN 'sort' THEN ARRAY(SELECT k FROM unnest(x.a) k ORDER BY k)
                                ELSE ARRAY(SELECT DISTINCT k FROM unnest(x.a) k ORDER BY k) END,
                      format('int8 %s of an unsorted array, %s', f.fn, h.how))
FROM (SELECT ARRAY(SELECT floor(random() * 300)::int8 - 150 FROM generate_series(1, 2000)) AS a) x,
     (VALUES ('sort'), ('distinct')) AS f(fn), (VALUES ('query'), ('query5'), ('elem'), ('elem5')) AS h(how)
ORDER BY f.fn, h.how;
SELECT pg_temp.arr_is(pg_temp.exp_sort(f.fn, x.a, h.how),
                      CASE f.fn WHEN 'sort' THEN ARRAY(SELECT k FROM unnest(x.a) k ORDER BY k)
                                ELSE ARRAY(SELECT DISTINCT k FROM unnest(x.a) k ORDER BY k) END,
                      format('int4 %s of an unsorted array, %s', f.fn, h.how))
FROM (SELECT ARRAY(SELECT floor(random() * 3000)::int4 - 1500 FROM generate_series(1, 2000)) AS a) x,
     (VALUES ('sort'), ('distinct')) AS f(fn), (VALUES ('query'), ('query5'), ('elem'), ('elem5')) AS h(how)
ORDER BY f.fn, h.how;

-- pairs with expanded keys and values: by-value and by-reference value
-- types of several widths
CREATE TEMP TABLE pvals AS
SELECT c.id, c.a, c.b,
       ARRAY(SELECT generate_subscripts(c.a, 1)) AS a_pos,
       ARRAY(SELECT -generate_subscripts(c.b, 1)) AS b_pos,
       ARRAY(SELECT md5('a' || i)::uuid FROM generate_subscripts(c.a, 1) i) AS a_uuid,
       ARRAY(SELECT md5('b' || i)::uuid FROM generate_subscripts(c.b, 1) i) AS b_uuid,
       ARRAY(SELECT (i * 3)::int2 FROM generate_subscripts(c.a, 1) i) AS a_i2,
       ARRAY(SELECT (-i * 3)::int2 FROM generate_subscripts(c.b, 1) i) AS b_i2,
       ARRAY(SELECT i * 0.5::float8 FROM generate_subscripts(c.a, 1) i) AS a_f8,
       ARRAY(SELECT -i * 0.25::float8 FROM generate_subscripts(c.b, 1) i) AS b_f8,
       ARRAY(SELECT chr(65 + i % 26)::"char" FROM generate_subscripts(c.a, 1) i) AS a_ch,
       ARRAY(SELECT chr(97 + i % 26)::"char" FROM generate_subscripts(c.b, 1) i) AS b_ch,
       ARRAY(SELECT format('(%s,1)', i)::tid FROM generate_subscripts(c.a, 1) i) AS a_tid,
       ARRAY(SELECT format('(%s,2)', i)::tid FROM generate_subscripts(c.b, 1) i) AS b_tid
FROM cases c WHERE c.id IN (1, 6);

SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('int4 keys, positions, %s, %s', o.op, h.how))
FROM pvals p CROSS JOIN ops o CROSS JOIN (VALUES ('query'), ('elem')) h(how),
     pg_temp.exp_pairs(o.op, p.a::int4[], p.a_pos, p.b::int4[], p.b_pos, h.how, h.how) r,
     pg_temp.ref_pairs(o.op, p.a::int4[], p.a_pos, p.b::int4[], p.b_pos) e
WHERE p.id = 1
ORDER BY o.op, h.how;
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('int8 keys, uuid values, %s, %s', o.op, h.how))
FROM pvals p CROSS JOIN ops o CROSS JOIN (VALUES ('query'), ('elem')) h(how),
     pg_temp.exp_pairs(o.op, p.a, p.a_uuid, p.b, p.b_uuid, h.how, h.how) r,
     pg_temp.ref_pairs(o.op, p.a, p.a_uuid, p.b, p.b_uuid) e
WHERE p.id = 1
ORDER BY o.op, h.how;
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('int4 keys, int2 values, %s, %s', o.op, h.how))
FROM pvals p CROSS JOIN ops o CROSS JOIN (VALUES ('query'), ('elem')) h(how),
     pg_temp.exp_pairs(o.op, p.a::int4[], p.a_i2, p.b::int4[], p.b_i2, h.how, h.how) r,
     pg_temp.ref_pairs(o.op, p.a::int4[], p.a_i2, p.b::int4[], p.b_i2) e
WHERE p.id = 1
ORDER BY o.op, h.how;
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('int8 keys, float8 values, %s, %s', o.op, h.how))
FROM pvals p CROSS JOIN ops o CROSS JOIN (VALUES ('query'), ('elem')) h(how),
     pg_temp.exp_pairs(o.op, p.a, p.a_f8, p.b, p.b_f8, h.how, h.how) r,
     pg_temp.ref_pairs(o.op, p.a, p.a_f8, p.b, p.b_f8) e
WHERE p.id = 1
ORDER BY o.op, h.how;
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('int4 keys, "char" values, %s, %s', o.op, h.how))
FROM pvals p CROSS JOIN ops o CROSS JOIN (VALUES ('query'), ('elem')) h(how),
     pg_temp.exp_pairs(o.op, p.a::int4[], p.a_ch, p.b::int4[], p.b_ch, h.how, h.how) r,
     pg_temp.ref_pairs(o.op, p.a::int4[], p.a_ch, p.b::int4[], p.b_ch) e
WHERE p.id = 1
ORDER BY o.op, h.how;
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('int8 keys, tid values, %s, %s', o.op, h.how))
FROM pvals p CROSS JOIN ops o CROSS JOIN (VALUES ('query'), ('elem')) h(how),
     pg_temp.exp_pairs(o.op, p.a, p.a_tid, p.b, p.b_tid, h.how, h.how) r,
     pg_temp.ref_pairs(o.op, p.a, p.a_tid, p.b, p.b_tid) e
WHERE p.id = 1
ORDER BY o.op, h.how;
-- distinct keys on both sides
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('distinct int8 keys, int4 positions, %s, %s', o.op, h.how))
FROM pvals p CROSS JOIN ops o CROSS JOIN (VALUES ('query'), ('elem')) h(how),
     pg_temp.exp_pairs(o.op, p.a, p.a_pos, p.b, p.b_pos, h.how, h.how) r,
     pg_temp.ref_pairs(o.op, p.a, p.a_pos, p.b, p.b_pos) e
WHERE p.id = 6
ORDER BY o.op, h.how;
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('distinct int4 keys, uuid values, %s, %s', o.op, h.how))
FROM pvals p CROSS JOIN ops o CROSS JOIN (VALUES ('query'), ('elem')) h(how),
     pg_temp.exp_pairs(o.op, p.a::int4[], p.a_uuid, p.b::int4[], p.b_uuid, h.how, h.how) r,
     pg_temp.ref_pairs(o.op, p.a::int4[], p.a_uuid, p.b::int4[], p.b_uuid) e
WHERE p.id = 6
ORDER BY o.op, h.how;
-- keys and values made differently, with different lower bounds
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('int8 keys, int4 values, %s, keys elem5 / query5', o.op))
FROM pvals p CROSS JOIN (VALUES ('union'), ('symdiff')) o(op),
     pg_temp.exp_pairs(o.op, p.a, p.a_pos, p.b, p.b_pos, 'elem5', 'query5') r,
     pg_temp.ref_pairs(o.op, p.a, p.a_pos, p.b, p.b_pos) e
WHERE p.id = 1
ORDER BY o.op;
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals, format('int4 keys, uuid values, %s, keys query5 / elem5', o.op))
FROM pvals p CROSS JOIN (VALUES ('intersect'), ('difference')) o(op),
     pg_temp.exp_pairs(o.op, p.a::int4[], p.a_uuid, p.b::int4[], p.b_uuid, 'query5', 'elem5') r,
     pg_temp.ref_pairs(o.op, p.a::int4[], p.a_uuid, p.b::int4[], p.b_uuid) e
WHERE p.id = 1
ORDER BY o.op;
SELECT pg_temp.pairs_is(r.keys, r.vals, '{1,2,2,3}'::int4[], '{a,b,y,c}'::"char"[],
                        'pairs: keys ''[5:7]'', values ''[-1:1]'', flat')
FROM array_union_gpu('[5:7]={1,2,3}'::int4[], '[-1:1]={a,b,c}'::"char"[],
                     '[0:1]={2,2}'::int4[], '[3:4]={x,y}'::"char"[]) r;
SELECT pg_temp.pairs_is(r.keys, r.vals, '{2}'::int8[], '{b}'::"char"[],
                        'pairs: intersect with lower bounds other than 1, flat')
FROM array_intersect_gpu('[5:7]={1,2,3}'::int8[], '[-1:1]={a,b,c}'::"char"[],
                         '[0:1]={2,2}'::int8[], '[3:4]={x,y}'::"char"[]) r;

-- aggregates over expanded rows (the third row of the input is NULL-free;
-- a NULL row sits between them)
SELECT pg_temp.arr_is(r.u, (pg_temp.ref_setops((pg_temp.ref_setops(x1, x2)).u, x3)).u,
                      format('array_union_agg of %s rows', h.how))
FROM (SELECT pg_temp.rand_sorted(300, 0, 40) AS x1, pg_temp.rand_sorted(300, 0, 40) AS x2,
             pg_temp.rand_sorted(300, 0, 40) AS x3) x,
     (VALUES ('query'), ('elem'), ('elem5')) h(how),
     pg_temp.exp_aggs(ARRAY[x1, x2, x3], h.how) r
ORDER BY h.how;
SELECT pg_temp.arr_is(r.i, (pg_temp.ref_setops((pg_temp.ref_setops(x1, x2)).i, x3)).i,
                      format('array_intersect_agg of %s rows', h.how))
FROM (SELECT pg_temp.rand_sorted(300, 0, 20) AS x1, pg_temp.rand_sorted(300, 0, 20) AS x2,
             pg_temp.rand_sorted(300, 0, 20) AS x3) x,
     (VALUES ('query'), ('elem'), ('elem5')) h(how),
     pg_temp.exp_aggs(ARRAY[x1, x2, x3], h.how) r
ORDER BY h.how;
SELECT pg_temp.arr_is(r.m, ARRAY(SELECT k FROM unnest(x1 || x2 || x3) k ORDER BY k),
                      format('int4 array_merge_agg of %s rows', h.how))
FROM (SELECT pg_temp.rand_sorted(300, 0, 40)::int4[] AS x1, pg_temp.rand_sorted(300, 0, 40)::int4[] AS x2,
             pg_temp.rand_sorted(300, 0, 40)::int4[] AS x3) x,
     (VALUES ('query'), ('elem'), ('elem5')) h(how),
     pg_temp.exp_aggs(ARRAY[x1, x2, x3], h.how) r
ORDER BY h.how;

-- unsorted expanded arrays are rejected, with the same message as flat ones
SELECT throws_ok(format($$SELECT pg_temp.exp_setop('union', '{1,2,3}'::int4[], '{1,5,4,6}'::int4[], 'query', %L)$$, h.how),
                 '22023', 'array_union_gpu: argument 2 is not sorted ascending at position 3',
                 format('unsorted argument 2, %s', h.how))
FROM (VALUES ('query'), ('query5'), ('elem'), ('elem5')) h(how);
SELECT throws_like(format($$SELECT pg_temp.exp_setop('intersect', '{1,2,3,3,2}'::int8[], '{1}'::int8[], %L, 'query')$$, h.how),
                   '%is not sorted ascending at position%',
                   format('unsorted argument 1, %s', h.how))
FROM (VALUES ('query'), ('elem')) h(how);
SELECT throws_ok(format($$SELECT * FROM pg_temp.exp_pairs('symdiff', '{1,2}'::int8[], '{1,2}'::int4[], '{3,2,1}'::int8[], '{1,2,3}'::int4[], %L, %L)$$, h.how, h.how),
                 '22023', 'array_symdiff_gpu: argument 3 is not sorted ascending at position 2',
                 format('pairs: unsorted keys in argument 3, %s', h.how))
FROM (VALUES ('query'), ('elem')) h(how);
SELECT throws_like(format($$SELECT * FROM pg_temp.exp_aggs('{{1,2},{2,1},{3,4}}'::int4[], %L)$$, h.how),
                 '%_agg: argument 1 is not sorted ascending at position 2',
                 format('aggregates: unsorted row, %s', h.how))
FROM (VALUES ('query'), ('elem')) h(how);
-- element-wise with a hole: the hole is a NULL
SELECT throws_like($q$DO $b$ DECLARE a int4[]; BEGIN a[1] := 1; a[3] := 3; PERFORM array_union_gpu(a, '{1}'::int4[]); END $b$$q$,
                   '%array_union_gpu: argument 1 must not contain nulls%', 'element-wise array with a hole (NULL)');
SELECT throws_like($q$DO $b$ DECLARE a int8[]; BEGIN a[1] := 1; a[2] := NULL; PERFORM array_sort_gpu(a); END $b$$q$,
                   '%array_sort_gpu: argument 1 must not contain nulls%', 'element-wise array with a NULL, sort');
SELECT throws_like($q$DO $b$ DECLARE a int8[]; v int8[]; BEGIN a := '{1,2}'; v[1] := 1; v[2] := NULL;
                      PERFORM array_union_gpu(a, v, a, v); END $b$$q$,
                   '%array_union_gpu: argument 2 must not contain nulls%', 'element-wise values with a NULL, pairs');
SELECT throws_like($q$DO $b$ DECLARE a int4[]; BEGIN a[1] := 1; a[2] := 2; a[3] := 0; PERFORM array_merge_agg(x) FROM (VALUES (a)) t(x); END $b$$q$,
                   '%array_merge_agg: argument 1 is not sorted ascending at position 3%', 'element-wise unsorted aggregate row');

-- the position reported for unsorted input is the first descent (1-based),
-- for flat arrays of both key types and for either argument; the descent
-- at p is made by setting element p of 1..n to -1 (and a later one too)
SELECT throws_ok(format('SELECT array_%s_gpu(%L::%s[], %L::%s[])', x.op,
                        CASE WHEN x.arg = 1 THEN x.arr ELSE '{0}' END, x.typ,
                        CASE WHEN x.arg = 2 THEN x.arr ELSE '{0}' END, x.typ),
                 '22023', format('array_%s_gpu: argument %s is not sorted ascending at position %s', x.op, x.arg, x.p),
                 format('%s %s: first descent of argument %s at %s of %s', x.typ, x.op, x.arg, x.p, x.n))
FROM (SELECT v.*, typ,
             (SELECT array_agg(CASE WHEN g IN (v.p, v.p + 7) THEN -1 ELSE g END ORDER BY g)
              FROM generate_series(1, v.n) g)::text AS arr
      FROM (VALUES (2, 5, 'union', 1), (8, 40, 'intersect', 2), (9, 40, 'difference', 1),
                   (16, 100, 'symdiff', 2), (17, 100, 'union', 2), (33, 1000, 'intersect', 1),
                   (1000, 5000, 'difference', 2), (4096, 5000, 'symdiff', 1),
                   (4097, 10000, 'union', 1), (9993, 10000, 'intersect', 2)) AS v(p, n, op, arg),
           (VALUES ('int4'), ('int8')) AS t(typ)) x
ORDER BY x.typ, x.p;

-- the detail names the two elements
CREATE FUNCTION pg_temp.error_detail(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    d text;
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN d;
END
$$;
SELECT is(pg_temp.error_detail($$SELECT array_union_gpu('{1,2,5,4}'::int4[], '{}')$$),
          'Element 4 (4) is smaller than element 3 (5).', 'detail of an unsorted int4 argument');
SELECT is(pg_temp.error_detail($$SELECT array_union_gpu('{}'::int8[], '{-9223372036854775808,9223372036854775807,-9223372036854775808}')$$),
          'Element 3 (-9223372036854775808) is smaller than element 2 (9223372036854775807).',
          'detail of an unsorted int8 argument with extremes');
SELECT is(pg_temp.error_detail($$SELECT * FROM pg_temp.exp_setop('difference', '{1,2,5,4}'::int4[], '{}', 'elem', 'elem')$$),
          'Element 4 (4) is smaller than element 3 (5).', 'detail of an unsorted element-wise argument');
SELECT is(pg_temp.error_detail($$SELECT array_intersect_gpu('{1,NULL}'::int4[], '{}')$$),
          'Element 2 is NULL.', 'detail of a NULL element');
SELECT is(pg_temp.error_detail($$SELECT array_intersect_gpu('{}'::int8[], '{}'::int4[], '{1,2}'::int8[], '{1,NULL}'::int4[])$$),
          'Element 2 is NULL.', 'detail of a NULL value');
SELECT is(pg_temp.error_detail($$SELECT array_sort_gpu('[3:5]={1,2,NULL}'::int4[])$$),
          'Element 3 is NULL.', 'detail of a NULL element, lower bound 3 (elements counted from 1)');
SELECT is(pg_temp.error_detail($$SELECT * FROM pg_temp.exp_setop('union', '{1,2}'::int4[], '{7,6}', 'query5', 'elem5')$$),
          'Element 2 (6) is smaller than element 1 (7).', 'detail of an unsorted element-wise argument, lower bound 5');
SELECT is(pg_temp.error_detail($$SELECT array_merge_agg(x) FROM (VALUES ('{1}'::int8[]), ('{3,3,2}')) t(x)$$),
          'Element 3 (2) is smaller than element 2 (3).', 'detail of an unsorted aggregate row');

-- lower bounds other than 1, flat: every function, results with lower bound 1
SELECT pg_temp.arr_is(pg_temp.setop(o.op, '[5:9]={1,2,2,3,7}'::int4[], '[-3:0]={2,3,3,9}'::int4[]),
                      pg_temp.ref_pick(o.op, r.i, r.u, r.d, r.s)::int4[],
                      format('int4 %s, lower bounds 5 and -3', o.op))
FROM ops o, pg_temp.ref_setops('{1,2,2,3,7}'::int8[], '{2,3,3,9}'::int8[]) r ORDER BY o.op;
SELECT pg_temp.arr_is(pg_temp.setop(o.op, '[2147483640:2147483644]={1,2,2,3,7}'::int8[], '[0:3]={2,3,3,9}'::int8[]),
                      pg_temp.ref_pick(o.op, r.i, r.u, r.d, r.s),
                      format('int8 %s, lower bounds 2147483640 and 0', o.op))
FROM ops o, pg_temp.ref_setops('{1,2,2,3,7}'::int8[], '{2,3,3,9}'::int8[]) r ORDER BY o.op;
-- empty results are '{}', never NULL
SELECT pg_temp.arr_is(pg_temp.setop(x.op, x.a, x.b), '{}'::int4[], format('empty %s is ''{}''', x.op))
FROM (VALUES ('intersect', '{1,2}'::int4[], '{3,4}'::int4[]), ('union', '{}', '{}'),
             ('difference', '{1,1,2}', '{1,1,1,2,3}'), ('symdiff', '{1,1,2}', '{1,1,2}')) AS x(op, a, b);
SELECT pg_temp.arr_is(pg_temp.setop(x.op, x.a, x.b), '{}'::int8[], format('empty int8 %s is ''{}''', x.op))
FROM (VALUES ('intersect', '{}'::int8[], '{3,4}'::int8[]), ('union', '{}', '{}'),
             ('difference', '{}', '{1}'), ('symdiff', '{}', '{}')) AS x(op, a, b);

-- NULL arguments give NULL (STRICT)
SELECT is(array_intersect_gpu(NULL::int4[], '{1}'), NULL, 'array_intersect_gpu(NULL, b) is NULL');
SELECT is(array_union_gpu('{1}'::int8[], NULL), NULL, 'array_union_gpu(a, NULL) is NULL');
SELECT is(array_difference_gpu(NULL::int4[], NULL), NULL, 'array_difference_gpu(NULL, NULL) is NULL');
SELECT is(array_symdiff_gpu(NULL::int8[], '{}'), NULL, 'array_symdiff_gpu(NULL, b) is NULL');
SELECT ok(array_union_gpu('{1}'::int4[], NULL::int4[], '{1}'::int4[], '{1}'::int4[]) IS NULL,
          'pairs with a NULL values argument give NULL');
SELECT is(array_distinct_gpu(NULL::int8[]), NULL, 'array_distinct_gpu(NULL) is NULL');
SELECT is(array_union_gpu('{}'::int4[], '{}'::int4[]), '{}', 'union of empties is ''{}''');
SELECT is(array_intersect_gpu(array_fill(2147483647, ARRAY[3]), '{-2147483648,2147483647,2147483647}'),
          '{2147483647,2147483647}', 'int4 extremes, literal');

-- malformed arguments
SELECT throws_like($$SELECT array_union_gpu('{{1,2},{3,4}}'::int4[], '{1}')$$,
                   '%array_union_gpu: argument 1 must be a one-dimensional array%', 'two-dimensional keys');
SELECT throws_like($$SELECT array_intersect_gpu('{1}'::int8[], '{{1}}'::int8[])$$,
                   '%argument 2 must be a one-dimensional array%', 'two-dimensional keys, argument 2');
SELECT throws_like($$SELECT array_difference_gpu('{1,NULL}'::int4[], '{1}')$$,
                   '%array_difference_gpu: argument 1 must not contain nulls%', 'NULL element in keys');
SELECT throws_like($$SELECT array_symdiff_gpu('{1}'::int8[], '{NULL}')$$,
                   '%argument 2 must not contain nulls%', 'NULL element in keys, argument 2');
SELECT throws_like($$SELECT * FROM array_union_gpu('{1,2}'::int4[], '{1,2,3}'::int4[], '{1}'::int4[], '{1}'::int4[])$$,
                   '%argument 2 %elements%argument 1%', 'pairs: more values than keys');
SELECT throws_like($$SELECT * FROM array_union_gpu('{1,2}'::int8[], '{1,2}'::int4[], '{1}'::int8[], '{}'::int4[])$$,
                   '%argument 4 %elements%argument 3%', 'pairs: fewer values than keys');
SELECT throws_like($$SELECT * FROM array_intersect_gpu('{1,2}'::int4[], '{a,b}'::text[], '{1}'::int4[], '{c}'::text[])$$,
                   '%not fixed-width%', 'pairs: text values are refused');
SELECT throws_like($$SELECT * FROM array_intersect_gpu('{1,2}'::int4[], '{1.5,2}'::numeric[], '{1}'::int4[], '{3}'::numeric[])$$,
                   '%not fixed-width%', 'pairs: numeric values are refused');
SELECT throws_like($$SELECT * FROM array_difference_gpu('{1,2}'::int4[], '{{1,2}}'::int4[], '{1}'::int4[], '{3}'::int4[])$$,
                   '%argument 2 must be a one-dimensional array%', 'pairs: two-dimensional values');
SELECT throws_like($$SELECT * FROM array_symdiff_gpu('{1,2}'::int8[], '{1,2}'::int4[], '{1}'::int8[], '{NULL}'::int4[])$$,
                   '%argument 4 must not contain nulls%', 'pairs: NULL value');
SELECT throws_like($$SELECT * FROM array_symdiff_gpu('{2,1}'::int8[], '{1,2}'::int4[], '{1}'::int8[], '{3}'::int4[])$$,
                   '%array_symdiff_gpu: argument 1 is not sorted ascending at position 2%', 'pairs: unsorted keys, flat');
SELECT throws_like($$SELECT * FROM array_union_gpu(array_fill(1, ARRAY[5000]) || '{0}'::int4[], array_fill(1, ARRAY[5001]), '{}'::int4[], '{}'::int4[])$$,
                   '%array_union_gpu: argument 1 is not sorted ascending at position 5001%', 'pairs: unsorted after a long run, flat');

-- large inputs against the SQL reference, in the session's setops.device
-- (under auto, these go to the GPU where there is one) and again with
-- setops.device = cpu: in every mode CI runs, each side is held to the
-- reference, not to the other
CREATE TEMP TABLE agree_in AS
SELECT pg_temp.rand_sorted(600000, 0, 200000)::int4[] AS a, pg_temp.rand_sorted(500000, 0, 200000)::int4[] AS b,
       pg_temp.rand_sorted(300000, -5000, 5000) AS c, pg_temp.rand_runs(200, 2000, 5000) AS d,
       ARRAY(SELECT floor(random() * 2000000)::int8 FROM generate_series(1, 1100000)) AS u;
CREATE TEMP TABLE agree_rows AS
SELECT g, pg_temp.rand_sorted(20000, 0, 3000)::int4[] AS r FROM generate_series(1, 60) g;
CREATE FUNCTION pg_temp.agree_results() RETURNS TABLE (what text, res text) LANGUAGE sql AS $$
    SELECT 'int4 ' || o.op, md5(pg_temp.setop(o.op, a, b)::text) FROM agree_in, ops o
    UNION ALL SELECT 'int8 ' || o.op, md5(pg_temp.setop(o.op, c, d)::text) FROM agree_in, ops o
    UNION ALL SELECT 'pairs union', md5(r::text)
              FROM agree_in, array_union_gpu(a, ARRAY(SELECT generate_subscripts(a, 1)), b, ARRAY(SELECT -generate_subscripts(b, 1))) r
    UNION ALL SELECT 'pairs symdiff', md5(r::text)
              FROM agree_in, array_symdiff_gpu(c, c, d, d) r
    UNION ALL SELECT 'sort', md5(array_sort_gpu(u)::text) FROM agree_in
    UNION ALL SELECT 'distinct', md5(array_distinct_gpu(u)::text) FROM agree_in
    UNION ALL SELECT 'array_merge_agg', md5(array_merge_agg(r)::text) FROM agree_rows
    UNION ALL SELECT 'array_union_agg', md5(array_union_agg(r)::text) FROM agree_rows
$$;
-- the reference, in plain SQL: reference.psql's key-rank join for the
-- operations and pairs, ORDER BY and DISTINCT for sort and distinct, every
-- row's keys in order for the merge, and each key as many times as the
-- row holding most of its copies for the union (max(ca, cb), folded)
CREATE TEMP TABLE agree_ref4 AS SELECT r.* FROM agree_in, pg_temp.ref_setops(a, b) r;
CREATE TEMP TABLE agree_ref8 AS SELECT r.* FROM agree_in, pg_temp.ref_setops(c, d) r;
CREATE TEMP TABLE agree_ref AS
SELECT 'int4 ' || o.op AS what, md5(pg_temp.ref_pick(o.op, r.i, r.u, r.d, r.s)::text) AS res FROM agree_ref4 r, ops o
UNION ALL SELECT 'int8 ' || o.op, md5(pg_temp.ref_pick(o.op, r.i, r.u, r.d, r.s)::text) FROM agree_ref8 r, ops o
UNION ALL SELECT 'pairs union', md5(ROW(e.keys, e.vals)::text)
          FROM agree_in, pg_temp.ref_pairs('union', a, ARRAY(SELECT generate_subscripts(a, 1)),
                                           b, ARRAY(SELECT -generate_subscripts(b, 1))) e
UNION ALL SELECT 'pairs symdiff', md5(ROW(e.keys, e.vals)::text)
          FROM agree_in, pg_temp.ref_pairs('symdiff', c, c, d, d) e
UNION ALL SELECT 'sort', md5(pg_temp.mutated(ARRAY(SELECT k FROM unnest(u) k ORDER BY k))::text) FROM agree_in
UNION ALL SELECT 'distinct', md5(pg_temp.mutated(ARRAY(SELECT DISTINCT k FROM unnest(u) k ORDER BY k))::text) FROM agree_in
UNION ALL SELECT 'array_merge_agg', md5(pg_temp.mutated(array_agg(k ORDER BY k))::text) FROM agree_rows, unnest(r) k
UNION ALL SELECT 'array_union_agg', md5(pg_temp.mutated(array_agg(k ORDER BY k))::text)
          FROM (SELECT k, max(n) AS n
                FROM (SELECT g, k, count(*) AS n FROM agree_rows, unnest(r) k GROUP BY g, k) per_row
                GROUP BY k) m, generate_series(1, m.n);
CREATE TEMP TABLE agree_session AS
SELECT *, current_setting('setops.device') AS device FROM pg_temp.agree_results();
SET LOCAL setops.device = cpu;
CREATE TEMP TABLE agree_cpu AS
SELECT *, current_setting('setops.device') AS device FROM pg_temp.agree_results();
RESET setops.device;    -- back to the session's value (PGOPTIONS)
SELECT results_eq('SELECT what, res FROM agree_session ORDER BY what', 'SELECT what, res FROM agree_ref ORDER BY what',
                  format('the session''s setops.device (%s) agrees with the SQL reference on large inputs',
                         (SELECT min(device) FROM agree_session)));
SELECT results_eq('SELECT what, res FROM agree_cpu ORDER BY what', 'SELECT what, res FROM agree_ref ORDER BY what',
                  'setops.device = cpu agrees with the SQL reference on large inputs');
SELECT is((SELECT string_agg(DISTINCT device, ',') FROM agree_cpu), 'cpu', 'the second run used setops.device = cpu');
SELECT is((SELECT string_agg(DISTINCT device, ',') FROM agree_session), current_setting('setops.device'),
          'the session''s setops.device is back');
SELECT is((SELECT count(*) FROM agree_ref), 14::bigint, 'all 14 large results compared');
SELECT is((SELECT count(DISTINCT res) FROM agree_ref), 14::bigint, 'the large results all differ');
SELECT pg_temp.arr_is((SELECT array_sort_gpu(u) FROM agree_in),
                      (SELECT pg_temp.mutated(ARRAY(SELECT k FROM unnest(u) k ORDER BY k)) FROM agree_in),
                      'array_sort_gpu of 1100000 keys matches ORDER BY');
SELECT pg_temp.arr_is((SELECT array_merge_agg(r) FROM agree_rows),
                      (SELECT pg_temp.mutated(array_agg(k ORDER BY k)) FROM agree_rows, unnest(r) k),
                      'array_merge_agg of 60 rows of 20000 keys matches ORDER BY');

SELECT * FROM finish();
ROLLBACK;
