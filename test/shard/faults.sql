-- faults.sql: one coordinator session while shard 1 is stopped (pg_ctl
-- stop -m immediate) and started again, through run.sh --server (psql's
-- \!).  test/shard/run.sh compares what it prints with
-- expected/faults.out: a clean ERROR for postgres_fdw and for PL/Proxy
-- while the shard is down, and the right answers once it is back, in this
-- same session (whose connections to the shard were broken).
\set ON_ERROR_STOP 0
\pset format unaligned
\pset tuples_only on

SELECT fdw_ok();
\echo 1. both shards up, postgres_fdw: error :ERROR
SELECT proxy_ok();
\echo 2. both shards up, PL/Proxy: error :ERROR

\! bash test/shard/run.sh --server stop "$SHARD1" immediate
SELECT fdw_ok();
\echo 3. shard 1 stopped, postgres_fdw: error :ERROR, SQLSTATE :LAST_ERROR_SQLSTATE
SELECT count(*) FROM seg_p1;
\echo 4. shard 1 stopped, postgres_fdw, its partition alone: error :ERROR, SQLSTATE :LAST_ERROR_SQLSTATE
SELECT count(*) = (SELECT count(*) FROM seg_local WHERE shard = 0) FROM seg_p0;
\echo 5. shard 1 stopped, postgres_fdw, the partition on shard 0: error :ERROR
SELECT proxy_ok();
\echo 6. shard 1 stopped, PL/Proxy: error :ERROR, SQLSTATE :LAST_ERROR_SQLSTATE
SELECT proxy_ok();
\echo 7. shard 1 stopped, PL/Proxy again: error :ERROR, SQLSTATE :LAST_ERROR_SQLSTATE

\! bash test/shard/run.sh --server start "$SHARD1"
SELECT fdw_ok();
\echo 8. shard 1 back, postgres_fdw: error :ERROR
SELECT proxy_ok();
\echo 9. shard 1 back, PL/Proxy: error :ERROR
