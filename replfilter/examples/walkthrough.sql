-- A multi-source replica with per-channel filters (MySQL 8.4, WL#7361).
-- Run: replfilter -t replfilter/examples/walkthrough.sql

-- Two sources, two channels. Each copies the global rules when it becomes configured.
CHANGE REPLICATION FILTER REPLICATE_IGNORE_TABLE = (global_db.audit_log);
CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'source-eu', SOURCE_PORT = 3306 FOR CHANNEL 'eu';
CHANGE REPLICATION SOURCE TO SOURCE_HOST = 'source-us', SOURCE_PORT = 3306 FOR CHANNEL 'us';
START REPLICA;

-- Filters can only change while the SQL thread is stopped (otherwise: ERROR 3085),
-- so stop it first; the IO thread may keep running.
STOP REPLICA SQL_THREAD;

-- Per-channel rules replace that channel's rules of the listed types only.
CHANGE REPLICATION FILTER REPLICATE_DO_DB = (sales, `db,with,commas`),
                          REPLICATE_WILD_IGNORE_TABLE = ('sales.tmp\_%')
    FOR CHANNEL 'eu';
CHANGE REPLICATION FILTER REPLICATE_REWRITE_DB = ((crm, crm_us)) FOR CHANNEL 'us';

SELECT CHANNEL_NAME, FILTER_NAME, FILTER_RULE, CONFIGURED_BY, COUNTER
  FROM performance_schema.replication_applier_filters;

SELECT FILTER_NAME, FILTER_RULE, CONFIGURED_BY
  FROM performance_schema.replication_applier_global_filters;

-- The channel as SHOW REPLICA STATUS shows it (60 columns; \G prints them vertically).
SHOW REPLICA STATUS FOR CHANNEL 'eu'\G
