-- 07_packed.sql: packed_int4 and packed_int8.
--
-- Round trips (array -> packed -> array, text, binary as bytea) on random,
-- clustered, all-equal, extreme-valued and adversarial inputs (many patches:
-- small gaps with outliers, and gaps needing the full key width), sizes
-- around the 1024-key chunk; the four operations on packed arguments, packed
-- with plain and plain with packed, against the SQL reference; the
-- aggregates over packed rows against the same aggregates over the arrays;
-- stored (TOASTed, out of line) packed values; and the receive path under
-- random mutations of valid bytes: every mutation is an ERROR or a value
-- that decodes, never a crash.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql

SELECT setseed(0.0707);

-- Sorted keys with small gaps (0..3) and a share of outliers: gaps of up to
-- 'jump', which become patches or widen the chunk.
CREATE FUNCTION pg_temp.rand_patched(n int, share float8, jump int8, start int8 DEFAULT 0)
RETURNS int8[] LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(array_agg(k ORDER BY g), '{}')
    FROM (SELECT g, start + sum(CASE WHEN random() < share THEN floor(random() * jump)::int8
                                     ELSE floor(random() * 4)::int8 END) OVER (ORDER BY g) AS k
          FROM generate_series(1, n) g) t
$$;

CREATE TEMP TABLE cases (
    id serial PRIMARY KEY,
    label text NOT NULL,
    a int8[] NOT NULL,
    b int8[] NOT NULL
);

INSERT INTO cases (label, a, b) VALUES
    ('empty vs empty', '{}', '{}'),
    ('empty vs random', '{}', pg_temp.rand_sorted(3000, 0, 1000)),
    ('single keys', '{5}', '{5}'),
    ('random 1023/1024, keys 0..500', pg_temp.rand_sorted(1023, 0, 500), pg_temp.rand_sorted(1024, 0, 500)),
    ('random 1025/2047, keys 0..3000', pg_temp.rand_sorted(1025, 0, 3000), pg_temp.rand_sorted(2047, 0, 3000)),
    ('random 2048/2049, sparse keys', pg_temp.rand_sorted(2048, -1000000000, 1000000000),
                                      pg_temp.rand_sorted(2049, -1000000000, 1000000000)),
    ('clustered: long runs', pg_temp.rand_runs(5, 500, 3000), pg_temp.rand_runs(5, 500, 3000)),
    ('all equal 3000 vs 2500', array_fill(7::int8, ARRAY[3000]), array_fill(7::int8, ARRAY[2500])),
    ('patches 1%', pg_temp.rand_patched(5000, 0.01, 1000000), pg_temp.rand_patched(4000, 0.01, 1000000)),
    ('patches 10%', pg_temp.rand_patched(5000, 0.10, 100000), pg_temp.rand_patched(6000, 0.10, 100000)),
    ('patches 50%', pg_temp.rand_patched(3000, 0.50, 5000), pg_temp.rand_patched(3000, 0.50, 5000)),
    ('int4 extremes', pg_temp.rand_extreme(3000, 32), pg_temp.rand_extreme(2000, 32)),
    ('full int4 span', '{-2147483648,-2147483648,0,2147483647,2147483647}',
                       '{-2147483648,-1,2147483647}'),
    ('large 150000/120000, keys 0..200000', pg_temp.rand_sorted(150000, 0, 200000),
                                            pg_temp.rand_sorted(120000, 0, 200000));
-- int8 only
INSERT INTO cases (label, a, b) VALUES
    ('int8 extremes', pg_temp.rand_extreme(3000, 64), pg_temp.rand_extreme(2500, 64)),
    ('full int8 span', '{-9223372036854775808,-9223372036854775808,0,9223372036854775807}',
                       '{-9223372036854775808,9223372036854775807,9223372036854775807}'),
    ('int8 patches 10%, huge jumps', pg_temp.rand_patched(4000, 0.10, 4000000000000, -9000000000000000000),
                                     pg_temp.rand_patched(4000, 0.10, 4000000000000, -9000000000000000000));

CREATE TEMP TABLE expect AS
SELECT c.id, r.i, r.u, r.d, r.s,
       (SELECT coalesce(bool_and(k BETWEEN -2147483648 AND 2147483647), true)
        FROM unnest(c.a || c.b) k) AS fits4
FROM cases c, pg_temp.ref_setops(c.a, c.b) r;

CREATE TEMP TABLE ops (op text PRIMARY KEY);
INSERT INTO ops VALUES ('intersect'), ('union'), ('difference'), ('symdiff');

-- The operations with packed arguments, by form: 'pp' (both packed, a
-- packed result, unpacked here), 'pa' and 'ap' (mixed: an array result);
-- int8[] arguments go as packed_int8, int4[] ones as packed_int4.
CREATE FUNCTION pg_temp.psetop(op text, form text, a anyarray, b anyarray) RETURNS anyarray
LANGUAGE plpgsql STRICT AS $$
DECLARE
    packed text := CASE WHEN pg_typeof(a) = 'int8[]'::regtype THEN '::packed_int8'
                        ELSE '::packed_int4' END;
    r a%TYPE;
BEGIN
    EXECUTE format('SELECT array_%s_gpu($1%s, $2%s)::%s', op,
                   CASE WHEN form IN ('pp', 'pa') THEN packed ELSE '' END,
                   CASE WHEN form IN ('pp', 'ap') THEN packed ELSE '' END,
                   pg_typeof(a))
        INTO r USING a, b;
    RETURN r;
END
$$;

CREATE TEMP TABLE forms (form text PRIMARY KEY);
INSERT INTO forms VALUES ('pp'), ('pa'), ('ap');

SELECT plan(2 + 2 * 17 + 2 * 14 + 2 * 17 + 12 * 17 + 12 * 14 + 3 + 6 + 5 + 11 + 3);

SELECT is((SELECT count(*) FROM cases), 17::bigint, 'number of int8 cases');
SELECT is((SELECT count(*) FROM expect WHERE fits4), 14::bigint, 'number of int4 cases');

-- round trips: through the array cast and through the text form
SELECT pg_temp.arr_is(array_unpack(array_pack(x)), x, format('int8 round trip %s: %s', side, c.label))
FROM cases c, LATERAL (VALUES ('a', c.a), ('b', c.b)) v(side, x)
ORDER BY c.id, side;
SELECT pg_temp.arr_is(array_unpack(array_pack(x::int4[])), x::int4[],
                      format('int4 round trip %s: %s', side, c.label))
FROM cases c JOIN expect e USING (id), LATERAL (VALUES ('a', c.a), ('b', c.b)) v(side, x)
WHERE e.fits4
ORDER BY c.id, side;
SELECT ok(array_pack(x)::text = x::text
          AND (x::text)::packed_int8::int8[] = x
          AND packed_int8(bytea(array_pack(x)))::int8[] = x
          AND cardinality(array_pack(x)) = cardinality(x),
          format('int8 text, binary and cardinality %s: %s', side, c.label))
FROM cases c, LATERAL (VALUES ('a', c.a), ('b', c.b)) v(side, x)
ORDER BY c.id, side;

-- the operations, every form, against the reference
SELECT pg_temp.arr_is(pg_temp.psetop(o.op, f.form, c.a, c.b),
                      pg_temp.ref_pick(o.op, e.i, e.u, e.d, e.s),
                      format('int8 %s %s: %s', f.form, o.op, c.label))
FROM cases c JOIN expect e USING (id) CROSS JOIN ops o CROSS JOIN forms f
ORDER BY c.id, o.op, f.form;
SELECT pg_temp.arr_is(pg_temp.psetop(o.op, f.form, c.a::int4[], c.b::int4[]),
                      pg_temp.ref_pick(o.op, e.i, e.u, e.d, e.s)::int4[],
                      format('int4 %s %s: %s', f.form, o.op, c.label))
FROM cases c JOIN expect e USING (id) CROSS JOIN ops o CROSS JOIN forms f
WHERE e.fits4
ORDER BY c.id, o.op, f.form;

-- result types
SELECT is(pg_typeof(array_union_gpu('{1}'::packed_int4, '{2}'::packed_int4)), 'packed_int4'::regtype,
          'packed with packed gives packed');
SELECT is(pg_typeof(array_union_gpu('{1}'::packed_int8, '{2}'::int8[])), 'int8[]'::regtype,
          'packed with an array gives an array');
SELECT is(pg_typeof(array_union_agg(x)), 'packed_int4'::regtype, 'an aggregate over packed rows gives packed')
FROM (VALUES ('{1,2}'::packed_int4)) v(x);

-- aggregates over packed rows: the same as over the arrays (03 checks those
-- against the reference), with NULL and empty rows among them
CREATE TEMP TABLE agg_rows AS
SELECT o, CASE WHEN o % 17 = 0 THEN NULL WHEN o % 13 = 0 THEN '{}'::int8[]
               ELSE pg_temp.rand_sorted(floor(random() * 3000)::int, 0, 2000) END AS arr
FROM generate_series(1, 60) o;
SELECT pg_temp.arr_is((SELECT array_union_agg(array_pack(arr)) FROM agg_rows)::int8[],
                      (SELECT array_union_agg(arr) FROM agg_rows), 'int8 union_agg over packed rows');
SELECT pg_temp.arr_is((SELECT array_intersect_agg(array_pack(arr)) FROM agg_rows WHERE o < 4)::int8[],
                      (SELECT array_intersect_agg(arr) FROM agg_rows WHERE o < 4), 'int8 intersect_agg over packed rows');
SELECT pg_temp.arr_is((SELECT array_merge_agg(array_pack(arr)) FROM agg_rows)::int8[],
                      (SELECT array_merge_agg(arr) FROM agg_rows), 'int8 merge_agg over packed rows');
SELECT pg_temp.arr_is((SELECT array_union_agg(array_pack(arr::int4[])) FROM agg_rows)::int4[],
                      (SELECT array_union_agg(arr::int4[]) FROM agg_rows), 'int4 union_agg over packed rows');
SELECT pg_temp.arr_is((SELECT array_intersect_agg(array_pack(arr::int4[])) FROM agg_rows WHERE o < 4)::int4[],
                      (SELECT array_intersect_agg(arr::int4[]) FROM agg_rows WHERE o < 4), 'int4 intersect_agg over packed rows');
SELECT pg_temp.arr_is((SELECT array_merge_agg(array_pack(arr::int4[])) FROM agg_rows)::int4[],
                      (SELECT array_merge_agg(arr::int4[]) FROM agg_rows), 'int4 merge_agg over packed rows');

-- stored values: out of line, not compressed, read back exactly
CREATE TEMP TABLE stored (id int, p packed_int4, q packed_int4, arr int4[]);
INSERT INTO stored
SELECT 1, array_pack(x), array_pack(y), x
FROM (SELECT pg_temp.rand_sorted(200000, 0, 400000)::int4[] AS x,
             pg_temp.rand_sorted(150000, 0, 400000)::int4[] AS y) t;
SELECT is((SELECT attstorage FROM pg_attribute WHERE attrelid = 'stored'::regclass AND attname = 'p'),
          'e', 'packed columns are stored external (no pglz)');
SELECT ok((SELECT pg_column_size(p) < pg_column_size(arr) / 4 FROM stored),
          'a stored packed value takes under a quarter of the array');
SELECT pg_temp.arr_is((SELECT p::int4[] FROM stored), (SELECT arr FROM stored), 'stored value reads back');
SELECT pg_temp.arr_is((SELECT array_intersect_gpu(p, q)::int4[] FROM stored),
                      (SELECT array_intersect_gpu(arr, q::int4[]) FROM stored), 'stored values intersect');
SELECT is((SELECT cardinality(p) FROM stored), 200000, 'cardinality of a stored value');

-- errors
SELECT throws_ok($$SELECT '{3,1}'::packed_int4$$, '22023',
    'packed_int4_in: argument 1 is not sorted ascending at position 2', 'unsorted text input');
SELECT throws_ok($$SELECT array_pack('{1,5,4}'::int8[])$$, '22023',
    'array_pack: argument 1 is not sorted ascending at position 3', 'unsorted array');
SELECT throws_ok($$SELECT '{1,5,4}'::int4[]::packed_int4$$, '22023',
    'array_pack: argument 1 is not sorted ascending at position 3', 'unsorted cast');
SELECT throws_ok($$SELECT array_pack('{1,NULL}'::int4[])$$, '22004',
    'array_pack: argument 1 must not contain nulls', 'nulls');
SELECT throws_ok($$SELECT array_pack('{{1,2},{3,4}}'::int4[])$$, '22023',
    'array_pack: argument 1 must be a one-dimensional array', 'two dimensions');
SELECT throws_ok($$SELECT packed_int4('\x0102'::bytea)$$, '22P03', NULL, 'truncated bytes');
SELECT throws_ok($$SELECT packed_int8(bytea('{1,2,3}'::packed_int4))$$, '22P03',
    'packed_int8(bytea): invalid packed_int8 value: its key size does not match the type',
    'int4 bytes as packed_int8');
SELECT throws_ok($$SELECT packed_int4(bytea('{1,2,3}'::packed_int4) || '\x00'::bytea)$$, '22P03',
    'packed_int4(bytea): invalid packed_int4 value: length does not match the counts', 'trailing byte');
SELECT throws_ok($$SELECT packed_int4(overlay(bytea('{1,2,3}'::packed_int4) placing '\x02'::bytea from 1))$$,
    '22P03', 'packed_int4(bytea): invalid packed_int4 value: unknown format version', 'wrong version');
-- structurally sound, but the keys would not ascend: chunk 1's base (bytes
-- 41-44 of the binary form: a 36-byte header, then chunk 0's base) set to
-- INT_MIN
SELECT throws_ok(format($$SELECT packed_int4(overlay(%L::bytea placing '\x00000080'::bytea from 41))$$,
                        bytea(array_pack(ARRAY(SELECT g FROM generate_series(1, 2000) g)::int4[]))),
    '22P03', 'packed_int4(bytea): invalid packed_int4 value: chunk bases are not in ascending order',
    'chunk bases out of order');
SELECT throws_ok($$SELECT array_union_gpu('{1}'::packed_int4, '{1}'::int8[])$$, '42883', NULL,
    'packed_int4 with int8[]: no such function');

-- the receive path under mutation: random bytes of valid values changed
CREATE FUNCTION pg_temp.mutations(src bytea, n int, OUT refused int, OUT accepted int, OUT wrong int)
LANGUAGE plpgsql AS $$
DECLARE
    m bytea;
    v packed_int4;
    i int;
    j int;
BEGIN
    refused := 0; accepted := 0; wrong := 0;
    FOR i IN 1 .. n LOOP
        m := src;
        FOR j IN 1 .. 1 + floor(random() * 3)::int LOOP
            m := set_byte(m, floor(random() * length(m))::int, floor(random() * 256)::int);
        END LOOP;
        BEGIN
            v := packed_int4(m);
            -- accepted: it must decode, sorted, to as many keys as it says
            IF cardinality(v) <> cardinality(v::int4[])
               OR v::int4[] IS DISTINCT FROM array_sort_gpu(v::int4[]) THEN
                wrong := wrong + 1;
            END IF;
            accepted := accepted + 1;
        EXCEPTION WHEN invalid_binary_representation OR data_corrupted THEN
            refused := refused + 1;
        END;
    END LOOP;
END
$$;
SELECT is(m.refused + m.accepted, 400, format('mutations of %s: all refused or accepted', label))
FROM (VALUES ('a patched value', bytea(array_pack(pg_temp.rand_patched(3000, 0.05, 100000)::int4[]))),
             ('a small value', bytea('{1,2,3,1000}'::packed_int4))) v(label, src),
     LATERAL pg_temp.mutations(src, 400) m;
SELECT is((SELECT sum(m.wrong)::int FROM pg_temp.mutations(bytea(array_pack(pg_temp.rand_sorted(5000, 0, 100000)::int4[])), 400) m),
          0, 'accepted mutations decode sorted');

SELECT * FROM finish();
ROLLBACK;
