-- test/trusted/binary_cases.sql: crafted binary fields for
-- test/trusted/check.sh's binary COPY into packed_int4 (id % 3 = 0),
-- packed_int8 (1) and setops_agg_state (2) columns: sx.cases (id, b).
-- States: int32 operation, int32 key size, int64 n, then the keys (network
-- order), with each field drawn from valid and invalid values, keys out of
-- order, truncated or extended; packed values: mutated valid ones (as
-- fuzz.sql does).
SET search_path = sx, public;
SELECT setseed(0.7);
\ir mutate.psql
CREATE TABLE sx.cases (id int PRIMARY KEY, b bytea);
CREATE FUNCTION pg_temp.pick(v anyarray) RETURNS anyelement LANGUAGE sql AS
    'SELECT v[1 + floor(random() * cardinality(v))::int]';
CREATE FUNCTION pg_temp.state_case() RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
    ks int := CASE WHEN random() < 0.2 THEN pg_temp.pick('{0,2,-4,16,5}'::int[]) ELSE pg_temp.pick('{4,8}'::int[]) END;
    nk int := floor(random() * 7)::int;
    n int8 := CASE WHEN random() < 0.3
                   THEN pg_temp.pick('{-1,2147483648,4611686018427387904,9223372036854775807,-9223372036854775808,7}'::int8[])
                   ELSE nk END;
    k int8[] := array(SELECT floor(random() * 11 - 5)::int8 FROM generate_series(1, nk) ORDER BY 1);
    b bytea;
BEGIN
    IF random() < 0.3 THEN	-- out of order
        k := array(SELECT x FROM unnest(k) x ORDER BY random());
    END IF;
    b := int4send(CASE WHEN random() < 0.2 THEN pg_temp.pick('{0,3,-1,2147483647}'::int[])
                       ELSE pg_temp.pick('{0,1,2}'::int[]) END)
         || int4send(ks) || int8send(n);
    FOR i IN 1 .. nk LOOP
        b := b || CASE WHEN ks = 8 THEN int8send(k[i]) ELSE int4send(k[i]::int4) END;
    END LOOP;
    IF random() < 0.15 THEN
        b := substr(b, 1, floor(random() * length(b))::int);
    ELSIF random() < 0.1 THEN
        b := b || '\x000000'::bytea;
    END IF;
    RETURN b;
END $$;
INSERT INTO sx.cases
SELECT i, CASE i % 3
    WHEN 0 THEN pg_temp.mutate(bytea(array_pack(array(SELECT (j * 3 + (j % 7) * 100000)::int4
                FROM generate_series(1, 1 + floor(random() * 2100)::int) j ORDER BY 1))))
    WHEN 1 THEN pg_temp.mutate(bytea(array_pack(array(SELECT (j::int8 << 33) + (j % 3)
                FROM generate_series(1, 1 + floor(random() * 2100)::int) j ORDER BY 1))))
    ELSE pg_temp.state_case() END
FROM generate_series(1, 240) i;
