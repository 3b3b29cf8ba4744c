-- 02_pairs.sql: the pairs forms array_X_gpu(a, a_vals, b, b_vals) ->
-- (keys, vals) against the SQL reference: values travel with their keys (on
-- a matched key-rank slot the value is a's, b's unmatched copies bring b's
-- values).  Values of int4, int8 and float8, source positions from
-- generate_subscripts(), and fixed-width types of other sizes and alignments
-- (int2, "char", bool, float4, date, tid, macaddr, uuid, name, interval,
-- point, timetz) for the generic strides.  Sizes and runs on the GPU tiles'
-- boundaries (tiles.psql).  One case is over 2^20 elements in all, so the
-- values are gathered over several chunks.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql
\ir tiles.psql

-- The extension's pairs form by operation name, in SQL so that the arrays
-- reach it as they are (PL/pgSQL would expand array arguments).  The gating
-- conditions are pseudo-constant: only the named operation runs.
CREATE FUNCTION pg_temp.pairs(op text, a int4[], av anyarray, b int4[], bv anyarray,
    OUT keys int4[], OUT vals anyarray)
LANGUAGE sql AS $$
    SELECT * FROM array_intersect_gpu(a, av, b, bv) WHERE op = 'intersect'
    UNION ALL SELECT * FROM array_union_gpu(a, av, b, bv) WHERE op = 'union'
    UNION ALL SELECT * FROM array_difference_gpu(a, av, b, bv) WHERE op = 'difference'
    UNION ALL SELECT * FROM array_symdiff_gpu(a, av, b, bv) WHERE op = 'symdiff'
$$;
CREATE FUNCTION pg_temp.pairs(op text, a int8[], av anyarray, b int8[], bv anyarray,
    OUT keys int8[], OUT vals anyarray)
LANGUAGE sql AS $$
    SELECT * FROM array_intersect_gpu(a, av, b, bv) WHERE op = 'intersect'
    UNION ALL SELECT * FROM array_union_gpu(a, av, b, bv) WHERE op = 'union'
    UNION ALL SELECT * FROM array_difference_gpu(a, av, b, bv) WHERE op = 'difference'
    UNION ALL SELECT * FROM array_symdiff_gpu(a, av, b, bv) WHERE op = 'symdiff'
$$;

-- Random values, n of them.
CREATE FUNCTION pg_temp.rand_int8s(n int) RETURNS int8[] LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(array_agg(((floor(random() * 4294967296)::int8 - 2147483648) << 32)
                              | floor(random() * 4294967296)::int8), '{}')
    FROM generate_series(1, n)
$$;
CREATE FUNCTION pg_temp.rand_float8s(n int) RETURNS float8[] LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(array_agg(CASE WHEN random() < 0.05
        THEN ('{-0,NaN,Infinity,-Infinity,1e-310,-1.5e300}'::float8[])[1 + floor(random() * 6)::int]
        ELSE (random() - 0.5) * 1e6 END), '{}')
    FROM generate_series(1, n)
$$;

CREATE TEMP TABLE ops (op text PRIMARY KEY);
INSERT INTO ops VALUES ('intersect'), ('union'), ('difference'), ('symdiff');

CREATE TEMP TABLE cases (
    id serial PRIMARY KEY,
    label text NOT NULL,
    a int8[] NOT NULL,
    b int8[] NOT NULL,
    tile int                    -- the tile it is built on, if any
);

SELECT setseed(0.0202);

INSERT INTO cases (label, a, b) VALUES
    ('dup-heavy, keys 0..5', pg_temp.rand_sorted(60, 0, 5), pg_temp.rand_sorted(80, 0, 5)),
    ('dup-heavy, keys 0..100', pg_temp.rand_sorted(3000, 0, 100), pg_temp.rand_sorted(2000, 0, 100)),
    ('long runs vs long runs', pg_temp.rand_runs(4, 2000, 5000), pg_temp.rand_runs(4, 2000, 5000)),
    ('long runs vs dup-heavy', pg_temp.rand_runs(3, 2000, 5000), pg_temp.rand_sorted(4000, 0, 12)),
    ('all equal 3000 vs 2500', array_fill(7::int8, ARRAY[3000]), array_fill(7::int8, ARRAY[2500])),
    ('all equal 1000 vs 2500', array_fill(7::int8, ARRAY[1000]), array_fill(7::int8, ARRAY[2500])),
    ('disjoint, interleaved', ARRAY(SELECT 2 * g FROM generate_series(1, 1500) g)::int8[],
                              ARRAY(SELECT 2 * g + 1 FROM generate_series(1, 1700) g)::int8[]),
    ('empty vs random', '{}', pg_temp.rand_sorted(100, 0, 30)),
    ('random vs empty', pg_temp.rand_sorted(100, 0, 30), '{}'),
    ('both empty', '{}', '{}'),
    ('single equal', '{5}', '{5}'),
    ('skewed 40 vs 5000', pg_temp.rand_sorted(40, 0, 300), pg_temp.rand_sorted(5000, 0, 300)),
    ('skewed 5000 vs 40', pg_temp.rand_sorted(5000, 0, 300), pg_temp.rand_sorted(40, 0, 300)),
    ('sparse 5000 vs 5000', pg_temp.rand_sorted(5000, 0, 1000000), pg_temp.rand_sorted(5000, 0, 1000000)),
    ('int4 extremes', pg_temp.rand_extreme(1000, 32), pg_temp.rand_extreme(800, 32)),
    ('int8 extremes', pg_temp.rand_extreme(1000, 64), pg_temp.rand_extreme(800, 64)),
    ('large 50000 vs 60000, keys 0..20000', pg_temp.rand_sorted(50000, 0, 20000), pg_temp.rand_sorted(60000, 0, 20000));
-- on the GPU tiles' boundaries (tiles.psql), int4's and int8's: sides at
-- t +- 1, the sum at 2t + 1, runs across diagonals
INSERT INTO cases (label, a, b, tile)
SELECT t.label, t.a, t.b, v.tile
FROM (VALUES (:tile_setop4), (:tile_setop8)) AS v(tile),
     LATERAL pg_temp.tile_cases('setop', v.tile) t
WHERE t.n IN (1, 6, 8, 10)
ORDER BY v.tile DESC, t.n;

CREATE TEMP TABLE vals AS
SELECT id,
       ARRAY(SELECT generate_subscripts(a, 1)) AS a_pos,
       ARRAY(SELECT -generate_subscripts(b, 1)) AS b_neg,
       ARRAY(SELECT generate_subscripts(b, 1)) AS b_pos,
       pg_temp.rand_int8s(cardinality(a)) AS a_i8, pg_temp.rand_int8s(cardinality(b)) AS b_i8,
       pg_temp.rand_float8s(cardinality(a)) AS a_f8, pg_temp.rand_float8s(cardinality(b)) AS b_f8,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true)
        FROM unnest(a || b) k) AS fits4
FROM cases ORDER BY id;

-- The huge case: over 2^20 keys in all, every key in runs of thousands, so
-- that chunk boundaries fall inside runs.  The reference's join is computed
-- once for the four operations.
CREATE TEMP TABLE huge AS
SELECT pg_temp.rand_sorted(700000, 0, 300) AS a, pg_temp.rand_sorted(600000, 0, 300) AS b;
CREATE TEMP TABLE huge_join AS
WITH ra AS (SELECT k, o, row_number() OVER (PARTITION BY k ORDER BY o) AS r
            FROM huge, unnest(a) WITH ORDINALITY AS t(k, o)),
     rb AS (SELECT k, o, row_number() OVER (PARTITION BY k ORDER BY o) AS r
            FROM huge, unnest(b) WITH ORDINALITY AS t(k, o))
SELECT coalesce(ra.k, rb.k) AS k, coalesce(ra.r, rb.r) AS r,
       CASE WHEN ra.k IS NOT NULL THEN ra.o::int4 ELSE -rb.o::int4 END AS v,
       ra.k IS NOT NULL AS in_a, rb.k IS NOT NULL AS in_b
FROM ra FULL JOIN rb ON ra.k = rb.k AND ra.r = rb.r;
CREATE TEMP TABLE huge_expect AS
SELECT o.op, coalesce(array_agg(k ORDER BY k, r), '{}') AS keys,
       coalesce(array_agg(v ORDER BY k, r), '{}') AS vals
FROM ops o LEFT JOIN huge_join j ON CASE o.op WHEN 'intersect' THEN in_a AND in_b
                                              WHEN 'union' THEN true
                                              WHEN 'difference' THEN in_a AND NOT in_b
                                              WHEN 'symdiff' THEN in_a <> in_b END
GROUP BY o.op;

-- Other fixed-width value types: literals made from the side (1 = a, 2 = b)
-- and the position, distinct on each side.
CREATE TEMP TABLE vtypes (typ text PRIMARY KEY, expr text NOT NULL);
INSERT INTO vtypes VALUES
    ('int2', $$((2 * s - 3) * (i % 30000))::text$$),
    ('"char"', $$chr(33 + (7 * i + 13 * s) % 90)$$),
    ('bool', $$((i + s) % 3 = 0)::text$$),
    ('float4', $$((2 * s - 3) * i * 1.5)::text$$),
    ('date', $$('2000-01-01'::date + (2 * s - 3) * i)::text$$),
    ('tid', $$format('(%s,%s)', i, s)$$),
    ('macaddr', $$format('08:00:2b:%s:%s:%s', lpad(to_hex(s), 2, '0'),
                         lpad(to_hex(i / 256 % 256), 2, '0'), lpad(to_hex(i % 256), 2, '0'))$$),
    ('uuid', $$md5(s || ':' || i)$$),
    ('name', $$format('v%s_%s', s, i)$$),
    ('interval', $$format('%s days %s seconds', s, i)$$),
    ('point', $$format('(%s,%s)', i, s)$$),
    ('timetz', $$format('%s:%s:%s+0%s', i / 3600 % 24, i / 60 % 60, i % 60, s)$$);

-- One operation of one case with values of type typ, against the reference.
CREATE FUNCTION pg_temp.check_vtype(case_id int, keytyp text, typ text, op text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    expr text := (SELECT v.expr FROM vtypes v WHERE v.typ = check_vtype.typ);
    res text;
BEGIN
    EXECUTE format($q$
        WITH c AS (
            SELECT label, a::%1$s[] AS a, b::%1$s[] AS b,
                   ARRAY(SELECT %2$s FROM generate_subscripts(a, 1) i, (SELECT 1 AS s) x)::%3$s[] AS av,
                   ARRAY(SELECT %2$s FROM generate_subscripts(b, 1) i, (SELECT 2 AS s) x)::%3$s[] AS bv
            FROM cases WHERE id = $1)
        SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals,
                                format('%1$s keys, %3$s values, %4$s: %%s', c.label))
        FROM c, pg_temp.pairs(%5$L, c.a, c.av, c.b, c.bv) r,
             pg_temp.ref_pairs(%5$L, c.a, c.av, c.b, c.bv) e$q$,
        keytyp, expr, typ, op, op)
    INTO res USING case_id;
    RETURN res;
END
$$;

SELECT plan(3 + 4 * 24 * 2 + 4 * 25 * 2 + 8 + 12 * 4 * 2 + 4 * 3 + 6);

SELECT is((SELECT count(*) FROM cases), 25::bigint, 'number of cases');
SELECT is((SELECT count(*) FROM vals WHERE fits4), 24::bigint, 'number of int4 cases');
SELECT is((SELECT count(*) FILTER (WHERE pg_temp.on_tile(cardinality(a), cardinality(b), tile)) FROM cases),
          8::bigint, format('8 cases on the int4 tile (%s slots) and the int8 tile (%s slots)',
                            :tile_setop4, :tile_setop8));

-- int4 keys, source positions as values (a's positive, b's negated)
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals,
                        format('int4 keys, positions, %s: %s', o.op, c.label))
FROM cases c JOIN vals v USING (id) CROSS JOIN ops o,
     pg_temp.pairs(o.op, c.a::int4[], v.a_pos, c.b::int4[], v.b_neg) r,
     pg_temp.ref_pairs(o.op, c.a::int4[], v.a_pos, c.b::int4[], v.b_neg) e
WHERE v.fits4
ORDER BY c.id, o.op;

-- int4 keys, float8 values (-0, NaN, infinities and denormals included:
-- compared as text, so -0 must stay -0)
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals,
                        format('int4 keys, float8 values, %s: %s', o.op, c.label))
FROM cases c JOIN vals v USING (id) CROSS JOIN ops o,
     pg_temp.pairs(o.op, c.a::int4[], v.a_f8, c.b::int4[], v.b_f8) r,
     pg_temp.ref_pairs(o.op, c.a::int4[], v.a_f8, c.b::int4[], v.b_f8) e
WHERE v.fits4
ORDER BY c.id, o.op;

-- int8 keys, positions straight from generate_subscripts() on both sides
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals,
                        format('int8 keys, generate_subscripts, %s: %s', o.op, c.label))
FROM cases c JOIN vals v USING (id) CROSS JOIN ops o,
     pg_temp.pairs(o.op, c.a, v.a_pos, c.b, v.b_pos) r,
     pg_temp.ref_pairs(o.op, c.a, v.a_pos, c.b, v.b_pos) e
ORDER BY c.id, o.op;

-- int8 keys, random int8 values
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals,
                        format('int8 keys, int8 values, %s: %s', o.op, c.label))
FROM cases c JOIN vals v USING (id) CROSS JOIN ops o,
     pg_temp.pairs(o.op, c.a, v.a_i8, c.b, v.b_i8) r,
     pg_temp.ref_pairs(o.op, c.a, v.a_i8, c.b, v.b_i8) e
ORDER BY c.id, o.op;

-- over 2^20 elements: int4 keys with int4 positions, int8 keys with int8
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys::int4[], e.vals,
                        format('int4 keys, positions, %s: huge dup-heavy 700000 vs 600000', o.op))
FROM huge h CROSS JOIN ops o JOIN huge_expect e USING (op),
     pg_temp.pairs(o.op, h.a::int4[], ARRAY(SELECT generate_subscripts(h.a, 1)),
                   h.b::int4[], ARRAY(SELECT -generate_subscripts(h.b, 1))) r
ORDER BY o.op;
SELECT pg_temp.pairs_is(r.keys, r.vals, e.keys, e.vals::int8[],
                        format('int8 keys, int8 positions, %s: huge dup-heavy 700000 vs 600000', o.op))
FROM huge h CROSS JOIN ops o JOIN huge_expect e USING (op),
     pg_temp.pairs(o.op, h.a, ARRAY(SELECT generate_subscripts(h.a, 1))::int8[],
                   h.b, ARRAY(SELECT -generate_subscripts(h.b, 1))::int8[]) r
ORDER BY o.op;

-- other value types: int4 keys on a dup-heavy case, int8 keys with a run
-- across the int8 tile's first boundary
SELECT pg_temp.check_vtype((SELECT id FROM cases WHERE label = 'dup-heavy, keys 0..100'), 'int4', t.typ, o.op)
FROM vtypes t CROSS JOIN ops o ORDER BY t.typ, o.op;
SELECT pg_temp.check_vtype((SELECT id FROM cases WHERE tile = :tile_setop8 AND label LIKE '%a run across diagonal t,%'),
                           'int8', t.typ, o.op)
FROM vtypes t CROSS JOIN ops o ORDER BY t.typ, o.op;

-- positions point back at the keys they came with, whatever the reference
-- says: keys[i] = (a || b)[vals[i]] with b's positions offset by |a|
SELECT ok((SELECT coalesce(bool_and(ab.k IS NOT DISTINCT FROM u.k), true)
            FROM unnest(r.keys, r.vals) AS u(k, p)
                 LEFT JOIN unnest(c.a || c.b) WITH ORDINALITY AS ab(k, o) ON ab.o = u.p),
          format('positions point back at their keys, %s: %s', o.op, c.label))
FROM cases c CROSS JOIN ops o,
     pg_temp.pairs(o.op, c.a, ARRAY(SELECT generate_subscripts(c.a, 1)),
                   c.b, ARRAY(SELECT cardinality(c.a) + generate_subscripts(c.b, 1))) r
WHERE c.label IN ('dup-heavy, keys 0..100', 'long runs vs long runs', 'sparse 5000 vs 5000')
ORDER BY c.id, o.op;

-- hand-checked literals
SELECT pg_temp.pairs_is(r.keys, r.vals, '{1,2,2}'::int4[], '{10,20,21}'::int4[],
                        'intersect takes a''s values')
FROM array_intersect_gpu('{1,2,2,3}'::int4[], '{10,20,21,30}'::int4[], '{1,2,2,2}'::int4[], '{-1,-2,-3,-4}'::int4[]) r;
SELECT pg_temp.pairs_is(r.keys, r.vals, '{1,2,2,2,3}'::int4[], '{10,20,21,-4,30}'::int4[],
                        'union takes a''s values on matches, b''s for b''s extra copies')
FROM array_union_gpu('{1,2,2,3}'::int4[], '{10,20,21,30}'::int4[], '{1,2,2,2}'::int4[], '{-1,-2,-3,-4}'::int4[]) r;
SELECT pg_temp.pairs_is(r.keys, r.vals, '{3}'::int4[], '{30}'::int4[],
                        'difference takes a''s unmatched copies')
FROM array_difference_gpu('{1,2,2,3}'::int4[], '{10,20,21,30}'::int4[], '{1,2,2,2}'::int4[], '{-1,-2,-3,-4}'::int4[]) r;
SELECT pg_temp.pairs_is(r.keys, r.vals, '{2,3}'::int4[], '{-4,30}'::int4[],
                        'symdiff takes the unmatched copies of either side')
FROM array_symdiff_gpu('{1,2,2,3}'::int4[], '{10,20,21,30}'::int4[], '{1,2,2,2}'::int4[], '{-1,-2,-3,-4}'::int4[]) r;
SELECT pg_temp.pairs_is(r.keys, r.vals, '{}'::int8[], '{}'::uuid[],
                        'empty result of pairs: both arrays ''{}''')
FROM array_intersect_gpu('{1,2}'::int8[], ARRAY[gen_random_uuid(), gen_random_uuid()],
                         '{3}'::int8[], ARRAY[gen_random_uuid()]) r;
SELECT pg_temp.pairs_is(r.keys, r.vals, '{1,1,2}'::int8[], '{a,b,c}'::"char"[],
                        'pairs with "char" values, b side empty')
FROM array_union_gpu('{1,1,2}'::int8[], '{a,b,c}'::"char"[], '{}'::int8[], '{}'::"char"[]) r;

SELECT * FROM finish();
ROLLBACK;
