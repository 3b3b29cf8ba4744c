-- test/shard/coordinator.sql: the coordinator's part of the sharded cluster
-- (test/shard/run.sh), after test/shard/shard.sql ran on both shards.
-- psql variables: host0, port0, host1, port1 (the shards' socket
-- directories and ports).
--
--   seg        partitioned by list on shard; its partitions seg_p0, seg_p1
--              are foreign tables (postgres_fdw) on the shards' seg_p
--   seg_local  the same rows in one local table: the answers to compare
--   shards     the PL/Proxy cluster of the two shards (SQL/MED), and proxy
--              functions of the names the shards define
--
-- A row's shard is hashtext(id::text) & 1, the partition PL/Proxy's
-- RUN ON hashtext(id::text) picks of two: the data is where both routes
-- look for it.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION setops;
CREATE EXTENSION postgres_fdw;
CREATE EXTENSION plproxy;
CREATE EXTENSION pgtap;

-- postgres_fdw: setops's IMMUTABLE functions, operators and aggregates are
-- shipped to the shards because the servers list the extension
CREATE SERVER shard0 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'host0', port :'port0', dbname 'postgres', extensions 'setops');
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'host1', port :'port1', dbname 'postgres', extensions 'setops');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard0 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (user 'postgres');

CREATE TABLE seg (
	shard int NOT NULL,
	id int NOT NULL,
	members int4[],
	pm packed_int4,
	m8 int8[],
	pm8 packed_int8
) PARTITION BY LIST (shard);
CREATE FOREIGN TABLE seg_p0 PARTITION OF seg FOR VALUES IN (0)
	SERVER shard0 OPTIONS (table_name 'seg_p');
CREATE FOREIGN TABLE seg_p1 PARTITION OF seg FOR VALUES IN (1)
	SERVER shard1 OPTIONS (table_name 'seg_p');

CREATE TABLE seg_local (LIKE seg);

-- Random rows: sorted int4[] with duplicates (most keys from [0, 60), so
-- that rows meet), int4's extremes, keys from the whole range; empty
-- arrays (every 7th row, unless it takes the core), NULL rows (every
-- 13th); every 3rd row also holds the core {-2147483648,7,7,42,2147483647}
-- (so that intersections of many rows are not all empty).  m8 likewise with
-- int8's extremes, NULL every 11th row.
SELECT setseed(0.19) \gset
INSERT INTO seg_local (shard, id, members, m8)
SELECT hashtext(g::text) & 1, g,
       CASE WHEN g % 13 = 0 THEN NULL ELSE k4.a END,
       CASE WHEN g % 11 = 0 THEN NULL ELSE k8.a END
FROM generate_series(1, 400) g,
LATERAL (SELECT CASE WHEN g % 7 = 0 THEN 0 ELSE floor(random() * 40)::int END AS n) l,
LATERAL (
	SELECT coalesce(array_agg(x ORDER BY x), '{}') AS a
	FROM (SELECT CASE WHEN r < 0.08 THEN ('{-2147483648,-2147483647,2147483646,2147483647}'::int4[])[1 + floor(random() * 4)::int]
	                  WHEN r < 0.85 THEN floor(random() * 60)::int
	                  ELSE floor(random() * 4294967296 - 2147483648)::int END AS x
	      FROM (SELECT random() AS r FROM generate_series(1, l.n)) s
	      UNION ALL
	      SELECT unnest('{-2147483648,7,7,42,2147483647}'::int4[]) WHERE g % 3 = 1) t
) k4,
LATERAL (
	SELECT coalesce(array_agg(x ORDER BY x), '{}') AS a
	FROM (SELECT CASE WHEN r < 0.08 THEN ('{-9223372036854775808,-9223372036854775807,9223372036854775806,9223372036854775807}'::int8[])[1 + floor(random() * 4)::int]
	                  WHEN r < 0.85 THEN floor(random() * 60)::int8
	                  ELSE floor((random() - 0.5) * 1.8e19)::int8 END AS x
	      FROM (SELECT random() AS r FROM generate_series(1, l.n)) s
	      UNION ALL
	      SELECT unnest('{-9223372036854775808,7,7,42,9223372036854775807}'::int8[]) WHERE g % 3 = 1) t
) k8;
-- and a few chosen ones: empty, extremes only, one key many times, NULL,
-- one large array (100,000 keys over int4's range, stored out of line)
INSERT INTO seg_local (shard, id, members, m8)
SELECT hashtext(id::text) & 1, id, a, a::int8[]
FROM (VALUES (401, '{}'::int4[]),
             (402, '{-2147483648,-2147483648,2147483647,2147483647}'),
             (403, '{5,5,5,5,5,5,5,5}'),
             (404, NULL),
             (405, ARRAY(SELECT generate_series(-2147483648, 2147483647, 42950)::int4))) v(id, a);
UPDATE seg_local SET pm = members::packed_int4, pm8 = m8::packed_int8;

-- the same rows, through the partitioned table to the shards
INSERT INTO seg SELECT * FROM seg_local;
ANALYZE seg_local;
ANALYZE seg;

-- the plan of q, EXPLAIN (VERBOSE, COSTS OFF)
CREATE FUNCTION plan_of(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	l text;
	r text := '';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
		r := r || l || E'\n';
	END LOOP;
	RETURN r;
END
$$;

-- the Remote SQL lines of that plan, one a line
CREATE FUNCTION remote_sql(q text) RETURNS text
LANGUAGE sql AS $$
	SELECT coalesce(string_agg(substring(l FROM '^\s*Remote SQL: (.*)$'), E'\n'), '')
	FROM regexp_split_to_table(plan_of(q), E'\n') l
	WHERE l ~ '^\s*Remote SQL: '
$$;

-- PL/Proxy: the cluster of the two shards (a power of two, as PL/Proxy
-- requires), through SQL/MED
CREATE SERVER shards FOREIGN DATA WRAPPER plproxy OPTIONS (
	p0 :'plproxy0',
	p1 :'plproxy1');
CREATE USER MAPPING FOR PUBLIC SERVER shards OPTIONS (user 'postgres');

-- on every shard: each shard's setops.device
CREATE FUNCTION shard_device() RETURNS SETOF text
LANGUAGE plproxy AS $$
	CLUSTER 'shards';
	RUN ON ALL;
$$;

-- on every shard: each shard's aggregates of its rows that contain must
-- ('{}': all its rows); the caller combines them
CREATE FUNCTION shard_aggs(must int4[],
	OUT shard int, OUT n int8,
	OUT u int4[], OUT i int4[], OUT m int4[],
	OUT up packed_int4, OUT ip packed_int4, OUT mp packed_int4,
	OUT u8 int8[], OUT i8 int8[], OUT m8 int8[])
RETURNS SETOF record
LANGUAGE plproxy AS $$
	CLUSTER 'shards';
	RUN ON ALL;
$$;

-- on every shard: ids of the rows whose packed members overlap q
CREATE FUNCTION shard_overlapping(q packed_int4) RETURNS SETOF int
LANGUAGE plproxy AS $$
	CLUSTER 'shards';
	RUN ON ALL;
$$;

-- on every shard: the shard's sum of intersection counts with q
CREATE FUNCTION shard_intersect_count(q int4[]) RETURNS SETOF int8
LANGUAGE plproxy AS $$
	CLUSTER 'shards';
	RUN ON ALL;
$$;

-- on the shard that owns the key
CREATE FUNCTION seg_row(i_id int, q int4[],
	OUT id int, OUT members int4[], OUT pm packed_int4,
	OUT inter int4[], OUT uni packed_int4, OUT cnt int8, OUT jac float8)
RETURNS SETOF record
LANGUAGE plproxy AS $$
	CLUSTER 'shards';
	RUN ON hashtext(i_id::text);
$$;

-- for the faults step: sleeps s seconds on every shard, then each
-- shard's array_union_agg
CREATE FUNCTION shard_sleep(s float8) RETURNS SETOF int4[]
LANGUAGE plproxy AS $$
	CLUSTER 'shards';
	RUN ON ALL;
$$;

-- the sharded answers are the local ones: through postgres_fdw, through
-- PL/Proxy
CREATE FUNCTION fdw_ok() RETURNS bool
LANGUAGE sql AS $$
	SELECT (SELECT array_union_agg(members) FROM seg) IS NOT DISTINCT FROM
	       (SELECT array_union_agg(members) FROM seg_local)
	   AND (SELECT array_agg(id ORDER BY id) FROM seg WHERE pm @> '{7,7,42}') =
	       (SELECT array_agg(id ORDER BY id) FROM seg_local WHERE pm @> '{7,7,42}')
$$;
CREATE FUNCTION proxy_ok() RETURNS bool
LANGUAGE sql AS $$
	SELECT (SELECT array_union_agg(u) FROM shard_aggs('{}')) IS NOT DISTINCT FROM
	       (SELECT array_union_agg(members) FROM seg_local)
$$;

-- x, after sleeping s seconds (VOLATILE: evaluated on the coordinator, row
-- by row)
CREATE FUNCTION slow(x int4[], s float8) RETURNS int4[]
LANGUAGE plpgsql VOLATILE AS $$ BEGIN PERFORM pg_sleep(s); RETURN x; END $$;
