-- 14_packed_index.sql: the GIN operator classes of packed_int4 and
-- packed_int8 (&& @> <@ =), and their equality, order and hashing (btree
-- and hash operator classes), as properties over random tables.
--
-- Each type gets a table of 2,700 rows: small keys with many duplicates,
-- sparse keys, the type's extremes (INT_MIN/INT_MAX, the int8 limits),
-- empty rows, runs, multi-chunk rows (over 1024 keys), and copies of every
-- 8th row packed at full width (byte-different, the same keys).  A third of
-- the rows is inserted after the GIN index is built: into its pending list
-- for packed_int4, into the tree (fastupdate off) for packed_int8.
--
-- About 110 queries a type (random, with duplicates such as {5,5} against
-- rows {5}, empty, parts of rows, rows themselves and with a copy more,
-- supersets of rows, extremes) for each of the four operators: the ids
-- through the index (enable_seqscan off, the plan checked to be a Bitmap
-- Index Scan on the GIN index) and through a sequential scan (index and
-- bitmap scans off) must both equal the reference's.  The reference is the
-- definition of reference.psql (the key-rank intersection count of row and
-- query, Σ min of the copies; checked against ref_setops on a sample):
-- && is count > 0, @> count = |query|, <@ count = |row|, = both.
--
-- Then equality, order and hashing: ORDER BY, DISTINCT, GROUP BY (hashed
-- and sorted), UNION, hash and merge joins on the packed column give what
-- the same on the int8[] keys gives (PostgreSQL orders one-dimensional
-- arrays lexicographically, a proper prefix first, as the packed order is
-- defined), and equal values hash alike whatever their bytes.
--
-- Mode-independent: run under any setops.device.
BEGIN;
\ir reference.psql

SELECT setseed(0.1414);

-- x's low nbytes bytes, little-endian (two's complement for negatives)
CREATE FUNCTION pg_temp.le(x int8, nbytes int) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(set_byte('\x00'::bytea, 0, ((x >> (8 * i)) & 255)::int), ''::bytea ORDER BY i)
    FROM generate_series(0, nbytes - 1) i
$$;

-- Sorted keys packed at full width (32 or 64 bits a difference, so no
-- patches), in the binary form of packed_int4(bytea) / packed_int8(bytea):
-- a valid value (common/packed_format.h) that the encoder never makes for
-- keys this close.  At full width a lane's row r is word r, so the words are
-- the differences in key order (0 for a chunk's first key and the padding).
-- Offsets are from the varlena start, 4 bytes before the binary form's.
CREATE FUNCTION pg_temp.full_width(keys int8[], kb int) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    n int := cardinality(keys);
    nchunks int := (n + 1023) / 1024;
    res bytea;
BEGIN
    -- header after the length: version 1, key bytes, reserved, n, nwords,
    -- npatches, nchunks, npatched_chunks
    res := '\x01'::bytea || pg_temp.le(kb, 1) || pg_temp.le(0, 2) || pg_temp.le(n, 8)
        || pg_temp.le(nchunks * 1024, 8) || pg_temp.le(0, 8) || pg_temp.le(nchunks, 4)
        || pg_temp.le(0, 4);
    -- bases, widths, word_start, patch_row: each padded to 8 bytes
    res := res || coalesce((SELECT string_agg(pg_temp.le(keys[c * 1024 + 1], kb), ''::bytea ORDER BY c)
                            FROM generate_series(0, nchunks - 1) c), '');
    res := res || decode(repeat('00', (8 - (4 + length(res)) % 8) % 8), 'hex');
    res := res || decode(repeat(lpad(to_hex(8 * kb), 2, '0'), nchunks), 'hex');
    res := res || decode(repeat('00', (8 - (4 + length(res)) % 8) % 8), 'hex');
    res := res || (SELECT string_agg(pg_temp.le(c * 1024, 4), ''::bytea ORDER BY c)
                   FROM generate_series(0, nchunks) c);
    res := res || decode(repeat('00', (8 - (4 + length(res)) % 8) % 8), 'hex');
    res := res || decode(repeat('ff', 4 * nchunks), 'hex');
    res := res || decode(repeat('00', (8 - (4 + length(res)) % 8) % 8), 'hex');
    -- the words: unsigned differences as the key type's bits
    res := res || coalesce((SELECT string_agg(pg_temp.le(
                       CASE WHEN i % 1024 = 0 THEN 0
                            ELSE (CASE WHEN d >= 9223372036854775808 THEN d - 18446744073709551616
                                       ELSE d END)::int8 END, kb), ''::bytea ORDER BY i)
                   FROM (SELECT i, keys[i + 1]::numeric - keys[i]::numeric AS d
                         FROM generate_series(0, n - 1) i) s), '');
    res := res || decode(repeat('00', kb * (nchunks * 1024 - n)), 'hex');
    RETURN res;
END
$$;

-- rows: int8[] keys per table, then the packed tables
CREATE TEMP TABLE src (tbl text, id int, kind text, a int8[], recoded boolean NOT NULL DEFAULT false,
                       PRIMARY KEY (tbl, id));
INSERT INTO src (tbl, id, kind, a)
SELECT tbl, g,
       CASE WHEN g <= 1400 THEN 'duplicates' WHEN g <= 1900 THEN 'sparse'
            WHEN g <= 2100 THEN 'extremes' WHEN g <= 2200 THEN 'empty'
            WHEN g <= 2400 THEN 'runs' ELSE 'multi-chunk' END,
       CASE WHEN g <= 1400 THEN pg_temp.rand_sorted(floor(random() * 30)::int, 0, 60)
            WHEN g <= 1900 THEN pg_temp.rand_sorted(1 + floor(random() * 100)::int, -span, span)
            WHEN g <= 2100 THEN pg_temp.rand_extreme(1 + floor(random() * 12)::int, bits)
            WHEN g <= 2200 THEN '{}'
            WHEN g <= 2400 THEN pg_temp.rand_runs(1 + floor(random() * 4)::int, 1, 4,
                                                  floor(random() * 50)::int8)
            ELSE pg_temp.rand_sorted(1100 + floor(random() * 1500)::int, 0, 3000) END
FROM (VALUES ('t4', 32, 1000000::int8), ('t8', 64, 2305843009213693952)) t(tbl, bits, span),
     generate_series(1, 2420) g;
INSERT INTO src (tbl, id, kind, a, recoded)
SELECT tbl, 10000 + id, kind || ' (full width)', a, true FROM src WHERE id % 8 = 0;

CREATE TEMP TABLE t4 (id int, p packed_int4);
CREATE TEMP TABLE t8 (id int, p packed_int8);
CREATE FUNCTION pg_temp.fill(tbl text, later boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO %I
        SELECT id, CASE WHEN recoded THEN %s(pg_temp.full_width(a, %s)) ELSE a::%s::%s END
        FROM src WHERE tbl = %L AND (id %% 3 = 0) = %L ORDER BY id$q$,
        tbl, CASE tbl WHEN 't4' THEN 'packed_int4' ELSE 'packed_int8' END,
        CASE tbl WHEN 't4' THEN 4 ELSE 8 END, CASE tbl WHEN 't4' THEN 'int4[]' ELSE 'int8[]' END,
        CASE tbl WHEN 't4' THEN 'packed_int4' ELSE 'packed_int8' END, tbl, later);
END
$$;
SELECT pg_temp.fill('t4', false), pg_temp.fill('t8', false);
CREATE INDEX t4_gin ON t4 USING gin (p);
CREATE INDEX t8_gin ON t8 USING gin (p) WITH (fastupdate = off);
SELECT pg_temp.fill('t4', true), pg_temp.fill('t8', true);
ANALYZE t4;
ANALYZE t8;

-- queries
CREATE TEMP TABLE queries (tbl text, qid serial, label text, a int8[]);
CREATE FUNCTION pg_temp.sorted(x int8[]) RETURNS int8[] LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(array_agg(k ORDER BY k), '{}') FROM unnest(x) k
$$;
INSERT INTO queries (tbl, label, a)
SELECT t.tbl, l.label, l.a
FROM (VALUES ('t4', 32), ('t8', 64)) t(tbl, bits),
LATERAL (
    SELECT 'random small' AS label, pg_temp.rand_sorted(1 + floor(random() * 3)::int, 0, 60) AS a
    FROM generate_series(1, 20)
    UNION ALL
    SELECT 'with duplicates', pg_temp.rand_runs(1 + floor(random() * 2)::int, 2, 3, floor(random() * 55)::int8)
    FROM generate_series(1, 10)
    UNION ALL
    SELECT 'fixed ' || q::text, q FROM unnest(ARRAY['{}', '{5}', '{5,5}', '{5,5,5}', '{0,60}']::text[]) v,
           LATERAL (SELECT v::int8[] AS q) s
    UNION ALL
    (SELECT 'part of row ' || id, ARRAY(SELECT k FROM unnest(a) WITH ORDINALITY u(k, o)
                                        WHERE o % 2 = 1 ORDER BY o)
     FROM src WHERE tbl = t.tbl AND a <> '{}' AND NOT recoded ORDER BY random() LIMIT 15)
    UNION ALL
    (SELECT 'row ' || id, a FROM src WHERE tbl = t.tbl ORDER BY random() LIMIT 15)
    UNION ALL
    (SELECT 'row ' || id || ' with a copy more', a[1:1] || a
     FROM src WHERE tbl = t.tbl AND a <> '{}' ORDER BY random() LIMIT 10)
    UNION ALL
    (SELECT 'row ' || id || ' widened', pg_temp.sorted(a || pg_temp.rand_sorted(5, 0, 60))
     FROM src WHERE tbl = t.tbl AND cardinality(a) < 40 ORDER BY random() LIMIT 15)
    UNION ALL
    (SELECT 'row ' || id || ' (' || kind || ')', a FROM src
     WHERE tbl = t.tbl AND kind IN ('multi-chunk', 'extremes', 'runs') ORDER BY random() LIMIT 6)
    UNION ALL
    SELECT 'wide', pg_temp.rand_sorted(40 + floor(random() * 40)::int, 0, 60) FROM generate_series(1, 10)
    UNION ALL
    SELECT 'extremes', pg_temp.rand_extreme(1 + floor(random() * 5)::int, t.bits) FROM generate_series(1, 8)
    UNION ALL
    SELECT 'limits', q FROM unnest(CASE WHEN t.bits = 32 THEN
               ARRAY['{-2147483648}', '{2147483647}', '{-2147483648,2147483647}']
             ELSE ARRAY['{-9223372036854775808}', '{9223372036854775807}',
                        '{-9223372036854775808,9223372036854775807}'] END) v,
           LATERAL (SELECT v::int8[] AS q) s) l;

-- the reference: intersection counts Σ min(copies) of every row and query
CREATE TEMP TABLE rk AS
SELECT s.tbl, s.id, k, count(*) AS c FROM src s, unnest(s.a) k GROUP BY 1, 2, 3;
CREATE TEMP TABLE qk AS
SELECT q.tbl, q.qid, k, count(*) AS c FROM queries q, unnest(q.a) k GROUP BY 1, 2, 3;
CREATE TEMP TABLE icount AS
SELECT rk.tbl, rk.id, qk.qid, sum(least(rk.c, qk.c)) AS i
FROM rk JOIN qk ON qk.tbl = rk.tbl AND qk.k = rk.k GROUP BY 1, 2, 3;
CREATE TEMP TABLE expect AS
SELECT q.tbl, q.qid, o.op,
       coalesce(array_agg(s.id ORDER BY s.id) FILTER (WHERE CASE o.op
           WHEN '&&' THEN coalesce(c.i, 0) > 0
           WHEN '@>' THEN coalesce(c.i, 0) = cardinality(q.a)
           WHEN '<@' THEN coalesce(c.i, 0) = cardinality(s.a)
           ELSE coalesce(c.i, 0) = cardinality(q.a) AND cardinality(q.a) = cardinality(s.a) END),
           '{}') AS ids
FROM queries q JOIN src s ON s.tbl = q.tbl
     CROSS JOIN (VALUES ('&&'), ('@>'), ('<@'), ('=')) o(op)
     LEFT JOIN icount c ON c.tbl = q.tbl AND c.qid = q.qid AND c.id = s.id
GROUP BY 1, 2, 3;

-- The operator through the index or a sequential scan: the ids, and
-- whether the plan was the GIN index's (index) or had none (seq).  The
-- index's rechecks run in the session's setops.device; the sequential
-- scan, a second route to the answer calling the operator on every row
-- (about 1.9M calls), on the CPU engine: in gpu mode each of those calls
-- would be a round trip to the GPU service.
CREATE FUNCTION pg_temp.run(tbl text, op text, q int8[], via text, OUT ids int[], OUT plan_ok boolean)
LANGUAGE plpgsql AS $$
DECLARE
    sql text := format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM %I WHERE p %s %L::%s',
                       tbl, op, q::text, CASE tbl WHEN 't4' THEN 'packed_int4' ELSE 'packed_int8' END);
    plan text;
    mode text := current_setting('setops.device');
BEGIN
    PERFORM set_config('enable_seqscan', (via = 'seq')::text, true);
    PERFORM set_config('enable_indexscan', (via = 'index')::text, true);
    PERFORM set_config('enable_bitmapscan', (via = 'index')::text, true);
    plan := pg_temp.plan_of(sql);
    plan_ok := CASE via WHEN 'index' THEN plan LIKE format('%%Bitmap Index Scan on %s_gin%%', tbl)
                        ELSE plan NOT LIKE '%Index%' END;
    IF via = 'seq' THEN
        PERFORM set_config('setops.device', 'cpu', true);
    END IF;
    EXECUTE sql INTO ids;
    PERFORM set_config('setops.device', mode, true);
END
$$;
CREATE TEMP TABLE runs AS
SELECT q.tbl, q.qid, q.label, o.op, i.ids AS index_ids, i.plan_ok AS index_plan,
       s.ids AS seq_ids, s.plan_ok AS seq_plan
FROM queries q CROSS JOIN (VALUES ('&&'), ('@>'), ('<@'), ('=')) o(op),
     LATERAL pg_temp.run(q.tbl, o.op, q.a, 'index') i,
     LATERAL pg_temp.run(q.tbl, o.op, q.a, 'seq') s;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;

SELECT plan(2 * (SELECT count(*)::int FROM runs) + 40);

-- the data are what they claim
SELECT is((SELECT count(*) FROM t4), 2722::bigint, 'packed_int4 rows');
SELECT is((SELECT count(*) FROM t8), 2722::bigint, 'packed_int8 rows');
SELECT ok((SELECT bool_and(p::int4[]::int8[] = s.a) FROM t4 JOIN src s ON s.tbl = 't4' AND s.id = t4.id)
          AND (SELECT bool_and(p::int8[] = s.a) FROM t8 JOIN src s ON s.tbl = 't8' AND s.id = t8.id),
          'every row holds its keys');
SELECT is((SELECT count(*) FROM src s JOIN src c ON c.tbl = s.tbl AND c.id = s.id - 10000
           WHERE s.recoded AND s.a <> '{}'
             AND (CASE s.tbl WHEN 't4' THEN (SELECT bytea(p) FROM t4 WHERE id = s.id)
                             ELSE (SELECT bytea(p) FROM t8 WHERE id = s.id) END)
                 = (CASE s.tbl WHEN 't4' THEN (SELECT bytea(p) FROM t4 WHERE id = c.id)
                               ELSE (SELECT bytea(p) FROM t8 WHERE id = c.id) END)),
          0::bigint, 'full-width copies differ in bytes from the encoder''s');
SELECT cmp_ok((SELECT count(*) FROM src WHERE recoded AND a <> '{}'), '>=', 500::bigint,
              'non-empty full-width copies');
SELECT ok((SELECT count(*) FROM src WHERE recoded AND kind LIKE 'multi-chunk%') >= 4,
          'multi-chunk rows among the full-width copies');
SELECT ok((SELECT bool_and(kinds) FROM (
               SELECT tbl, count(DISTINCT kind) = 12 AS kinds FROM src GROUP BY tbl) k),
          'every kind of row in both tables');
SELECT ok(EXISTS (SELECT FROM src WHERE tbl = 't4' AND a && '{-2147483648}' AND a && '{2147483647}')
          AND EXISTS (SELECT FROM src WHERE tbl = 't8' AND a && '{-9223372036854775808}')
          AND EXISTS (SELECT FROM src WHERE tbl = 't8' AND a && '{9223372036854775807}'),
          'the types'' limits among the keys');
SELECT is((SELECT count(*) FROM queries), 2 * (SELECT count(*) FROM queries WHERE tbl = 't4'),
          'as many queries for each type');
SELECT cmp_ok((SELECT count(*) FROM queries WHERE tbl = 't4'), '>=', 100::bigint, 'queries a type');

-- the reference is reference.psql's definition: its intersection counts on a sample
SELECT is((SELECT count(*) FROM (
               SELECT s.a, q.a AS qa, coalesce(c.i, 0) AS i
               FROM queries q JOIN src s ON s.tbl = q.tbl
                    LEFT JOIN icount c ON c.tbl = q.tbl AND c.qid = q.qid AND c.id = s.id
               WHERE (s.id * 7 + q.qid * 13) % 97 = 0) x
           WHERE cardinality((pg_temp.ref_setops(x.a, x.qa)).i) <> x.i),
          0::bigint, 'intersection counts agree with ref_setops on a sample');
-- the answers are not all trivial
SELECT ok((SELECT count(*) FROM runs r JOIN expect e USING (tbl, qid, op)
           WHERE cardinality(e.ids) BETWEEN 1 AND 2000) >= 400, 'most answers neither empty nor all');
SELECT ok(EXISTS (SELECT FROM runs r JOIN expect e USING (tbl, qid, op) JOIN queries q USING (tbl, qid)
                  WHERE r.op = '@>' AND q.a = '{5,5}' AND cardinality(e.ids) > 0
                    AND EXISTS (SELECT FROM src WHERE tbl = r.tbl AND a && '{5}'
                                AND NOT id = ANY (e.ids))),
          '{5,5}: rows with 5 that contain it and rows with 5 that do not');
SELECT ok((SELECT count(*) FROM runs r JOIN expect e USING (tbl, qid, op)
           WHERE r.op = '=' AND cardinality(e.ids) > 0) >= 20, '= finds rows');
SELECT ok((SELECT count(*) FROM runs r JOIN expect e USING (tbl, qid, op)
           WHERE r.op = '<@' AND cardinality(e.ids) > 200) >= 10, '<@ finds more than the empty rows');

-- every plan as required
SELECT is((SELECT count(*) FROM runs WHERE tbl = t AND op = o AND index_plan AND seq_plan),
          (SELECT count(*) FROM runs WHERE tbl = t AND op = o),
          format('%s %s: Bitmap Index Scan with seqscan off, no index with index scans off', t, o))
FROM (VALUES ('t4'), ('t8')) a(t), (VALUES ('&&'), ('@>'), ('<@'), ('=')) b(o) ORDER BY t, o;

-- every answer, through the index and through a sequential scan
SELECT pg_temp.arr_is(r.index_ids, e.ids, format('%s: p %s %s [%s] via index', r.tbl, r.op, q.a, q.label))
FROM runs r JOIN expect e USING (tbl, qid, op) JOIN queries q USING (tbl, qid)
ORDER BY r.tbl, r.op, r.qid;
SELECT pg_temp.arr_is(r.seq_ids, e.ids, format('%s: p %s %s [%s] via seqscan', r.tbl, r.op, q.a, q.label))
FROM runs r JOIN expect e USING (tbl, qid, op) JOIN queries q USING (tbl, qid)
ORDER BY r.tbl, r.op, r.qid;

-- equality, order, hashing: the packed column against its int8[] keys
CREATE TEMP TABLE keyed AS
SELECT 't4' AS tbl, t4.id, t4.p::int4[]::int8[] AS a, NULL::packed_int8 AS p8, t4.p AS p4 FROM t4
UNION ALL
SELECT 't8', t8.id, t8.p::int8[], t8.p, NULL FROM t8;
-- The groups of tbl's rows by col, each as count/min/sum of its ids (in
-- md5), through node: HashAggregate or GroupAggregate (sorted).
CREATE FUNCTION pg_temp.groups(tbl text, col text, node text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    q text := format('SELECT format(''%%s/%%s/%%s'', count(*), min(id), sum(id)) AS g
                      FROM keyed WHERE tbl = %L GROUP BY %I', tbl, col);
    r text;
BEGIN
    PERFORM set_config('enable_hashagg', (node = 'HashAggregate')::text, true);
    PERFORM set_config('enable_sort', (node = 'GroupAggregate')::text, true);
    IF pg_temp.plan_of(q) NOT LIKE format('%%%s%%', node) THEN
        r := 'plan without ' || node;
    ELSE
        EXECUTE format('SELECT md5(string_agg(g, '';'' ORDER BY g)) FROM (%s) s', q) INTO r;
    END IF;
    PERFORM set_config('enable_hashagg', 'on', true);
    PERFORM set_config('enable_sort', 'on', true);
    RETURN r;
END $$;

SELECT is((SELECT array_agg(id ORDER BY p4, id) FROM keyed WHERE tbl = 't4'),
          (SELECT array_agg(id ORDER BY a, id) FROM keyed WHERE tbl = 't4'), 'packed_int4: ORDER BY');
SELECT is((SELECT array_agg(id ORDER BY p8 DESC, id) FROM keyed WHERE tbl = 't8'),
          (SELECT array_agg(id ORDER BY a DESC, id) FROM keyed WHERE tbl = 't8'), 'packed_int8: ORDER BY DESC');
SELECT is((SELECT count(DISTINCT p4) FROM keyed), (SELECT count(DISTINCT a) FROM keyed WHERE tbl = 't4'),
          'packed_int4: count(DISTINCT)');
SELECT is((SELECT count(*) FROM (SELECT p8 FROM keyed WHERE tbl = 't8' UNION SELECT p FROM t8) u),
          (SELECT count(DISTINCT a) FROM keyed WHERE tbl = 't8'), 'packed_int8: UNION');
SELECT is((SELECT count(*) FROM (SELECT p4 FROM keyed WHERE tbl = 't4' UNION SELECT p FROM t4) u),
          (SELECT count(DISTINCT a) FROM keyed WHERE tbl = 't4'), 'packed_int4: UNION');
-- grouped by the arrays as the reference, either way
SELECT is(pg_temp.groups(t, c, node), pg_temp.groups(t, 'a', node), format('%s: GROUP BY through %s', typ, node))
FROM (VALUES ('t4', 'p4', 'packed_int4'), ('t8', 'p8', 'packed_int8')) a(t, c, typ),
     (VALUES ('HashAggregate'), ('GroupAggregate')) b(node) ORDER BY t, node;
CREATE FUNCTION pg_temp.join_pairs(tbl text, col text, method text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    q text := format('SELECT count(*)::text || '' '' || sum(l.id::int8 * 100000 + r.id)::text
                      FROM keyed l JOIN keyed r ON l.%I = r.%I WHERE l.tbl = %L AND r.tbl = %L',
                     col, col, tbl, tbl);
    r text;
BEGIN
    PERFORM set_config('enable_hashjoin', (method = 'Hash')::text, true);
    PERFORM set_config('enable_mergejoin', (method = 'Merge')::text, true);
    PERFORM set_config('enable_nestloop', 'off', true);
    IF pg_temp.plan_of(q) NOT LIKE format('%%%s Join%%', method) THEN
        RETURN 'plan without a ' || method || ' Join';
    END IF;
    EXECUTE q INTO r;
    PERFORM set_config('enable_hashjoin', 'on', true);
    PERFORM set_config('enable_mergejoin', 'on', true);
    PERFORM set_config('enable_nestloop', 'on', true);
    RETURN r;
END $$;
SELECT is(pg_temp.join_pairs('t4', 'p4', 'Hash'), pg_temp.join_pairs('t4', 'a', 'Hash'), 'packed_int4: hash join');
SELECT is(pg_temp.join_pairs('t4', 'p4', 'Merge'), pg_temp.join_pairs('t4', 'a', 'Hash'), 'packed_int4: merge join');
SELECT is(pg_temp.join_pairs('t8', 'p8', 'Hash'), pg_temp.join_pairs('t8', 'a', 'Hash'), 'packed_int8: hash join');
SELECT is(pg_temp.join_pairs('t8', 'p8', 'Merge'), pg_temp.join_pairs('t8', 'a', 'Hash'), 'packed_int8: merge join');
-- every pair of a sample: = <> < <= > >= and packed_cmp as the arrays', equal values hash alike
SELECT is((SELECT count(*) FROM keyed l JOIN keyed r ON r.tbl = l.tbl
           WHERE l.id % 11 = 0 AND r.id % 7 = 0
             AND NOT ((coalesce(l.p4 = r.p4, l.p8 = r.p8) = (l.a = r.a))
                  AND (coalesce(l.p4 <> r.p4, l.p8 <> r.p8) = (l.a <> r.a))
                  AND (coalesce(l.p4 < r.p4, l.p8 < r.p8) = (l.a < r.a))
                  AND (coalesce(l.p4 <= r.p4, l.p8 <= r.p8) = (l.a <= r.a))
                  AND (coalesce(l.p4 > r.p4, l.p8 > r.p8) = (l.a > r.a))
                  AND (coalesce(l.p4 >= r.p4, l.p8 >= r.p8) = (l.a >= r.a))
                  AND sign(coalesce(packed_cmp(l.p4, r.p4), packed_cmp(l.p8, r.p8)))
                      = sign(btarraycmp(l.a, r.a)))),
          0::bigint, 'comparison operators agree with the arrays on every sampled pair');
SELECT is((SELECT count(*) FROM (
               SELECT tbl, a FROM keyed GROUP BY tbl, a
               HAVING count(DISTINCT coalesce(packed_hash(p4), packed_hash(p8))) > 1
                   OR count(DISTINCT coalesce(packed_hash_extended(p4, 42), packed_hash_extended(p8, 42))) > 1
                   OR bool_or(coalesce(packed_hash_extended(p4, 0), packed_hash_extended(p8, 0)) & 4294967295
                              <> coalesce(packed_hash(p4), packed_hash(p8))::int8 & 4294967295)) g),
          0::bigint, 'equal values hash alike (support 1 and 2), support 2 with seed 0 has support 1''s low bits');
SELECT ok((SELECT count(*) FROM (SELECT a FROM keyed GROUP BY tbl, a HAVING count(*) > 1) g) >= 300,
          'many values occur more than once');
SELECT ok((SELECT count(DISTINCT coalesce(packed_hash(p4), packed_hash(p8))) FROM keyed)
          >= 0.95 * (SELECT count(*) FROM (SELECT DISTINCT tbl, a FROM keyed) d), 'hashes spread');

SELECT * FROM finish();
ROLLBACK;
