-- test/shard/shard.sql: a shard server's part of the sharded cluster
-- (test/shard/run.sh), run on each shard with the psql variable shard
-- (0 or 1).  The table behind the coordinator's foreign partition, and
-- the functions PL/Proxy calls: the proxy's functions of the same names
-- and signatures (test/shard/coordinator.sql) run these.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION setops;

CREATE TABLE seg_p (
	shard int NOT NULL CHECK (shard = :shard),
	id int PRIMARY KEY,
	members int4[],
	pm packed_int4,
	m8 int8[],
	pm8 packed_int8
);

-- which shard this is
CREATE TABLE shard_self (shard int NOT NULL);
INSERT INTO shard_self VALUES (:shard);

-- this shard's setops.device
CREATE FUNCTION shard_device() RETURNS SETOF text
LANGUAGE sql AS $$ SELECT current_setting('setops.device') $$;

-- this shard's three aggregates of the rows that contain must ('{}': all
-- rows, NULL rows included), each over int4[], packed_int4 and int8[]
CREATE FUNCTION shard_aggs(must int4[],
	OUT shard int, OUT n int8,
	OUT u int4[], OUT i int4[], OUT m int4[],
	OUT up packed_int4, OUT ip packed_int4, OUT mp packed_int4,
	OUT u8 int8[], OUT i8 int8[], OUT m8 int8[])
RETURNS SETOF record
LANGUAGE sql AS $$
	SELECT (SELECT shard FROM shard_self), count(*),
	       array_union_agg(members), array_intersect_agg(members), array_merge_agg(members),
	       array_union_agg(pm), array_intersect_agg(pm), array_merge_agg(pm),
	       array_union_agg(m8), array_intersect_agg(m8), array_merge_agg(m8)
	FROM seg_p
	WHERE must = '{}' OR array_contains(members, must)
$$;

-- ids of this shard's rows whose packed members overlap q
CREATE FUNCTION shard_overlapping(q packed_int4) RETURNS SETOF int
LANGUAGE sql AS $$ SELECT id FROM seg_p WHERE pm && q $$;

-- this shard's sum of intersection counts with q
CREATE FUNCTION shard_intersect_count(q int4[]) RETURNS SETOF int8
LANGUAGE sql AS $$ SELECT coalesce(sum(array_intersect_count(members, q)), 0)::int8 FROM seg_p $$;

-- one row, by key (the proxy runs it on the shard that owns the key):
-- its values and their operations with q
CREATE FUNCTION seg_row(i_id int, q int4[],
	OUT id int, OUT members int4[], OUT pm packed_int4,
	OUT inter int4[], OUT uni packed_int4, OUT cnt int8, OUT jac float8)
RETURNS SETOF record
LANGUAGE sql AS $$
	SELECT s.id, s.members, s.pm, array_intersect_gpu(s.members, q), s.pm | q::packed_int4,
	       array_intersect_count(s.pm, q), array_jaccard(s.members, q)
	FROM seg_p s WHERE s.id = i_id
$$;

-- for the faults step: sleeps, then answers
CREATE FUNCTION shard_sleep(s float8) RETURNS SETOF int4[]
LANGUAGE sql AS $$ SELECT pg_sleep(s); SELECT array_union_agg(members) FROM seg_p $$;
