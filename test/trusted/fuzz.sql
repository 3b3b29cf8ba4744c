-- test/trusted/fuzz.sql (psql -v iters=N): packed values from mutated
-- bytes, cast from bytea (setops_packed_from_untrusted, as the receive
-- functions); each is refused (22P03, or XX001 from a reader) or read by
-- every kind of function, and must then unpack to as many keys as its
-- header says, in order.  Run by test/trusted/check.sh as a plain role;
-- the last line is the tally ('0 wrong' expected).
SET search_path = sx, public;
SET setops.device = cpu;
SELECT setseed(0.35);
CREATE TEMP TABLE seeds AS
SELECT bytea(array_pack(a)) AS b, 4 AS ks FROM (VALUES ('{}'::int4[]), ('{1}'), ('{1,1,2,3,5,8,13}'),
   (array(SELECT (i * 7 + (i % 5) * 1000003)::int4 FROM generate_series(1, 3000) i ORDER BY 1)),
   (array(SELECT i::int4 FROM generate_series(-2147483648, -2147483648 + 2100) i)),
   (array(SELECT (i * 1000 + CASE WHEN i % 97 = 0 THEN 900000 ELSE 0 END)::int4
          FROM generate_series(1, 2500) i ORDER BY 1))) v(a)
UNION ALL
SELECT bytea(array_pack(a)), 8 FROM (VALUES ('{}'::int8[]), ('{9223372036854775807}'),
   ('{-9223372036854775808,0,0,9223372036854775807}'),
   (array(SELECT (i::int8 * 4000000007 + (i % 3)) FROM generate_series(1, 2500) i ORDER BY 1)),
   (array(SELECT (i * 10 + CASE WHEN i % 50 = 0 THEN 1000000000000 ELSE 0 END)::int8
          FROM generate_series(1, 2100) i ORDER BY 1))) v(a);
\ir mutate.psql
CREATE FUNCTION pg_temp.fuzz(iters int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    s record;
    b bytea;
    p4 packed_int4;
    p8 packed_int8;
    accepted int := 0;
    refused int := 0;
    wrong int := 0;
BEGIN
    FOR i IN 1 .. iters LOOP
        SELECT * INTO s FROM seeds ORDER BY random() LIMIT 1;
        b := pg_temp.mutate(s.b);
        BEGIN
            IF s.ks = 4 THEN
                p4 := b::packed_int4;
                PERFORM array_unpack(p4), cardinality(p4), p4::text, array_intersect_gpu(p4, p4),
                        array_union_count(p4, '{1,2,3}'::int4[]), packed_hash(p4), p4 = p4,
                        p4 < '{5}'::packed_int4, p4::bytea::packed_int4;
                IF cardinality(p4) <> cardinality(p4::int4[]) OR p4::int4[] <> array_sort_gpu(p4::int4[]) THEN
                    wrong := wrong + 1;
                END IF;
            ELSE
                p8 := b::packed_int8;
                PERFORM array_unpack(p8), cardinality(p8), p8::text, array_symdiff_gpu(p8, p8),
                        array_jaccard(p8, '{1,2,3}'::int8[]), packed_hash_extended(p8, 7), p8 @> p8,
                        array_merge_agg(x) FROM (VALUES (p8), (p8)) v(x);
                IF cardinality(p8) <> cardinality(p8::int8[]) OR p8::int8[] <> array_sort_gpu(p8::int8[]) THEN
                    wrong := wrong + 1;
                END IF;
            END IF;
            accepted := accepted + 1;
        EXCEPTION WHEN invalid_binary_representation OR data_corrupted THEN
            refused := refused + 1;
        END;
    END LOOP;
    RETURN format('%s mutated values: %s refused, %s accepted and read, %s wrong', iters, refused, accepted,
                  wrong);
END $$;
SELECT pg_temp.fuzz(:iters);
