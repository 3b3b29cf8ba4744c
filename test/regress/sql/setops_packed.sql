--
-- packed_int4 / packed_int8: text and binary forms, casts, operations,
-- aggregates, storage, and the errors a user meets.
--

-- text form: that of the array
SELECT '{1,2,2,5,1000000,2147483647}'::packed_int4 AS p4,
       '{-9223372036854775808,0,9223372036854775807}'::packed_int8 AS p8,
       '{}'::packed_int4 AS empty;
SELECT cardinality('{1,2,2,5}'::packed_int4), cardinality('{}'::packed_int8);

-- casts to and from arrays, and the functions behind them
SELECT array_pack('{3,3,7}'::int4[]), array_unpack('{3,3,7}'::packed_int4),
       '{3,3,7}'::int8[]::packed_int8::int8[] AS via_casts;
SELECT pg_typeof(array_pack('{1}'::int8[])), pg_typeof(array_unpack('{1}'::packed_int8));
-- assignment casts: an array goes into a packed column as it is
CREATE TABLE packed_t (id int, p packed_int4);
INSERT INTO packed_t VALUES (1, '{1,5,9}'::int4[]), (2, ARRAY[2,5,5,11]);
SELECT id, p, cardinality(p) FROM packed_t ORDER BY id;

-- the operations: packed with packed gives packed, mixed gives an array
SELECT array_intersect_gpu(a.p, b.p) AS i, pg_typeof(array_intersect_gpu(a.p, b.p)),
       array_union_gpu(a.p, b.p) AS u, array_difference_gpu(b.p, a.p) AS d,
       array_symdiff_gpu(a.p, b.p) AS s
FROM packed_t a, packed_t b WHERE a.id = 1 AND b.id = 2;
SELECT array_union_gpu(p, '{0,5,5,5}'::int4[]) AS pa,
       array_difference_gpu('{0,5,5,5}'::int4[], p) AS ap,
       pg_typeof(array_union_gpu(p, '{0}'::int4[]))
FROM packed_t WHERE id = 2;
SELECT array_intersect_gpu('{1,2,2,3}'::packed_int8, '{2,2,2,9}'::packed_int8);

-- aggregates over packed rows return packed
SELECT array_union_agg(p), array_merge_agg(p), array_intersect_agg(p),
       pg_typeof(array_union_agg(p))
FROM packed_t;

-- stored: external storage (out of line, never pglz'd), a fraction of the array
SELECT attstorage FROM pg_attribute WHERE attrelid = 'packed_t'::regclass AND attname = 'p';
INSERT INTO packed_t SELECT 3, array_agg(g * 7 + g % 5 ORDER BY g) FROM generate_series(1, 100000) g;
SELECT id, cardinality(p), pg_column_size(p) < 100000 * 4 / 4 AS under_a_quarter,
       p::int4[] = (SELECT array_agg(g * 7 + g % 5 ORDER BY g) FROM generate_series(1, 100000) g) AS exact
FROM packed_t WHERE id = 3;
DROP TABLE packed_t;

-- binary form, as bytea: little-endian header (36 bytes after the length),
-- then the sections; it round trips and is validated on the way back in
SELECT length(bytea('{1,2,3}'::packed_int4)) AS bytes,
       substr(bytea('{1,2,3}'::packed_int4), 1, 8) AS version_keysize_n;
SELECT packed_int4(bytea('{1,2,3}'::packed_int4)), bytea('{7}'::packed_int8)::packed_int8;

-- errors
SELECT '{3,1}'::packed_int4;
SELECT array_pack('{1,5,4}'::int8[]);
SELECT '{1,NULL}'::int4[]::packed_int4;
SELECT array_pack('{{1,2},{3,4}}'::int4[]);
SELECT '{1,x}'::packed_int4;
SELECT packed_int4('\x0102'::bytea);
SELECT packed_int8(bytea('{1,2,3}'::packed_int4));
SELECT packed_int4(bytea('{1,2,3}'::packed_int4) || '\x00'::bytea);
SELECT packed_int4(overlay(bytea('{1,2,3}'::packed_int4) placing '\x02'::bytea from 1));
SELECT packed_int4(overlay(bytea(array_pack(ARRAY(SELECT g FROM generate_series(1, 2000) g)::int4[]))
                   placing '\x00000080'::bytea from 41));
SELECT array_union_gpu('{1}'::packed_int4, '{1}'::int8[]);
